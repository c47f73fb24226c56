"""Benchmark: in-process decisions per second of random playouts of every bundled game.

A decision is one acting seat's ``view`` and ``legal`` list and a random choice; each joint
action is then applied (a simultaneous step is one decision per seat and one ``apply``). Times
are CPU seconds of this process (``time.process_time``); the median of ``--repeat`` bursts of
``--seconds`` each is printed per game, so load from other processes skews the figure little.

The rules come from whatever ``arena`` is importable, so two trees compare by PYTHONPATH:

    PYTHONPATH=/path/to/tree python bench/bench_engines.py [--seconds 1] [--repeat 5]
        [--players 4] [--games skull,skull-bank]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from arena.games import get_game, names


def decisions_per_second(game_name: str, players: int, seconds: float) -> float:
    """Decisions per CPU second of random playouts of ``game_name`` for about ``seconds``."""
    game = get_game(game_name)
    choice = random.Random(1).choice
    decisions = seed = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        state = game.new(players, seed)
        seed += 1
        while not state.is_over():
            joint = {}
            for seat in state.to_act():
                state.view(seat)
                joint[seat] = choice(state.legal(seat))
            state.apply(joint)
            decisions += len(joint)
    return decisions / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="length of one burst")
    parser.add_argument("--repeat", type=int, default=5, help="bursts per game")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument(
        "--games",
        default=",".join(names()),
        help="comma-separated game names (default: every bundled game)",
    )
    args = parser.parse_args()
    chosen = [name.strip() for name in args.games.split(",") if name.strip()]
    rates: dict[str, list[float]] = {name: [] for name in chosen}
    for _ in range(args.repeat):  # bursts alternate between games
        for name in chosen:
            rates[name].append(decisions_per_second(name, args.players, args.seconds))
    for name in chosen:
        print(
            f"{name:12} {statistics.median(rates[name]):>10,.0f} decisions/s "
            f"({args.players} players, median of {args.repeat})"
        )


if __name__ == "__main__":
    main()
