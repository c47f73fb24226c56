"""Benchmark: how well each tournament format ranks a field, per game played (issue 37 §4).

    python bench/bench_formats.py                  # synthetic players, many formats and sizes
    python bench/bench_formats.py --real           # bundled bots playing Skull, a small check
    python bench/bench_formats.py --create         # creating a 50-bot balanced plan
    python bench/bench_formats.py --designs        # balanced plans of known designs

**Synthetic** (the default): ``--bots`` players of known strength (true Elo evenly spaced from
1250 to 1750, as ``bench/bench_ladder.py --simulate``: ``random`` to ``ismcts`` in Skull), games
drawn from the Plackett-Luce model of those strengths (the seat and the deal play no part: every
format plays every table in all its rotations anyway). Every format is played by the arena's
own code: the tables of a round robin, of a balanced plan (``tournaments.plans.balanced``),
Swiss rounds and knockouts round by round from the results (``tournaments.plans.swiss``,
``tournaments.plans.knockout``), and a ladder's matchmaking and OpenSkill ratings (as
``bench_ladder.py`` simulates it). Each ranks the field as its page does first: round robin and
balanced by the batch Elo fit (``tournaments.ratings``); Swiss by its standings, knockout by its
final order, each also by the batch Elo fit of its games; the ladder by its leaderboard (mu - 3
sigma). For each format and number of games: how often the strongest player is ranked first,
and the mean Kendall tau between the ranking and the true order (1: the same order, 0: no
better than chance), over ``--trials`` fields (each with its own seed). The baseline is the
round robin of the same field, where it fits (27 players at tables of three: 8,775 games a
repetition; 50 at tables of four make 921,200, out of reach).

**Real** (``--real``): nine bundled bots in Skull at tables of three, three ``skull_odds``
(1513 Elo in ``docs/bots.md``) and six ``random`` (1236), played by the arena end to end
(``tournaments.service``: create, run with ``--jobs 2``) in each format: how often a
``skull_odds`` is ranked first, Kendall's tau-b of the ranking against the two strength classes
(0.707 when the three are the first three: the classes tie within), and the share of the 18
(``skull_odds``, ``random``) pairs ranked the right way round, per format, over
``--real-trials`` tournaments each.

**Create** (``--create``): ``arena tournament create`` of 50 bots at tables of four, 50 tables
each (the issue's case: 2,500 games, 200 a bot), against the same command planning a four-bot
round robin (its own cost: Python, imports, the database), alternated ``--repeat`` times; median
wall and CPU seconds, with the load.
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_ladder import SimLadder, pl_places  # noqa: E402
from tournaments.ladder.matchmaking import MatchParams  # noqa: E402
from tournaments.plans import knockout, swiss  # noqa: E402
from tournaments.plans.balanced import balance_of, balanced_tables  # noqa: E402
from tournaments.plans.rounds import PlayedRound, RoundGame, RoundPlan  # noqa: E402
from tournaments.ratings import PairCounts, batch_ratings  # noqa: E402
from tournaments.store.ladder_values import LadderSettings  # noqa: E402

Order = list[int]


@dataclass(frozen=True)
class Outcome:
    """One format played once: its rankings (each best first) and its games."""

    rankings: dict[str, Order]
    games: int


class Field:
    """``n`` synthetic players, 0 the weakest, with their true Elo and a random source."""

    def __init__(self, n: int, rng: random.Random) -> None:
        self.n = n
        self.elo = [1250 + 500 * i / (n - 1) for i in range(n)]
        self.rng = rng
        self.counts = PairCounts([str(i) for i in range(n)])
        self.games = 0

    def play(self, table: Sequence[int], deals: int) -> list[tuple[tuple[int, ...], list[int]]]:
        """A table's games: every rotation of each of its deals, counted for the Elo fit."""
        out = []
        for _ in range(deals):
            for r in range(len(table)):
                seating = tuple(table[r:]) + tuple(table[:r])
                places = pl_places(self.rng, seating, self.elo)
                self.counts.add_game([str(p) for p in seating], places)
                self.games += 1
                out.append((seating, places))
        return out

    def by_elo(self) -> Order:
        """The players by the batch Elo fit of every game played, best first."""
        return [int(r.entrant) for r in batch_ratings(self.counts).ranked()]


def round_robin(field: Field, k: int) -> Outcome:
    for table in itertools.combinations(range(field.n), k):
        field.play(table, 1)
    return Outcome({"Elo": field.by_elo()}, field.games)


