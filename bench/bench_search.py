"""Benchmark: the engine paths a search bot's inner loop runs, from mid-game states.

Three figures per game, each the median over ``--repeat`` bursts of ``--seconds`` CPU seconds
(``time.process_time``) from mid-game states (random games stopped ``--depth`` of the way
through), one seat's view at a time:

- playouts/s: ``clone`` of the true state, then random legal play to the end and ``outcome``
  (``to_act``, ``legal``, ``apply``, ``is_over``);
- rebuilds/s: ``Game.from_view`` of the seat's view (what an ISMCTS iteration starts with);
- iterations/s: ``from_view`` then a random playout of the rebuilt state to the end.

A tree whose game cannot rebuild a state from a view shows ``n/a`` for the last two.
``--against TREE`` compares with another source tree in the same run: each burst runs in a
child process whose ``PYTHONPATH`` is this tree or ``TREE``, in alternation, so both see the
same load. The rules come from whatever ``arena`` is importable.

    python bench/bench_search.py [--against /path/to/other/tree] [--games skull-king,skyjo]
        [--players 4] [--seconds 1] [--repeat 5] [--depth 0.4]
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
from collections.abc import Callable
from pathlib import Path
from typing import Any

TREE = Path(__file__).resolve().parent.parent
FIGURES = ("playouts", "rebuilds", "iterations")


def mid_game_states(game: Any, players: int, depth: float, count: int = 8) -> list[Any]:
    """``count`` states of random games, each stopped ``depth`` of the way through."""
    states = []
    for seed in range(count):
        rng = random.Random(seed)
        state = game.new(players, seed)
        history = []
        while not state.is_over():
            joint = {seat: rng.choice(state.legal(seat)) for seat in state.to_act()}
            state.apply(joint)
            history.append(joint)
        state = game.new(players, seed)
        for joint in history[: int(len(history) * depth)]:
            state.apply(joint)
        states.append(state)
    return states


def play_out(state: Any, choice: Callable[[list[str]], str]) -> None:
    while not state.is_over():
        state.apply({seat: choice(state.legal(seat)) for seat in state.to_act()})
    state.outcome()


def rate(seconds: float, work: Callable[[int], None]) -> float:
    """Calls of ``work(i)`` per CPU second over about ``seconds``."""
    calls = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        work(calls)
        calls += 1
    return calls / (time.process_time() - start)


def burst(name: str, players: int, seconds: float, depth: float) -> dict[str, float | None]:
    """One burst of each figure for one game, in this process."""
    from arena.games import get_game

    game = get_game(name)
    states = mid_game_states(game, players, depth)
    rng = random.Random(1)
    views = [(state, i % players, state.view(i % players)) for i, state in enumerate(states)]

    def rebuild(i: int) -> Any:
        state, seat, view = views[i % len(views)]
        return game.from_view(view, seat, players, state.options, rng)

    figures: dict[str, float | None] = {
        "playouts": rate(seconds, lambda i: play_out(states[i % len(states)].clone(), rng.choice))
    }
    try:
        rebuild(0)
    except (NotImplementedError, AttributeError):  # an older tree has no Game.from_view
        return {**figures, "rebuilds": None, "iterations": None}
    figures["rebuilds"] = rate(seconds, rebuild)
    figures["iterations"] = rate(seconds, lambda i: play_out(rebuild(i), rng.choice))
    return figures


def child_burst(tree: Path, args: argparse.Namespace, name: str) -> dict[str, float | None]:
    """One burst run by a child process on the sources of ``tree``."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    command = [sys.executable, __file__, "--burst", name, "--players", str(args.players)]
    command += ["--seconds", str(args.seconds), "--depth", str(args.depth)]
    out = subprocess.run(command, env=env, check=True, stdout=subprocess.PIPE, text=True).stdout
    return json.loads(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="skull-king,skyjo", help="comma-separated games")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=1.0, help="length of one burst")
    parser.add_argument("--repeat", type=int, default=5, help="bursts per game and tree")
    parser.add_argument("--depth", type=float, default=0.4, help="how far into the game")
    parser.add_argument("--against", type=Path, help="another source tree to compare with")
    parser.add_argument("--burst", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.burst:
        print(json.dumps(burst(args.burst, args.players, args.seconds, args.depth)))
        return
    trees = [TREE] + ([args.against.resolve()] if args.against else [])
    names = [name.strip() for name in args.games.split(",") if name.strip()]
    runs: dict[tuple[Path, str], list[dict[str, float | None]]] = {}
    for _ in range(args.repeat):  # bursts alternate between games and trees
        for name in names:
            for tree in trees:
                runs.setdefault((tree, name), []).append(child_burst(tree, args, name))
    print(f"{args.players} players, from {args.depth:.0%} into the game, median of {args.repeat}")
    for name in names:
        for tree in trees:
            cells = []
            for figure in FIGURES:
                values = [run[figure] for run in runs[(tree, name)]]
                shown = "n/a" if None in values else f"{statistics.median(values):,.0f}"  # type: ignore[type-var]
                cells.append(f"{shown:>8} {figure}/s")
            print(f"{name:12} {'  '.join(cells)}   {tree}")


if __name__ == "__main__":
    main()
