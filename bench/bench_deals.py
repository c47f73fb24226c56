"""Benchmark: what independent deals cost -- how many more games than duplicate deals the ratings
need for the same precision, per game, at tables of 3 and 4.

Under duplicate deals every seat rotation of a table plays one deal, so the luck of the deal
cancels out within the table; under independent deals (``--deals independent``) every game has
its own deal and the luck stays in the results. Both plans have the same tables, rotations and
seats (``tournaments.plans.schedule``), so the difference is the deals only.

**Precision** is measured the same way in both modes: the variance of the arena's own batch
ratings (``tournaments.ratings.batch_ratings``, what ``tournament show`` prints) by the
delete-one jackknife over the plan's units -- a table in all its rotations (one deal under
duplicate deals, ``k`` under independent deals: independent of each other either way) --
averaged over the entrants. A rating's variance falls as one over the games, so the games
independent deals need for the precision duplicate deals give are

    ratio = (variance_independent * games_independent) / (variance_duplicate * games_duplicate)

with a 95 % interval from the jackknife's own sampling error (each variance has a relative
standard error of about ``sqrt(2 / units)``).

The simulation first checks the method on a synthetic game whose deal decides much (a luck of
the deal per seat twice the play's own noise, ``LUCK``): there the ratio must be well above 1.

**Simulation** (the default): variants of each game's heuristic bot (``skull_odds``,
``skull_bank_odds``, ``skull_king_bidder``, ``skyjo_greedy``) of known order of strength play
the real rules engines in this process, in round robins planned by the arena (``plan``; each
seat's choices seeded from its bot seed, as the SDK does), about ``--units`` tables per mode,
table size and pool of bots (``POOLS``): ``noisy``, the heuristic playing a uniformly random
move instead with probability 0, 0.1, 0.25, 0.45 and 0.7; ``bundled``, the heuristic, the
heuristic weakened half the time, ``first`` (always the first legal action) and ``random``.

**Real processes** (``--arena``): one configuration played by real bot processes through
``arena tournament create --deals duplicate|independent`` and ``arena tournament run --jobs J``
(child processes, the modes alternated, ``--rounds`` tournaments of each): Skull King at tables
of 3 between the ``bundled`` pool (``skull_king_bidder``, the bidder weakened to a random move
half the time: a command bot in a temporary folder, ``first``, ``random``); the same ratio from
the stored games, the same four simulated in process beside it, and each mode's games per second
(independent deals play a batch of deals in one phase, not one phase a rotation).

    python bench/bench_deals.py [--games skull,skyjo] [--sizes 3,4] [--pools noisy,bundled]
        [--units 1500] [--json]
    python bench/bench_deals.py --arena [--units 1500] [--rounds 2] [--jobs 2]
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

TREE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TREE))

from arena.games import get_game  # noqa: E402
from arena.keys.seeds import new_key  # noqa: E402
from tournaments.plans.schedule import DealMode, TournamentSpec, plan  # noqa: E402
from tournaments.ratings import PairCounts, batch_ratings  # noqa: E402

GAMES = ("skull", "skull-bank", "skull-king", "skyjo")
#: Each game's heuristic bot (as ``bots.ismcts.HEURISTICS``; the arena never imports a bot, a
#: benchmark may).
HEURISTICS = {
    "skull": "bots.skull_odds",
    "skull-bank": "bots.skull_bank_odds",
    "skull-king": "bots.skull_king_bidder",
    "skyjo": "bots.skyjo_greedy",
}
#: The simulation's pools of bot variants, each of a known order of strength: how often a
#: variant plays a uniformly random move instead of the game's heuristic's (None: ``first``,
#: always the first legal action). ``noisy``: the heuristic weakened step by step (the spreads
#: of their ratings are about 350-500 Elo, Skyjo's 1,100), bots whose own random moves add
#: to the luck of the deal; ``bundled``: the heuristic, the heuristic weakened half the time,
#: ``first`` and ``random``, as ``--arena`` plays them (the heuristic and ``first`` play
#: deterministically, ``random`` only by chance).
POOLS: dict[str, dict[str, float | None]] = {
    "noisy": {"eps0": 0.0, "eps10": 0.1, "eps25": 0.25, "eps45": 0.45, "eps70": 0.7},
    "bundled": {"heuristic": 0.0, "weak50": 0.5, "first": None, "random": 1.0},
}
Z95 = 1.959963984540054

Policy = Callable[[dict[str, Any], list[str], random.Random], str]


# -- precision ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Precision:
    """One mode's games and units, the jackknife variance of the ratings (mean over entrants,
    Elo squared) and the ratings themselves."""

    games: int
    units: int
    variance: float
    ratings: dict[str, float]

    @property
    def per_game(self) -> float:
        """Variance times games: the variance one game's worth of results gives."""
        return self.variance * self.games