def balanced(field: Field, k: int, per_entrant: int) -> Outcome:
    names = [str(i) for i in range(field.n)]
    for table in balanced_tables(names, k, per_entrant, field.rng):
        field.play([int(name) for name in table], 1)
    return Outcome({"Elo": field.by_elo()}, field.games)


def _rounds(
    field: Field, deals: int, next_round: Callable[[list[PlayedRound]], RoundPlan | None]
) -> list[PlayedRound]:
    done: list[PlayedRound] = []
    while (plan := next_round(done)) is not None:
        games = []
        for number, table in enumerate(plan.tables):
            for seating, places in field.play([int(name) for name in table], deals):
                games.append(RoundGame(number, tuple(map(str, seating)), tuple(places)))
        done.append(PlayedRound(plan=plan, games=tuple(games), complete=True))
    return done


def swiss_rounds(field: Field, k: int, rounds: int, deals: int) -> Outcome:
    names = [str(i) for i in range(field.n)]
    draw = names[:]
    field.rng.shuffle(draw)
    done = _rounds(
        field,
        deals,
        lambda done: swiss.pair_round(names, k, draw, done) if len(done) < rounds else None,
    )
    order = [int(line.entrant) for line in swiss.standings(names, draw, done)]
    return Outcome({"standings": order, "Elo": field.by_elo()}, field.games)


def knockout_rounds(field: Field, k: int, advance: int, deals: int) -> Outcome:
    names = [str(i) for i in range(field.n)]
    draw = names[:]
    field.rng.shuffle(draw)
    done = _rounds(field, deals, lambda done: knockout.pair_round(names, k, advance, draw, done))
    order = [int(name) for name in knockout.final_order(names, k, advance, draw, done)]
    return Outcome({"final order": order, "Elo": field.by_elo()}, field.games)


