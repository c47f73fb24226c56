"""Benchmark of the arena core, printed in one run (issue 2):

(a) the raw pyzmq + msgpack request/reply round trip between two processes on this machine,
    with a message of the size of a real turn;
(b) the mean time per decision of games between SDK ``random`` bots over the real protocol,
    bot start-up excluded (target: at most 1.5 x (a));
(c) decisions per second of the engine in process (random playouts that build the acting
    seat's view at every step).

Run: python bench/bench_protocol.py [--game skull] [--players 4] [--games 200]
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import statistics
import sys
import time

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
from tournaments.catalogue import bundled_spec


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="skull")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--round-trips", type=int, default=20000)
    args = parser.parse_args()
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