def precision(units: Sequence[Sequence[tuple[tuple[str, ...], tuple[int, ...]]]]) -> Precision:
    """The delete-one jackknife variance of the batch ratings over ``units`` (each a list of
    ``(seating, places)`` games, independent of the other units)."""
    counts = PairCounts()
    for unit in units:
        for seating, places in unit:
            counts.add_game(seating, places)
    full = {r.entrant: r.rating for r in batch_ratings(counts).ratings}
    left_out: list[dict[str, float]] = []
    for unit in units:
        for seating, places in unit:
            counts.add_game(seating, places, times=-1)
        left_out.append({r.entrant: r.rating for r in batch_ratings(counts).ratings})
        for seating, places in unit:
            counts.add_game(seating, places)
    n = len(units)
    variances = []
    for entrant in full:
        values = [ratings[entrant] for ratings in left_out]
        mean = statistics.fmean(values)
        variances.append((n - 1) / n * sum((v - mean) ** 2 for v in values))
    games = sum(len(unit) for unit in units)
    return Precision(games, n, statistics.fmean(variances), full)


@dataclass(frozen=True)
class Cost:
    """What independent deals cost in one configuration: the games ratio and its interval."""

    game: str
    table: int
    pool: str
    duplicate: Precision
    independent: Precision
    seconds: float = 0.0

    @property
    def ratio(self) -> float:
        return self.independent.per_game / self.duplicate.per_game

    @property
    def interval(self) -> tuple[float, float]:
        spread = math.sqrt(2 / (self.duplicate.units - 1) + 2 / (self.independent.units - 1))
        return self.ratio * math.exp(-Z95 * spread), self.ratio * math.exp(Z95 * spread)

    def row(self) -> list[str]:
        lo, hi = self.interval
        ratings = sorted(self.duplicate.ratings.values())
        return [
            self.game,
            str(self.table),
            self.pool,
            f"{self.duplicate.games:,}",
            f"{ratings[-1] - ratings[0]:.0f}",
            f"{math.sqrt(self.duplicate.per_game / 1000):.1f}",
            f"{math.sqrt(self.independent.per_game / 1000):.1f}",
            f"{self.ratio:.2f}",
            f"{lo:.2f}-{hi:.2f}",
        ]

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "table": self.table,
            "pool": self.pool,
            "ratio": round(self.ratio, 3),
            "interval": [round(x, 3) for x in self.interval],
            "duplicate": asdict(self.duplicate),
            "independent": asdict(self.independent),
            "seconds": round(self.seconds, 1),
        }


HEADERS = ["game", "table", "bots", "games/mode", "Elo spread", "SE dup", "SE ind", "ratio", "95 %"]


def table_text(costs: Sequence[Cost]) -> str:
    rows = [HEADERS, *(cost.row() for cost in costs)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(HEADERS))]
    lines = ["  ".join(cell.rjust(w) for cell, w in zip(row, widths)) for row in rows]
    return "\n".join([lines[0], "  ".join("-" * w for w in widths), *lines[1:]])


