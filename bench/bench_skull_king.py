"""Benchmark: decisions per second of 4-player Skull King random playouts, against OpenSpiel.

Each decision builds the acting seat's view, takes its legal actions, picks one at random and
applies it (a bidding step is one decision per seat: every seat's view and legal actions are
built, then the joint bids are applied). The same figure is measured in the same run for
OpenSpiel's C++ ``oh_hell`` (4 players) driven from Python, taking the acting player's
information-state string and legal actions at each decision (chance nodes are applied too but
not counted as decisions). ``open_spiel`` is not a project dependency: install it with
``pip install open_spiel`` for the comparison; without it only our figure is printed.

Times are CPU seconds of this process (``time.process_time``), and the two engines run in
alternating bursts, so load from other processes skews neither side; the medians are compared.

    python bench/bench_skull_king.py [--seconds 2] [--repeat 5] [--players 4] [--advanced]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.games import get_game  # noqa: E402


def timed(seconds: float, play_game: Callable[[int], int]) -> tuple[int, int, float]:
    """(games, decisions, CPU seconds) of ``play_game(index) -> decisions`` for ``seconds``."""
    games = decisions = 0
    start = time.process_time()
    deadline = start + seconds
    while time.process_time() < deadline:
        decisions += play_game(games)
        games += 1
    return games, decisions, time.process_time() - start


def bench_skull_king(seconds: float, players: int, advanced: bool) -> tuple[int, int, float]:
    """(games, decisions, elapsed) of random Skull King playouts for about ``seconds``."""
    game = get_game("skull-king")
    options = {"advanced": advanced}
    choice = random.Random(1).choice

    def play_game(index: int) -> int:
        state = game.new(players, index, options)
        decisions = 0
        while True:
            acting = state.to_act()  # empty once the game is over
            if not acting:
                return decisions
            joint = {}
            for seat in acting:
                state.view(seat)
                joint[seat] = choice(state.legal(seat))
            state.apply(joint)
            decisions += len(acting)

    return timed(seconds, play_game)


def bench_oh_hell(seconds: float, players: int) -> tuple[int, int, float] | None:
    """The same loop over OpenSpiel's oh_hell, or None if open_spiel is not importable."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("oh_hell", {"players": players})
    chance = int(pyspiel.PlayerId.CHANCE)
    choice = random.Random(1).choice

    def play_game(index: int) -> int:
        state = game.new_initial_state()
        decisions = 0
        while True:
            player = state.current_player()  # also tells chance nodes and the end apart
            if player < 0:
                if player != chance:
                    return decisions
                state.apply_action(choice(state.chance_outcomes())[0])
                continue
            state.information_state_string(player)
            state.apply_action(choice(state.legal_actions(player)))
            decisions += 1

    return timed(seconds, play_game)


def rate(result: tuple[int, int, float]) -> float:
    return result[1] / result[2]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per burst")
    parser.add_argument("--repeat", type=int, default=5, help="alternating bursts per engine")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--advanced", action="store_true", help="Skull King with the 74 cards")
    args = parser.parse_args(argv)

    ours: list[float] = []
    theirs: list[float] = []
    for _ in range(args.repeat):
        ours.append(rate(bench_skull_king(args.seconds, args.players, args.advanced)))
        spiel = bench_oh_hell(args.seconds, args.players)
        if spiel is not None:
            theirs.append(rate(spiel))
    mine = statistics.median(ours)
    print(
        f"skull-king ({args.players} players{', advanced' if args.advanced else ''}, "
        f"in-process view+legal+apply): {mine:,.0f} decisions/s "
        f"(median of {len(ours)} bursts of {args.seconds:g} CPU s: "
        f"{', '.join(f'{r:,.0f}' for r in ours)})"
    )
    if not theirs:
        print(
            "NOTE: open_spiel is not importable, so there is no oh_hell figure to compare "
            "with (pip install open_spiel; it is not a project dependency)"
        )
        return 0
    other = statistics.median(theirs)
    print(
        f"open_spiel oh_hell ({args.players} players, C++ driven from Python, "
        f"information_state_string+legal_actions+apply_action): {other:,.0f} decisions/s "
        f"(median of {len(theirs)} bursts: {', '.join(f'{r:,.0f}' for r in theirs)})"
    )
    verdict = "meets" if mine >= other else "misses"
    print(f"ratio skull-king / oh_hell: {mine / other:.2f} ({verdict} the target of >= 1.00)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
