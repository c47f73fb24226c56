"""Benchmark: the Python SDK's CPU per turn (decode, act, encode) with one game or several
interleaved, for a function bot drawing from the global ``random`` module and for the bundled
``random`` bot (a ``Bot`` subclass drawing from ``self.random``, ``global_random = False``).

The turns are real: views and legal lists of four-player Skull games played at random,
encoded as the arena sends them. Each turn goes through ``protocol.sdk.Player.answer`` (what the
serve loop does with a ``turn``) after ``decode``; with K games open the turns rotate over
them, so every turn changes game and, for the function bot, the SDK swaps the global
``random`` state (saves the last game's, restores this one's). Times are CPU seconds of this
process (``time.process_time``), the median of ``--repeat`` bursts; the parts (decode alone,
the random swap alone) are measured in the same run as a baseline.

Then the same over the wire: one process of ``bots.random`` and a ROUTER socket here that sends
K turns of K games back to back and waits for their K answers, round after round. The bot
process's CPU per turn (its rusage, less that of a process that only says hello, measured in
the same run) shows what K queued turns save: one wake-up serves K turns.

    PYTHONPATH=/path/to/tree python bench/bench_sdk.py [--turns 4000] [--repeat 7]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

from arena.games import get_game
from bots.random import RandomBot
from protocol.codec import MAX_ARENA_MESSAGE, decode, encode
from protocol.sdk import Player
from protocol.transport import RouterSocket

#: Milliseconds to wait for the bot process's hello or one answer (a bound, not a figure).
WAIT_MS = 30_000


def global_random_act(view: dict[str, Any], legal: list[str]) -> str:
    """A function bot: the SDK keeps the global ``random`` module's state per game for it."""
    return random.choice(legal)


def sample_turns(count: int) -> list[tuple[dict[str, Any], list[str]]]:
    """``count`` (view, legal) pairs of four-player Skull games played at random."""
    game, rng, turns, seed = get_game("skull"), random.Random(7), [], 0
    while len(turns) < count:
        state = game.new(4, seed)
        seed += 1
        while not state.is_over() and len(turns) < count:
            seats = state.to_act()
            turns += [(state.view(seat), state.legal(seat)) for seat in seats]
            state.apply({seat: rng.choice(state.legal(seat)) for seat in seats})
    return turns


def encoded(turns: list[tuple[dict[str, Any], list[str]]], games: int) -> list[bytes]:
    """The turns as the arena sends them, rotating over ``games`` game ids."""
    return [
        encode(
            {
                "type": "turn",
                "game_id": index % games,
                "request": index + 1,
                "view": view,
                "legal": legal,
                "deadline_ms": 1000,
            }
        )
        for index, (view, legal) in enumerate(turns)
    ]


def start(game_id: int) -> dict[str, Any]:
    """The ``start`` of game ``game_id`` (four-player Skull, seat 0)."""
    return {
        "type": "start",
        "game_id": game_id,
        "game": "skull",
        "seat": 0,
        "players": 4,
        "options": {},
        "seed": 1_000 + game_id,
    }


def player_with(bot: Any, games: int) -> Player:
    player = Player(bot)
    for game_id in range(games):
        player.start(start(game_id))
    return player


def cpu_us(run: Callable[[], int], repeat: int) -> float:
    """Median CPU microseconds per item of ``run`` (which returns how many items it did)."""
    samples = []
    for _ in range(repeat):
        start = time.process_time()
        items = run()
        samples.append((time.process_time() - start) * 1e6 / items)
    return statistics.median(samples)


def turns_through(player: Player, messages: list[bytes]) -> Callable[[], int]:
    def run() -> int:
        answer = player.answer
        for data in messages:
            answer(decode(data, max_bytes=MAX_ARENA_MESSAGE))
        return len(messages)

    return run


def decode_only(messages: list[bytes]) -> Callable[[], int]:
    def run() -> int:
        for data in messages:
            decode(data, max_bytes=MAX_ARENA_MESSAGE)
        return len(messages)

    return run


def swap_only(count: int) -> Callable[[], int]:
    states = [random.Random(n).getstate() for n in range(2)]

    def run() -> int:
        for index in range(count):
            random.getstate()
            random.setstate(states[index & 1])
        return count

    return run


def bot_over_the_wire(messages: list[bytes], games: int) -> tuple[float, float]:
    """Run ``bots.random`` in its own process and send it ``messages`` (their game ids rotate
    over ``games``) ``games`` at a time. Returns its CPU seconds and the wall seconds of the
    turns."""
    router = RouterSocket()
    env = {**os.environ, "ARENA_ENDPOINT": router.endpoint, "ARENA_TOKEN": "t"}
    process = subprocess.Popen([sys.executable, "-m", "bots.random"], env=env)
    try:
        got = router.recv_within(WAIT_MS)
        assert got is not None, "the bot did not say hello"
        route = got[0]
        router.send(route, {"type": "welcome", "protocol": 1})
        for game_id in range(games):
            router.send(route, start(game_id))
        socket, began = router.socket, time.perf_counter()
        for first in range(0, len(messages), games):
            batch = messages[first : first + games]
            for data in batch:
                socket.send_multipart([route, data])
            for _ in batch:
                assert router.recv_within(WAIT_MS) is not None, "the bot did not answer"
        wall = time.perf_counter() - began
        router.send(route, {"type": "bye"})
        _, _, usage = os.wait4(process.pid, 0)
        return usage.ru_utime + usage.ru_stime, wall
    finally:
        process.kill()
        router.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=4000, help="turns per burst")
    parser.add_argument("--repeat", type=int, default=7, help="bursts per figure")
    args = parser.parse_args()
    turns = sample_turns(args.turns)
    one = encoded(turns, 1)
    print(f"SDK CPU per turn, 4-player Skull views, median of {args.repeat} x {len(turns)} turns")
    decoding = cpu_us(decode_only(one), args.repeat)
    swapping = cpu_us(swap_only(len(turns)), args.repeat)
    print(f"  decode alone (baseline)             {decoding:6.2f} us")
    print(f"  random getstate+setstate (baseline) {swapping:6.2f} us")
    for label, bot in (("function, global random", global_random_act), ("bots.random", RandomBot)):
        for games in (1, 8, 32):
            run = turns_through(player_with(bot, games), encoded(turns, games))
            print(f"  {label:26} {games:2} game(s)  {cpu_us(run, args.repeat):6.2f} us")
    print(f"bots.random in its own process, {len(turns)} turns, median of {args.repeat} runs")
    idle = statistics.median(bot_over_the_wire([], 1)[0] for _ in range(args.repeat))
    print(f"  a process that only says hello (baseline): {idle * 1e3:.1f} ms CPU")
    for games in (1, 8, 32):
        runs = [bot_over_the_wire(encoded(turns, games), games) for _ in range(args.repeat)]
        cpu = statistics.median(run[0] for run in runs) - idle
        wall = statistics.median(run[1] for run in runs)
        print(
            f"  {games:2} game(s), turns {games:2} at a time: bot CPU "
            f"{cpu * 1e6 / len(turns):6.2f} us/turn, {len(turns) / wall:8.0f} turns/s wall"
        )


if __name__ == "__main__":
    main()