def units_of(results: Sequence[tuple[int, tuple[str, ...], tuple[int, ...]]], k: int) -> list:
    """Games ``(plan index, seating, places)`` grouped by table (plan index // k)."""
    grouped: dict[int, list[tuple[tuple[str, ...], tuple[int, ...]]]] = {}
    for index, seating, places in results:
        grouped.setdefault(index // k, []).append((seating, places))
    return [grouped[unit] for unit in sorted(grouped) if len(grouped[unit]) == k]


# -- simulation ---------------------------------------------------------------------------------


def policies(game: str, variants: dict[str, float | None]) -> dict[str, Policy]:
    act = importlib.import_module(HEURISTICS[game]).act

    def variant(eps: float | None) -> Policy:
        if eps is None:
            return lambda view, legal, rng: legal[0]
        if eps >= 1.0:
            return lambda view, legal, rng: rng.choice(legal)
        return lambda view, legal, rng: (
            rng.choice(legal) if rng.random() < eps else act(view, legal)
        )

    return {name: variant(eps) for name, eps in variants.items()}


def simulate(game_name: str, k: int, units: int, seed: int, pool: str) -> Cost:
    """About ``units`` tables of the ``pool``'s variants at tables of ``k`` in each mode,
    played in this process on the real rules."""
    variants = POOLS[pool]
    game = get_game(game_name)
    options = game.parse_options({})
    players = policies(game_name, variants)
    tables = math.comb(len(variants), k)
    repetitions = max(1, math.ceil(units / tables))
    started = time.process_time()
    found = {}
    for mode in DealMode:
        spec = TournamentSpec(
            game=game_name, bots=tuple(variants), table_size=k, repetitions=repetitions,
            seed=seed, deals=mode,
        )  # fmt: skip
        results = []
        for planned in plan(spec, game, key=new_key()):
            random.seed(planned.deal_seed)  # the heuristics draw from the module's random
            rngs = [random.Random(s) for s in planned.bot_seeds()]
            state = game.new(k, planned.deal_seed, options)
            while not state.is_over():
                state.apply(
                    {
                        seat: players[planned.seating[seat]](
                            state.view(seat), state.legal(seat), rngs[seat]
                        )
                        for seat in state.to_act()
                    }
                )
            results.append((planned.index, planned.seating, state.outcome().places))
        found[mode] = precision(units_of(results, k))
    return Cost(
        game_name,
        k,
        pool,
        found[DealMode.DUPLICATE],
        found[DealMode.INDEPENDENT],
        time.process_time() - started,
    )


#: The method's check: a synthetic game whose places come from a strength, the luck of the deal
#: (one draw per seat: the hand that seat is dealt) and the play's own noise (normal, these
#: standard deviations; five players 0.25 apart). Duplicate deals cancel the luck, so there the
#: ratio must come out well above 1 (about 2.3 at these figures; 1 with no luck at all).
LUCK, NOISE, GAP = 1.0, 0.5, 0.25


def synthetic(k: int, units: int, seed: int) -> Cost:
    """The method's check (``LUCK``) at tables of ``k``, about ``units`` tables a mode."""
    names = tuple(f"s{i}" for i in range(5))
    strength = {name: i * GAP for i, name in enumerate(names)}
    noise = random.Random(seed)
    found = {}
    for mode in DealMode:
        spec = TournamentSpec(
            game="synthetic", bots=names, table_size=k, seed=seed, deals=mode,
            repetitions=max(1, math.ceil(units / math.comb(len(names), k))),
        )  # fmt: skip
        results = []
        for planned in plan(spec, key=new_key()):
            hands = random.Random(planned.deal_seed)  # one deal, one draw per seat
            luck = [hands.gauss(0, LUCK) for _ in range(k)]
            play = [
                strength[entrant] + luck[seat] + noise.gauss(0, NOISE)
                for seat, entrant in enumerate(planned.seating)
            ]
            order = sorted(range(k), key=lambda seat: -play[seat])
            places = tuple(order.index(seat) + 1 for seat in range(k))
            results.append((planned.index, planned.seating, places))
        found[mode] = precision(units_of(results, k))
    return Cost("synthetic", k, "luck 2x", found[DealMode.DUPLICATE], found[DealMode.INDEPENDENT])


# -- real processes -----------------------------------------------------------------------------

WEAKENED = """
import sys
from protocol.sdk import Bot, run_bot
from bots.skull_king_bidder import act

EPS = float(sys.argv[1])


class Weakened(Bot):
    name = "weakened"

    def act(self, view, legal):
        return self.random.choice(legal) if self.random.random() < EPS else act(view, legal)


run_bot(Weakened)
"""


def arena(db: Path, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "arena", *args, "--db", str(db)],
        cwd=TREE,
        capture_output=True,
        text=True,
    )
    if done.returncode:
        raise SystemExit(f"arena {' '.join(args)} failed:\n{done.stderr}")
    return done.stdout


def stored_results(db: Path, tid: int) -> list[tuple[int, tuple[str, ...], tuple[int, ...]]]:
    from tournaments.store.facts import Store

    with Store.open(db) as store:
        return [(r.index, r.seating, r.places) for r in store.results.games(tid)]


