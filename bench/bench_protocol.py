"""Benchmark of the arena core, printed in one run (issue 2):

(a) the raw pyzmq + msgpack request/reply round trip between two processes on this machine,
    with a message of the size of a real turn;
(b) the mean time per decision of games between SDK ``random`` bots over the real protocol,
    bot start-up excluded (target: at most 1.5 x (a));
(c) decisions per second of the engine in process (random playouts that build the acting
    seat's view at every step).

With ``--old PATH`` (a checkout of older code, e.g. made with ``git worktree add``) it measures
(a) and (b) over each tree in turn, ``--rounds`` times, each time in a fresh process running that
tree's own bench/bench_protocol.py functions, and prints the medians, each tree's ratio (b)/(a)
and the arena process's CPU time per decision (what the referee itself spends: the figure a
loaded machine disturbs least).

Run: python bench/bench_protocol.py [--game skull] [--players 4] [--games 200]
     python bench/bench_protocol.py --old PATH [--rounds 5] [--games 100]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

import msgpack
import zmq
from bench_engines import decisions_per_second  # bench/ is on the path when run as a script

from arena.games import get_game
from arena.keys.seeds import bot_seeds, new_key
from arena.procs.limits import Limits
from arena.procs.sandbox import SandboxMode, resolve
from arena.referee import driver
from arena.referee.game import GameSetup
from arena.referee.session import Session
from protocol.transport import default_endpoint
from tournaments.catalogue.lookup import bundled_spec


def sample_turn(game_name: str, players: int) -> dict:
    """A realistic ``turn`` message: the view of a seat a few steps into a random game."""
    state = get_game(game_name).new(players, 1)
    rng = random.Random(1)
    for _ in range(players + 3):
        if state.is_over():
            break
        state.apply({s: rng.choice(state.legal(s)) for s in state.to_act()})
    seat = state.to_act()[0]
    return {
        "type": "turn",
        "game_id": 1,
        "request": 1,
        "view": state.view(seat),
        "legal": state.legal(seat),
        "deadline_ms": 1000,
    }


def _echo_peer(endpoint: str) -> None:
    sock = zmq.Context.instance().socket(zmq.DEALER)
    sock.connect(endpoint)
    sock.send(msgpack.packb({"type": "hello"}))
    while True:
        msg = msgpack.unpackb(sock.recv())
        if msg.get("type") == "bye":
            return
        sock.send(
            msgpack.packb(
                {
                    "type": "action",
                    "game_id": msg["game_id"],
                    "request": msg["request"],
                    "action": msg["legal"][0],
                }
            )
        )


def raw_round_trip(turn: dict, count: int) -> float:
    """Mean microseconds of one request/reply: pack, send, peer unpacks and packs, unpack."""
    endpoint = default_endpoint()
    router = zmq.Context.instance().socket(zmq.ROUTER)
    router.bind(endpoint)
    proc = multiprocessing.get_context("spawn").Process(target=_echo_peer, args=(endpoint,))
    proc.start()
    peer, _ = router.recv_multipart()
    for _ in range(500):  # warm up
        router.send_multipart((peer, msgpack.packb(turn)))
        msgpack.unpackb(router.recv_multipart()[1])
    started = time.perf_counter()
    for _ in range(count):
        router.send_multipart((peer, msgpack.packb(turn)))
        msgpack.unpackb(router.recv_multipart()[1])
    elapsed = time.perf_counter() - started
    router.send_multipart((peer, msgpack.packb({"type": "bye"})))
    proc.join(5)
    router.close(0)
    return elapsed / count * 1e6


def protocol_decisions(game_name: str, players: int, games: int) -> tuple[float, int]:
    """Mean microseconds per decision over ``games`` games (processes started beforehand)."""
    game = get_game(game_name)
    box = resolve(SandboxMode.AUTO)  # as before: sandboxed where bubblewrap works
    limits = Limits(move_ms=5000)
    with Session(limits, sandbox=box) as session:
        spec = bundled_spec("random")
        entries = [(f"random#{i}", spec) for i in range(players)]
        warm = GameSetup(game, session.seats(entries, strict=True), 0, bot_seeds=[1] * players)
        driver.play(warm, limits)
        decisions = 0
        key = new_key()
        started = time.perf_counter()
        for index in range(games):
            seed = 1000 + index
            table = GameSetup(
                game,
                session.seats(entries, strict=True),
                seed,
                game_id=index + 2,
                bot_seeds=bot_seeds(key, seed, players),
            )
            record = driver.play(table, limits)
            decisions += sum(record.decisions)
            assert not record.faults, record.faults
        elapsed = time.perf_counter() - started
    return elapsed / decisions * 1e6, decisions


#: Run in a fresh process over one tree (argv: the tree, game, players, games, round trips):
#: that tree's own functions, (a) and (b) and the arena process's CPU time per decision (that
#: of a 5-game run, its processes' start and stop included, subtracted), as JSON.
_MEASURE = """
import json, statistics, sys, time
tree, game, players, games, trips = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:6])
sys.path.insert(0, tree + "/bench")
import bench_protocol as bench
turn = bench.sample_turn(game, players)
raw = statistics.median(bench.raw_round_trip(turn, trips) for _ in range(3))
cpu = time.process_time()
_, few = bench.protocol_decisions(game, players, 5)  # the fixed costs, to subtract
fixed = time.process_time() - cpu
cpu = time.process_time()
per_decision, decisions = bench.protocol_decisions(game, players, games)
cpu = time.process_time() - cpu - fixed
print(json.dumps({"raw": raw, "us": per_decision, "cpu_us": cpu / (decisions - few) * 1e6}))
"""


def measure_tree(tree: Path, args: argparse.Namespace) -> dict[str, float]:
    """(a), (b) and the arena's CPU per decision over ``tree``'s code, in a fresh process."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    what = [args.game, str(args.players), str(args.games), str(args.round_trips)]
    out = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(tree), *what],
        env=env,
        cwd=str(tree),
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        raise SystemExit(f"measuring {tree} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def compare(old: Path, args: argparse.Namespace) -> int:
    """This tree and ``old`` alternated ``args.rounds`` times; medians and ratios."""
    new = Path(__file__).resolve().parent.parent
    runs: dict[str, list[dict[str, float]]] = {"new": [], "old": []}
    print(f"load before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for _ in range(args.rounds):
        runs["new"].append(measure_tree(new, args))
        runs["old"].append(measure_tree(old, args))
    for name, tree in (("new", new), ("old", old)):
        got = runs[name]
        raw = statistics.median(r["raw"] for r in got)
        per = statistics.median(r["us"] for r in got)
        ratios = [r["us"] / r["raw"] for r in got]
        cpu = statistics.median(r["cpu_us"] for r in got)
        print(
            f"{name} ({tree}): (a) {raw:6.1f} us  (b) {per:6.1f} us  (b)/(a) "
            f"{statistics.median(ratios):.2f} [{min(ratios):.2f}-{max(ratios):.2f}]"
            f"  arena CPU {cpu:6.1f} us per decision"
        )
    pairs = list(zip(runs["new"], runs["old"], strict=True))
    decision = statistics.median(n["us"] / o["us"] for n, o in pairs)
    cpu = statistics.median(n["cpu_us"] / o["cpu_us"] for n, o in pairs)
    print(
        f"new/old, pair by pair (medians): (b) {decision:.2f}  arena CPU {cpu:.2f}"
        f"  (load after: {' '.join(f'{x:.2f}' for x in os.getloadavg())})"
    )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="skull")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--round-trips", type=int, default=20000)
    parser.add_argument("--old", type=Path, default=None, help="an older tree to compare with")
    parser.add_argument("--rounds", type=int, default=5, help="with --old: runs of each tree")
    args = parser.parse_args()
    if args.old is not None:
        return compare(args.old.resolve(), args)
    turn = sample_turn(args.game, args.players)
    size = len(msgpack.packb(turn))
    raw = statistics.median(raw_round_trip(turn, args.round_trips) for _ in range(3))
    per_decision, decisions = protocol_decisions(args.game, args.players, args.games)
    engine = decisions_per_second(args.game, args.players, 3.0)
    ratio = per_decision / raw
    print(f"(a) raw pyzmq+msgpack round trip ({size}-byte turn):  {raw:8.1f} us")
    print(
        f"(b) {args.game} decision over the protocol ({decisions} decisions, "
        f"{args.games} games):  {per_decision:8.1f} us  = {ratio:.2f} x (a)  "
        f"[target <= 1.5 x: {'met' if ratio <= 1.5 else 'NOT met'}]"
    )
    print(f"(c) {args.game} engine in process, view at every step: {engine:10.0f} decisions/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
