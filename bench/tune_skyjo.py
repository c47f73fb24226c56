"""Tuning: the Skyjo policy of ``ismcts`` (``bots._skyjo_playout``'s ``decide`` with other
``Weights``) against ``skyjo_greedy``, in process, by self-play at the benchmark's tables.

Each deal is played at a table of three (the policy, ``skyjo_greedy``, ``random``) in all six
seatings (every rotation of both seat orders, as ``bench_bots.py`` seats them), every seat
deciding from the state (the policy and greedy read only what their seat may see: both are
``_skyjo_playout.decide``, greedy with its own weights). It prints, per set of weights, the
policy's pairwise score against greedy (a game won when its total is lower, half on a tie) with
its 95 % interval, the Elo that score is worth, and the mean difference of totals; the baseline
of the same run is the policy with greedy's own weights (``GREEDY``), whose score is 0.5 up to
the luck of the seats' own random reveals. Without ``--set``, the weights measured are
``STRONGER``, ismcts's own.

    python bench/tune_skyjo.py --deals 1500 --jobs 2
    python bench/tune_skyjo.py --deals 700 --set end_margin=6 --set flip_bonus=1.5,play_the_lead=1
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import sys
import time
from dataclasses import fields, replace
from itertools import permutations
from pathlib import Path
from typing import Any

TREE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TREE))

from arena.games import get_game  # noqa: E402
from bots import _skyjo_playout  # noqa: E402
from bots._skyjo_playout import GREEDY, STRONGER, Weights  # noqa: E402

GAME = get_game("skyjo")
POLICY, HEURISTIC, RANDOM = 0, 1, 2
SEATINGS = tuple(permutations((POLICY, HEURISTIC, RANDOM)))


def play(deal: int, seating: tuple[int, ...], weights: Weights) -> list[int]:
    """One game; the totals of (policy, greedy, random)."""
    state = GAME.new(3, deal, {})
    rng = random.Random(deal * 7 + seating.index(POLICY))
    while not state.is_over():
        joint = {}
        for seat in state.to_act():
            who = seating[seat]
            legal = state.legal(seat)
            if state.phase == "reveal":
                column = rng.randrange(4)
                joint[seat] = f"reveal:0,{column}+1,{column}"
            elif who == RANDOM:
                joint[seat] = rng.choice(legal)
            elif who == HEURISTIC:
                joint[seat] = _skyjo_playout.decide(state, seat)
            else:
                joint[seat] = _skyjo_playout.decide(state, seat, weights)
        state.apply(joint)
    return [state.totals[seating.index(who)] for who in (POLICY, HEURISTIC, RANDOM)]


def run_deals(job: tuple[Weights, range]) -> list[list[int]]:
    weights, deals = job
    return [play(deal, seating, weights) for deal in deals for seating in SEATINGS]


def summary(games: list[list[int]]) -> dict[str, float]:
    """The policy's pairwise score against greedy, its interval and Elo; mean difference."""
    scores = [1.0 if p < g else 0.5 if p == g else 0.0 for p, g, _ in games]
    n = len(scores)
    mean = sum(scores) / n
    spread = math.sqrt(sum((s - mean) ** 2 for s in scores) / max(1, n - 1) / n)

    def elo(p: float) -> float:
        p = min(max(p, 1e-3), 1 - 1e-3)
        return 400 * math.log10(p / (1 - p))

    return {
        "games": n,
        "score": mean,
        "low": mean - 1.96 * spread,
        "high": mean + 1.96 * spread,
        "elo": elo(mean),
        "elo_low": elo(mean - 1.96 * spread),
        "elo_high": elo(mean + 1.96 * spread),
        "diff": sum(p - g for p, g, _ in games) / n,
        "vs_random": sum(1.0 if p < r else 0.0 for p, _, r in games) / n,
    }


def parse_set(text: str) -> Weights:
    """``NAME=V,...`` over greedy's weights (a usage error for an unknown name or value)."""
    names = {f.name for f in fields(Weights)}
    values: dict[str, Any] = {}
    for item in filter(None, text.split(",")):
        name, _, value = item.partition("=")
        if name not in names:
            raise SystemExit(f"unknown weight {name!r} (known: {', '.join(sorted(names))})")
        try:
            number = float(value)
        except ValueError:
            raise SystemExit(f"{name}: not a number: {value!r}") from None
        values[name] = bool(number) if name == "play_the_lead" else number
    return replace(GREEDY, **values)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--deals", type=int, default=100, help="deals per parameter set")
    parser.add_argument("--first-deal", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=V,...",
        help="weights to measure, over greedy's (repeatable); STRONGER's otherwise",
    )
    parser.add_argument("--no-baseline", action="store_true", help="skip greedy's own weights")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.deals < 1 or args.jobs < 1:
        parser.error("--deals and --jobs must be at least 1")
    sets = [("greedy's weights", GREEDY)] if not args.no_baseline else []
    sets += [(text, parse_set(text)) for text in args.set] or [("STRONGER", STRONGER)]
    deals = range(args.first_deal, args.first_deal + args.deals)
    chunks = [deals[i :: max(1, args.jobs * 4)] for i in range(max(1, args.jobs * 4))]
    results = []
    with multiprocessing.Pool(args.jobs) as pool:
        for label, params in sets:
            started = time.monotonic()
            games = [g for part in pool.map(run_deals, [(params, c) for c in chunks]) for g in part]
            row = {"set": label, **summary(games), "seconds": time.monotonic() - started}
            results.append(row)
            if not args.json:
                print(
                    f"{label:40} {row['games']:5d} games  score {row['score']:.3f} "
                    f"[{row['low']:.3f}, {row['high']:.3f}]  Elo {row['elo']:+5.0f} "
                    f"[{row['elo_low']:+.0f}, {row['elo_high']:+.0f}]  diff {row['diff']:+6.2f}  "
                    f"vs random {row['vs_random']:.3f}  {row['seconds']:.0f} s",
                    flush=True,
                )
    if args.json:
        print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