def real(units: int, rounds: int, jobs: int) -> tuple[Cost, dict[str, list[float]]]:
    """Skull King at tables of 3 by real bot processes (the ``bundled`` pool: the heuristic is
    ``skull_king_bidder``), about ``units`` tables of each mode in ``rounds`` tournaments each
    (alternated); the cost and each mode's games per second, tournament by tournament."""
    from tests.ladder.conftest import register_unchecked
    from tournaments.store.facts import Store

    k = 3
    pool = POOLS["bundled"]
    bots = {name: HEURISTICS["skull-king"].rpartition(".")[2] if eps == 0 else name
            for name, eps in pool.items()}  # fmt: skip
    repetitions = max(1, math.ceil(units / rounds / math.comb(len(pool), k)))
    rates: dict[str, list[float]] = {mode.value: [] for mode in DealMode}
    units_of_mode: dict[str, list] = {mode.value: [] for mode in DealMode}
    # the database's folder is private to the arena: the bots' script lives in another
    with tempfile.TemporaryDirectory() as folder, tempfile.TemporaryDirectory() as scripts:
        Path(scripts).chmod(0o755)  # bots run as users of their own when the arena runs as root
        script = Path(scripts) / "weakened.py"
        script.write_text(WEAKENED)
        script.chmod(0o644)
        db = Path(folder) / "deals.db"
        with Store.open(db) as store:
            for name, eps in pool.items():
                if eps is not None and 0 < eps < 1:  # the weakened heuristic
                    argv = [sys.executable, str(script), str(eps)]
                    register_unchecked(store, name, argv, ["skull-king"])
        for number in range(rounds):
            modes = list(DealMode) if number % 2 == 0 else list(reversed(DealMode))
            for mode in modes:
                created = json.loads(
                    arena(db, "tournament", "create", "--game", "skull-king", "--bots",
                          ",".join(bots.values()), "--table-size", str(k),
                          "--repetitions", str(repetitions), "--deals", mode.value, "--json")
                )  # fmt: skip
                started = time.perf_counter()
                arena(db, "tournament", "run", str(created["id"]), "--jobs", str(jobs), "-q")
                rates[mode.value].append(created["games_total"] / (time.perf_counter() - started))
                names = {bot: name for name, bot in bots.items()}  # as the simulation names them
                found = [
                    (index, tuple(names[e] for e in seating), places)
                    for index, seating, places in stored_results(db, created["id"])
                ]
                units_of_mode[mode.value] += units_of(found, k)
                shown = json.loads(arena(db, "tournament", "show", str(created["id"]), "--json"))
                faults = {r["entrant"]: r["faults"] for r in shown["rankings"] if r["faults"]}
                if faults:
                    raise SystemExit(f"bots faulted, the figures would measure that: {faults}")
                print(
                    f"  round {number + 1}, {mode.value}: {created['games_total']} games, "
                    f"{rates[mode.value][-1]:.1f} games/s, load {load()}",
                    file=sys.stderr,
                    flush=True,
                )
    cost = Cost(
        "skull-king, processes",
        k,
        "bundled",
        precision(units_of_mode[DealMode.DUPLICATE.value]),
        precision(units_of_mode[DealMode.INDEPENDENT.value]),
    )
    return cost, rates


# -- main ---------------------------------------------------------------------------------------


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=",".join(GAMES), help="comma-separated games")
    parser.add_argument("--sizes", default="3,4", help="comma-separated table sizes")
    parser.add_argument("--pools", default=",".join(POOLS), help="comma-separated bot pools")
    parser.add_argument("--units", type=int, default=1500, help="tables per mode and size")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--arena", action="store_true", help="real bot processes instead")
    parser.add_argument("--rounds", type=int, default=2, help="--arena: tournaments per mode")
    parser.add_argument("--jobs", type=int, default=2, help="--arena: arena --jobs")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args()
    before = load()
    started = time.perf_counter()
    rates: dict[str, list[float]] = {}
    if args.arena:
        cost, rates = real(args.units, args.rounds, args.jobs)
        alike = simulate("skull-king", 3, args.units, args.seed, "bundled")
        costs = [cost, replace(alike, game="skull-king, in process")]
    else:
        costs = [synthetic(k, args.units, args.seed) for k in (3, 4)]  # the method's check
        for pool in args.pools.split(","):
            for name in args.games.split(","):
                for k in (int(size) for size in args.sizes.split(",")):
                    costs.append(simulate(name, k, args.units, args.seed, pool))
                    done = f"  {pool}, {name}, tables of {k}: {costs[-1].seconds:.0f} CPU s"
                    print(f"{done}, load {load()}", file=sys.stderr, flush=True)
    elapsed = time.perf_counter() - started
    if args.json:
        print(json.dumps({"costs": [c.to_dict() for c in costs], "games_per_s": rates}, indent=2))
        return
    what = (
        f"{', '.join(POOLS['bundled'])}: real bot processes (--jobs {args.jobs}, "
        f"{args.rounds} tournaments a mode) and the same in process"
        if args.arena
        else f"in process, about {args.units} tables a mode"
    )
    print(f"independent against duplicate deals ({what}); load average {before} -> {load()}, "
          f"{elapsed:.0f} s")  # fmt: skip
    print(table_text(costs))
    print(
        "ratio: games independent deals need for the ratings' precision of one game of "
        "duplicate deals; SE: a rating's standard error (Elo) per 1,000 games"
    )
    for mode, each in rates.items():
        text = " ".join(f"{rate:.1f}" for rate in each)
        print(f"{mode:12s} {statistics.median(each):6.1f} games/s (median of: {text})")


if __name__ == "__main__":
    main()
