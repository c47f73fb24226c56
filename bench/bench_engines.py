"""Benchmark: in-process decisions per second of random playouts of every bundled game.

A decision is one acting seat's ``view`` and ``legal`` list and a random choice; each joint
action is then applied (a simultaneous step is one decision per seat and one ``apply``). Times
are CPU seconds of this process (``time.process_time``); the median of ``--repeat`` bursts of
``--seconds`` each is printed per game, so load from other processes skews the figure little.

The rules come from whatever ``arena`` is importable, so two trees compare by PYTHONPATH, or
in one run with ``--trees``: each round of bursts then runs once per tree, in a child process
whose PYTHONPATH is that tree, the trees alternating; the medians per game and tree are printed
with each tree's ratio to the first one.

    PYTHONPATH=/path/to/tree python bench/bench_engines.py [--seconds 1] [--repeat 5]
        [--players 4] [--games skull,skull-bank] [--trees /old/tree,/new/tree]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time


def decisions_per_second(game_name: str, players: int, seconds: float) -> float:
    """Decisions per CPU second of random playouts of ``game_name`` for about ``seconds``."""
    from arena.games import get_game  # (the rules of the tree on PYTHONPATH)

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
        default="",
        help="comma-separated game names (default: every bundled game)",
    )
    parser.add_argument(
        "--trees",
        default="",
        help="comma-separated source trees to compare in alternating child processes",
    )
    parser.add_argument("--json", action="store_true", help="print the rates as one JSON map")
    args = parser.parse_args()
    chosen = [name.strip() for name in args.games.split(",") if name.strip()]
    trees = [tree.strip() for tree in args.trees.split(",") if tree.strip()]
    if trees:
        compare(trees, chosen, args.players, args.seconds, args.repeat)
        return
    if not chosen:
        from arena.games import names

        chosen = names()
    rates: dict[str, list[float]] = {name: [] for name in chosen}
    for _ in range(args.repeat):  # bursts alternate between games
        for name in chosen:
            rates[name].append(decisions_per_second(name, args.players, args.seconds))
    if args.json:
        print(json.dumps(rates))
        return
    for name in chosen:
        print(
            f"{name:12} {statistics.median(rates[name]):>10,.0f} decisions/s "
            f"({args.players} players, median of {args.repeat})"
        )


def burst_in(tree: str, games: list[str], players: int, seconds: float) -> dict[str, float]:
    """One burst per game of ``games`` in a child process whose rules come from ``tree``."""
    command = [sys.executable, __file__, "--json", "--repeat", "1", "--seconds", str(seconds)]
    command += ["--players", str(players), "--games", ",".join(games)]
    env = {**os.environ, "PYTHONPATH": tree}
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    return {name: rates[0] for name, rates in json.loads(done.stdout).items()}


def compare(trees: list[str], games: list[str], players: int, seconds: float, repeat: int) -> None:
    """Print the median rate per game and tree, bursts alternating between the trees."""
    rates: dict[tuple[str, str], list[float]] = {}
    games = list(games)  # (every bundled game of the first tree if none is named)
    for _ in range(repeat):
        for tree in trees:
            for name, rate in burst_in(tree, games, players, seconds).items():
                rates.setdefault((tree, name), []).append(rate)
                if name not in games:
                    games.append(name)
    print(f"decisions/s, {players} players, median of {repeat} alternating bursts per tree")
    for name in games:
        first = statistics.median(rates[trees[0], name])
        for tree in trees:
            median = statistics.median(rates[tree, name])
            print(f"{name:12} {median:>10,.0f}  x{median / first:.2f}  {tree}")


if __name__ == "__main__":
    main()
