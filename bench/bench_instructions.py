"""Benchmark: instructions a decision, a figure the machine's load does not change (valgrind's
callgrind; needs valgrind).

(a) the referee: ``--games`` four-seat Skull games, ``--at-once`` at once (64), over 6 SDK
    ``random`` bot processes (unsandboxed, without their child set-up: valgrind cannot follow
    seccomp; they run natively, only the referee's process is counted, all its threads). The
    counters are zeroed after 64 games of warm-up and read after the measured games:
    instructions / decisions;
(b) the same games' in-process cost (``InProcessSeat`` over the same bot's ``act``): what the
    in-process limit of ``bench_throughput.py`` pays a decision (rules, views, the bot);
(c) an SDK ``random`` bot's instructions a turn: batches of 7 turns of 7 Skull games, encoded
    as the referee sends them, each decoded as the SDK does (views skipped for a bot that reads
    none) and answered in one batch over a real socket.

With ``--old TREE`` every figure is measured over both trees (each in its own valgrind run, the
same games), with the ratio new/old. Each figure is one run: the counts move by about 1 % from
run to run (the bots' timing changes how the answers batch).

    python bench/bench_instructions.py [--games 100] [--at-once 64] [--old TREE] [--part referee]
        [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: The games played before the counters are zeroed (processes started, code warm).
WARM_GAMES = 64
#: Turns of one batch for the bot.
BATCH = 7


def _counting(flag: str) -> None:
    """Zero (``-z``) or dump (``-d``) this process's callgrind counters."""
    subprocess.run(["callgrind_control", flag, str(os.getpid())], check=True, capture_output=True)


def referee(games: int, at_once: int) -> int:
    """(a): decisions played between the zeroing and the dump."""
    import arena.procs.limits as process_limits
    from arena.games import get_game
    from arena.keys.seeds import bot_seeds, new_key
    from arena.procs.limits import Limits
    from arena.referee import driver
    from arena.referee.game import GameSetup
    from arena.referee.session import Session
    from tournaments.catalogue.lookup import bundled_spec

    process_limits.child_setup = lambda plan: None  # type: ignore[assignment]
    game, limits, key = get_game("skull"), Limits(move_ms=60_000), new_key()
    entries = [(f"random#{i}", bundled_spec("random")) for i in range(6)]

    def setups(session: Session, count: int, first: int):
        for index in range(count):
            seed = first + index
            seats = session.seats([entries[(index + j) % 6] for j in range(4)], strict=True)
            yield GameSetup(game, seats, seed, game_id=seed, bot_seeds=bot_seeds(key, seed, 4))

    with Session(limits) as session:
        for _ in driver.play_many(setups(session, WARM_GAMES, 1000), at_once, limits):
            pass
        _counting("-z")
        played = driver.play_many(setups(session, games, 5000), at_once, limits)
        decisions = sum(sum(done.record.decisions) for done in played)
        _counting("-d")
    return decisions


