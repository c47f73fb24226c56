"""Benchmark (issue 15): tournament throughput with many games at once per bot process.

Prints, in one run:

(a) games/s of a 4-player Skull round robin among 6 SDK ``random`` bots, and (b) of a 4-player
    Skull King round robin among the bundled Skull King bots, each played as a tournament
    (``tournaments.run.runner.run``, sandboxed where bubblewrap works) at ``--games-per-worker``
    K = 1 and at the default K, next to the in-process limit: the same planned games played
    by the referee over ``InProcessSeat``s calling the same bot functions (no processes);
(c) per-decision latency of one game at a time over the protocol (the K = 1 path), here and
    with the old code of ``--old`` (a checkout of older code, e.g. made with ``git worktree
    add``: its bench/bench_protocol.py's own function) measured in the same run; the old code's
    tournament games/s too.

Each figure comes from a fresh subprocess (``--measure``) so each code base runs as itself.
The machine may be shared: compare figures with their same-run baselines only.

Run: python bench/bench_throughput.py [--rounds 9] [--jobs 1] [--old PATH]
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
#: The tournaments' move time (ms): the default K follows from it.
MOVE_MS = 2000
ROOT = HERE.parent

CASES = {
    "skull": ("skull", ("random",) * 6),
    "skull-king": ("skull-king", ("skull_king_bidder", "random", "first", "skull_king_bidder")),
}


def _tournament(case: str, rounds: int):
    """A fresh store with the case's tournament planned: (store, tid, specs, folder)."""
    from arena.keys.seeds import new_key
    from tournaments.catalogue.lookup import bundled_spec
    from tournaments.plans.schedule import TournamentSpec, plan
    from tournaments.store.facts import Store

    game, bots = CASES[case]
    folder = tempfile.mkdtemp(prefix="bench-throughput-")
    store = Store.open(Path(folder) / "bench.db")
    spec = TournamentSpec(
        game=game,
        options={},
        bots=bots,
        table_size=4,
        repetitions=rounds,
        seed=7,
        move_ms=MOVE_MS,
    )
    key = new_key()
    labels = spec.entrant_bots()
    tid = store.create_tournament(
        spec, plan(spec, key=key), {e: (b, "bench") for e, b in labels.items()}, key=key
    )
    return store, tid, {label: bundled_spec(bot) for label, bot in labels.items()}, folder


def measure_tournament(case: str, rounds: int, jobs: int, k: int | None) -> dict:
    """Games/s of one tournament run (K None: the code's default; old code: no K at all)."""
    from arena.games import get_game
    from arena.procs.limits import Limits
    from arena.procs.sandbox import SandboxMode
    from tournaments.catalogue.bot_sandbox import sandbox_for
    from tournaments.run.playing import RunConfig, auto_games_per_worker
    from tournaments.run.runner import run

    store, tid, specs, folder = _tournament(case, rounds)
    db = Path(folder) / "bench.db"
    config = RunConfig(
        game=get_game(CASES[case][0]),
        options={},
        bots=specs,
        limits=Limits(move_ms=MOVE_MS),
        at_once=k or auto_games_per_worker(MOVE_MS),
        sandbox=sandbox_for(SandboxMode.AUTO, db),
        log_dir=db.parent / "arena-logs",
    )
    started = time.perf_counter()
    summary = run(store, tid, config, jobs=jobs)
    wall = time.perf_counter() - started
    store.close()
    return {"games": summary.played, "wall_s": wall, "rate": summary.played / wall}


def measure_in_process(case: str, rounds: int) -> dict:
    """Games/s of the same planned games over in-process seats (the same bot functions)."""
    import random

    from arena.games import get_game
    from arena.procs.limits import Limits
    from arena.referee import driver
    from arena.referee.game import GameSetup
    from arena.referee.seats import InProcessSeat

    store, tid, specs, _ = _tournament(case, rounds)
    info = store.tournament(tid)
    game = get_game(info.spec.game)
    pending = store.pending_games(tid)
    modules = {label: importlib.import_module(f"bots.{spec.name}") for label, spec in specs.items()}
    started = time.perf_counter()
    limits = Limits(move_ms=MOVE_MS)
    for game_id, planned in pending:
        random.seed(planned.deal_seed)  # the SDK seeds random at start; so does this
        seats = [
            InProcessSeat(_act_of(modules[label], seed), label)
            for label, seed in zip(planned.seating, planned.bot_seeds(), strict=True)
        ]
        table = GameSetup(game, seats, planned.deal_seed, {}, game_id, planned.bot_seeds())
        driver.play(table, limits)
    wall = time.perf_counter() - started
    store.close()
    return {"games": len(pending), "wall_s": wall, "rate": len(pending) / wall}