def ladder(field: Field, k: int, games: int) -> Outcome:
    settings = LadderSettings(batch_games=max(4 * k * k, games // 4))
    # entry keys not by strength: matchmaking seats the lowest keys first, and a ladder that
    # has not yet seated everyone ranks the unseated last
    player = list(range(field.n))
    field.rng.shuffle(player)
    sim = SimLadder([field.elo[p] for p in player], settings, field.rng)
    for key in range(field.n):
        sim.enter(key)
    params = MatchParams(
        sizes=(k,),
        games=settings.batch_games,
        placement_games=settings.placement_games,
        max_entries=settings.max_batch_entries,
    )
    while sim.played < games:
        for table in sim.tables(params):
            sim.play(table)
            if sim.played >= games:
                break
    order = sorted(range(field.n), key=lambda e: (-sim.ratings.skill(e).conservative, e))
    return Outcome({"leaderboard": [player[key] for key in order]}, sim.played)


def kendall_tau(order: Sequence[int], strength: Sequence[float]) -> float:
    """Kendall's tau-b of a ranking (best first) against true strengths (ties: equal)."""
    rank = {player: -i for i, player in enumerate(order)}
    concordant = discordant = tied = 0
    for a, b in itertools.combinations(order, 2):
        truth = strength[a] - strength[b]
        if truth == 0:
            tied += 1
        elif (truth > 0) == (rank[a] > rank[b]):
            concordant += 1
        else:
            discordant += 1
    pairs = concordant + discordant + tied
    return (concordant - discordant) / math.sqrt(pairs * (concordant + discordant))


def formats(n: int, k: int, scale: int) -> list[tuple[str, Callable[[Field], Outcome]]]:
    """The formats played on a field of ``n`` at tables of ``k``, at about ``scale`` times
    ``n`` tables' worth of games (balanced: ``scale`` tables each)."""
    advance = {3: 1, 4: 2}[k]
    sizes = knockout.field_sizes(n, k, advance)
    knockout_tables = sum(size // k for size in sizes)
    deals = max(1, round(scale * n / k / knockout_tables))
    rounds = max(1, scale)
    target = scale * n  # seats: each seat of a table is k games
    return [
        (f"balanced, {scale} tables each", lambda f: balanced(f, k, scale)),
        (f"Swiss, {rounds} rounds", lambda f: swiss_rounds(f, k, rounds, 1)),
        (
            f"knockout, {advance} on, {deals} deal(s) a table",
            lambda f: knockout_rounds(f, k, advance, deals),
        ),
        ("ladder", lambda f: ladder(f, k, target)),
    ]


def synthetic(fields: Sequence[tuple[int, int]], scales: Sequence[int], trials: int) -> None:
    for n, k in fields:
        print(
            f"\n{n} players (true Elo 1250-1750), tables of {k}, {trials} fields each: "
            "strongest ranked first (%), mean Kendall tau with the true order"
        )
        print(f"  {'format':42s} {'ranked by':12s} {'games':>7s} {'first':>6s} {'tau':>6s}")
        cells: list[tuple[str, Callable[[Field], Outcome]]] = []
        if math.comb(n, k) * k <= 20_000:
            cells.append(("round robin, 1 repetition", lambda f, k=k: round_robin(f, k)))
        for scale in scales:
            cells += formats(n, k, scale)
        for title, play in cells:
            started = time.process_time()
            results: dict[str, list[tuple[bool, float]]] = {}
            games = []
            for trial in range(trials):
                field = Field(n, random.Random(trial * 7919 + n))
                outcome = play(field)
                games.append(outcome.games)
                for how, order in outcome.rankings.items():
                    results.setdefault(how, []).append(
                        (order[0] == n - 1, kendall_tau(order, field.elo))
                    )
            for how, found in results.items():
                first = 100 * sum(f for f, _ in found) / len(found)
                tau = statistics.fmean(t for _, t in found)
                print(
                    f"  {title:42s} {how:12s} {statistics.median(games):7.0f} "
                    f"{first:6.0f} {tau:6.3f}"
                )
            print(f"  {'':42s} ({time.process_time() - started:.0f} s CPU)", file=sys.stderr)


# -- real bots ---------------------------------------------------------------------------------


def real(trials: int, jobs: int) -> None:
    from tournaments import service
    from tournaments.plans.schedule import TournamentKind
    from tournaments.rounds import format_view
    from tournaments.store.facts import Store

    bots = ["skull_odds"] * 3 + ["random"] * 6
    cells = [
        ("round robin", TournamentKind.ROUND_ROBIN, {}),
        ("balanced, 4 tables each", TournamentKind.BALANCED, {"per_entrant": 4}),
        ("Swiss, 4 rounds", TournamentKind.SWISS, {"rounds": 4}),
        ("knockout, 1 on, 3 deals a table", TournamentKind.KNOCKOUT, {"advance": 1}),
    ]
    print(
        f"\nSkull, tables of three: 3 skull_odds and 6 random, played by the arena (--jobs "
        f"{jobs}), {trials} tournament(s) a format: a skull_odds first, mean tau-b against the "
        "two classes (at most 0.707), (skull_odds, random) pairs the right way round"
    )
    for title, kind, settings in cells:
        first: list[bool] = []
        taus: list[float] = []
        above: list[float] = []
        games: list[int] = []
        elapsed = 0.0
        for trial in range(trials):
            with (
                tempfile.TemporaryDirectory() as folder,
                Store.open(Path(folder) / "r.db") as store,
            ):
                repetitions = 3 if kind is TournamentKind.KNOCKOUT else 1
                created = service.create_tournament(
                    store,
                    game_name="skull",
                    bots=bots,
                    table_size=3,
                    repetitions=repetitions,
                    seed=trial,
                    options={},
                    move_ms=5000,
                    kind=kind,
                    **settings,
                )
                started = time.perf_counter()
                summary = service.run_tournament(
                    store, service.prepare_run(store, created.tid, jobs=jobs)
                )
                elapsed += time.perf_counter() - started
                info = store.tournament(created.tid)
                view = format_view(store, info)
                if view is not None and view.standings:
                    order = [line.entrant for line in view.standings[-1]]
                elif view is not None and view.order:
                    order = list(view.order)
                else:
                    order = [
                        r.entrant for r in store.results.compute_ratings(created.tid).batch.ranked()
                    ]
                strong = {e.name: float(e.bot == "skull_odds") for e in info.entrants}
                first.append(strong[order[0]] == 1.0)
                taus.append(kendall_tau(range(len(order)), [strong[name] for name in order]))
                above.append(_above(order, strong))
                games.append(summary.done)
        print(
            f"  {title:34s} games {statistics.median(games):4.0f}  first "
            f"{100 * sum(first) / len(first):3.0f}%  tau-b {statistics.fmean(taus):5.3f}  "
            f"skull_odds above random {100 * statistics.fmean(above):3.0f}%  "
            f"({elapsed / trials:.0f} s a tournament)"
        )


def _above(order: Sequence[str], strong: dict[str, float]) -> float:
    """The share of (strong, weak) pairs that ``order`` ranks the right way round."""
    rank = {name: i for i, name in enumerate(order)}
    pairs = [(a, b) for a in order for b in order if strong[a] > strong[b]]
    return sum(rank[a] < rank[b] for a, b in pairs) / len(pairs)


# -- creating a large field ---------------------------------------------------------------------


def create_time(repeat: int) -> None:
    """``arena tournament create`` of 50 bots at tables of four, 50 tables each (2,500 games),
    against the same command planning a four-bot round robin (the command's own cost: starting
    Python, the imports, opening the database), alternated; wall and CPU seconds."""
    import os
    import subprocess

    big = ["--copies", "25", "--table-size", "4", "--tables-per-entrant", "50"]
    small = ["--copies", "2", "--table-size", "4"]
    figures: dict[str, list[tuple[float, float]]] = {"balanced, 50 bots": [], "baseline": []}
    for number in range(2 * repeat):
        title, extra = (("balanced, 50 bots", big), ("baseline", small))[number % 2]
        with tempfile.TemporaryDirectory() as folder:
            before = os.times()
            started = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "arena", "tournament", "create", "--game", "skull",
                 "--bots", "random,first", *extra, "--db", f"{folder}/c.db"],
                check=True,
                stdout=subprocess.DEVNULL,
            )  # fmt: skip
            after = os.times()
            cpu = after.children_user + after.children_system
            cpu -= before.children_user + before.children_system
            figures[title].append((time.perf_counter() - started, cpu))
    print(
        f"arena tournament create, {repeat} times each, alternated (load {os.getloadavg()[0]:.1f})"
        ": median wall s (CPU s)"
    )
    for title, found in figures.items():
        wall = statistics.median(w for w, _ in found)
        cpu = statistics.median(c for _, c in found)
        print(f"  {title:18s} {wall:6.2f} ({cpu:.2f})")


# -- balanced designs ----------------------------------------------------------------------------

#: (entrants, table size, tables each, what the exact design is).
DESIGNS = [
    (7, 3, 3, "Fano plane"),
    (9, 3, 4, "affine plane of order 3"),
    (13, 4, 4, "projective plane of order 3"),
    (16, 4, 5, "affine plane of order 4"),
    (21, 5, 5, "projective plane of order 4"),
    (25, 5, 6, "affine plane of order 5"),
    (15, 3, 7, "Steiner triple system"),
    (19, 3, 9, "Steiner triple system"),
    (27, 3, 13, "Steiner triple system"),
    (20, 4, 6, "a packing: pairs meet at most once"),
    (30, 3, 10, "pairs meet 0 or 1 times"),
    (50, 4, 50, "pairs meet 3 or 4 times"),
    (40, 6, 20, "pairs meet 2 or 3 times"),
]


def designs(seeds: int) -> None:
    """How often ``balanced_tables`` reaches the most even plan, over ``seeds`` seeds."""
    print(f"balanced plans, {seeds} seeds each: the most even plan reached, CPU s per plan")
    for n, k, each, what in DESIGNS:
        names = [str(i) for i in range(n)]
        reached, started = 0, time.process_time()
        for seed in range(seeds):
            balance = balance_of(names, balanced_tables(names, k, each, random.Random(seed)))
            reached += balance.best_possible
        cpu = (time.process_time() - started) / seeds
        print(
            f"  {n:3d} entrants, tables of {k}, {each:2d} each ({what}): "
            f"{reached}/{seeds}, {cpu:.2f} s"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=40)
    parser.add_argument("--scales", default="2,6,18", help="tables per player of each row")
    parser.add_argument("--fields", default="27x3,50x4", help="players x table size")
    parser.add_argument("--real", action="store_true")
    parser.add_argument("--real-trials", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--create", action="store_true", help="time creating 50 bots' plan")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--designs", action="store_true", help="balanced plans of known designs")
    args = parser.parse_args()
    if args.designs:
        designs(20)
        return
    if args.create:
        create_time(args.repeat)
        return
    if args.real:
        real(args.real_trials, args.jobs)
        return
    fields = [tuple(int(x) for x in f.split("x")) for f in args.fields.split(",")]
    scales = [int(s) for s in args.scales.split(",")]
    synthetic(fields, scales, args.trials)  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