def in_process(games: int, at_once: int) -> int:
    """(b): decisions of the same kind of games over in-process seats."""
    from arena.games import get_game
    from arena.procs.limits import Limits
    from arena.referee import driver
    from arena.referee.game import GameSetup
    from arena.referee.seats import InProcessSeat
    from bots.random import RandomBot

    game, limits = get_game("skull"), Limits(move_ms=60_000)

    def play(count: int, first: int) -> int:
        decisions = 0
        for index in range(count):
            bots = [RandomBot() for _ in range(4)]
            for seat, bot in enumerate(bots):
                bot.random.seed(first + 4 * index + seat)
            seats = [InProcessSeat(bot.act, f"random#{i}") for i, bot in enumerate(bots)]
            setup = GameSetup(game, seats, first + index, game_id=first + index)
            decisions += sum(driver.play(setup, limits).decisions)
        return decisions

    play(WARM_GAMES // 4, 1000)
    _counting("-z")
    decisions = play(games, 5000)
    _counting("-d")
    return decisions


def bot(games: int, at_once: int) -> int:
    """(c): turns answered between the zeroing and the dump."""
    import random

    import zmq

    import protocol.codec as codec
    from arena.games import get_game
    from bots.random import RandomBot
    from protocol import sdk
    from protocol.messages import batch, start, turn
    from protocol.transport import DealerSocket

    rng, game = random.Random(1), get_game("skull")
    per_game = []
    for seed in range(BATCH):
        state, turns = game.new(4, seed, {}), []
        while not state.is_over():
            step = {}
            for seat in state.to_act():
                legal = state.legal(seat)
                view = state.view(seat)
                turns.append(turn(game_id=100 + seed, request=len(turns) + 1, view=view,
                                  legal=legal, deadline_ms=2000))  # fmt: skip
                step[seat] = rng.choice(legal)
            state.apply(step)
        per_game.append(turns)
    rounds = min(map(len, per_game))
    batches = [codec.encode(batch([t[i] for t in per_game])) for i in range(rounds)]
    context = zmq.Context()
    arena_side = context.socket(zmq.ROUTER)
    arena_side.bind("inproc://arena")
    sock = DealerSocket("inproc://arena", context=context)
    player = sdk.Player(RandomBot)
    for seed in range(BATCH):
        player.start(start(game_id=100 + seed, game="skull", seat=0, players=4, options={},
                           seed=seed))  # fmt: skip
    skip = getattr(codec, "decode_without_views", None)
    decode = codec.decode if getattr(player, "reads_view", True) or skip is None else skip

    def answer(data: bytes) -> None:
        message = decode(data, max_bytes=sock.max_message_bytes)
        sdk._answer_batch(sock.socket, player, message["messages"])

    for data in batches[:5]:
        answer(data)
    _counting("-z")
    for data in batches:
        answer(data)
    _counting("-d")
    return rounds * BATCH


PARTS = {"referee": referee, "in-process": in_process, "bot": bot}


def _count(tree: Path, part: str, games: int, at_once: int) -> dict[str, float]:
    """One part over one tree, in its own valgrind run: instructions, decisions, their ratio."""
    with tempfile.TemporaryDirectory(prefix="bench-instructions-") as folder:
        out = Path(folder) / "callgrind.out"
        run = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--trace-children=no",
                f"--callgrind-out-file={out}",
                os.path.realpath(sys.executable),
                str(Path(__file__).resolve()),
                "--inside",
                part,
                str(games),
                str(at_once),
            ],
            env=dict(os.environ, PYTHONPATH=str(tree)),
            cwd=str(tree),
            capture_output=True,
            text=True,
            check=False,
        )
        if run.returncode != 0:
            raise SystemExit(f"{part} over {tree} failed:\n{run.stderr[-3000:]}")
        decisions = int(run.stdout.strip().splitlines()[-1])
        dump = Path(f"{out}.1").read_text()
        found = re.search(r"^(?:totals|summary): (\d+)", dump, re.MULTILINE)
        if found is None:
            raise SystemExit(f"no totals in the callgrind dump of {part} over {tree}")
        instructions = int(found.group(1))
    return {
        "instructions": instructions,
        "decisions": decisions,
        "per_decision": instructions / decisions,
    }


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--inside":
        print(PARTS[sys.argv[2]](int(sys.argv[3]), int(sys.argv[4])))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games measured (a), (b)")
    parser.add_argument("--at-once", type=int, default=64, help="(a): games at once")
    parser.add_argument("--old", type=Path, default=None, help="an older tree to compare with")
    parser.add_argument("--part", action="append", choices=tuple(PARTS), help="only this part")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    trees = {"new": ROOT, **({"old": args.old.resolve()} if args.old else {})}
    report: dict[str, dict[str, dict[str, float]]] = {}
    for part in args.part or PARTS:
        report[part] = {
            name: _count(tree, part, args.games, args.at_once) for name, tree in trees.items()
        }
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print("instructions a decision (callgrind; a bot's: a turn)")
    for part, figures in report.items():
        line = "  ".join(
            f"{name} {f['per_decision'] / 1000:7.1f}k ({int(f['decisions'])})"
            for name, f in figures.items()
        )
        ratio = ""
        if "old" in figures:
            ratio = (
                f"  new/old {figures['new']['per_decision'] / figures['old']['per_decision']:.3f}"
            )
        print(f"  {part:10s} {line}{ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