def _act_of(module: Any, seed: int) -> Any:
    """A bundled bot's ``act``: its function, or a fresh, seeded instance's (``Bot`` class)."""
    if hasattr(module, "act"):
        return module.act
    from protocol.sdk import Bot

    kinds = [v for v in vars(module).values() if isinstance(v, type) and issubclass(v, Bot)]
    bot = next(kind for kind in kinds if kind is not Bot)()
    bot.random.seed(seed)
    return bot.act


def measure_latency(games: int) -> dict:
    """Per-decision µs of one 4-player Skull game at a time (bench_protocol's function, over
    whichever code base is on the path)."""
    sys.path.insert(0, str(HERE))
    from bench_protocol import protocol_decisions

    micros, decisions = protocol_decisions("skull", 4, games)
    return {"us": micros, "decisions": decisions}


def _run(code: Path, what: list[str]) -> dict:
    """One measurement in a fresh process over the code base at ``code``."""
    env = dict(os.environ, PYTHONPATH=str(code))
    script = code / "bench" / "bench_throughput.py"
    if not script.exists():  # the old code has no such script: use this one over its code
        script = Path(__file__).resolve()
    out = subprocess.run(
        [sys.executable, str(script), "--measure", *what],
        env=env,
        cwd=str(code),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def _measure(args: list[str]) -> int:
    kind = args[0]
    if kind == "tournament":
        k = None if args[4] == "none" else int(args[4])
        result = measure_tournament(args[1], int(args[2]), int(args[3]), k)
    elif kind == "in-process":
        result = measure_in_process(args[1], int(args[2]))
    else:
        result = measure_latency(int(args[1]))
    print(json.dumps(result))
    return 0


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--measure":
        return _measure(sys.argv[2:])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9, help="Skull: 9 rounds = 540 games")
    parser.add_argument("--king-rounds", type=int, default=1, help="Skull King rounds")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--latency-games", type=int, default=100)
    parser.add_argument(
        "--old",
        type=Path,
        default=None,
        help="a checkout of older code to compare with (e.g. git worktree add /tmp/old REV)",
    )
    args = parser.parse_args()
    from tournaments.run.playing import auto_games_per_worker

    default_k = auto_games_per_worker(MOVE_MS)

    old = args.old if args.old is not None and (args.old / "arena").is_dir() else None
    print(f"jobs={args.jobs}; default K = {default_k}; shared machine: compare")
    print("figures with their same-run baselines only.")
    for case, rounds in (("skull", args.rounds), ("skull-king", args.king_rounds)):
        limit = _run(ROOT, ["in-process", case, str(rounds)])
        print(f"\n({'a' if case == 'skull' else 'b'}) {case}: {limit['games']} games, 4 seats")
        print(f"  in-process limit (same games, same bot functions)  {limit['rate']:8.1f} games/s")
        if old is not None:
            base = _run(old, ["tournament", case, str(rounds), str(args.jobs), "none"])
            print(
                f"  old code (one game at a time per worker)           {base['rate']:8.1f} games/s"
            )
        for k in (1, default_k):
            got = _run(ROOT, ["tournament", case, str(rounds), str(args.jobs), str(k)])
            print(
                f"  K = {k:<3d} games per worker                         {got['rate']:8.1f} games/s"
            )
    now = _run(ROOT, ["latency", str(args.latency_games)])
    print(f"\n(c) one 4-player Skull game at a time: {now['decisions']} decisions")
    print(f"  this code      {now['us']:8.1f} us per decision")
    if old is not None:
        was = _run(old, ["latency", str(args.latency_games)])
        print(f"  old code       {was['us']:8.1f} us per decision")
    return 0


if __name__ == "__main__":
    sys.exit(main())
