"""Benchmark: a standing ladder's cost and how fast it learns.

    python bench/bench_ladder.py                 # matchmaking + rating update per game
    python bench/bench_ladder.py --simulate      # games until a new bot's rank is stable
    python bench/bench_ladder.py --throughput    # games/s: a ladder vs a tournament (real bots)

**Cost** (the default): a ladder of 1,000 bots in a database file. Each batch is planned
(``service.plan_next``: reading the skills and who met whom, matchmaking, writing the batch)
and, once its games are recorded (synthetic records, not timed: that is the runner's part),
rated (``rating.fold_ready``: reading the games, OpenSkill updates, writing skills, history
and suspensions). The figure is their time per game, against the target of 1 ms and, as
baseline, ``openskill``'s own ``rate`` of one game of the same tables (the floor of any
update).

**Learning** (``--simulate``): 20 variants of a bundled bot whose true strengths span what
``bench/bench_bots.py`` measured from ``random`` to ``ismcts`` (Elo 1250 to 1750, games drawn
from the Plackett-Luce model of those strengths, tables of four). Nineteen play until their
ratings settle; then one more enters. The figure is how many games the newcomer plays (and
how many the ladder plays) until its place on the leaderboard (mu - 3 sigma) is within one
of its true place and stays so for its next ``--window`` games; the baseline is a round
robin of the same bots rated the same way, whose tables cycle through every 4-subset
instead of being chosen. Median and quartiles
over ``--trials`` newcomers (each a random variant, with its own seed).

**Throughput** (``--throughput``): real bundled bots playing Skull at tables of four, with
``--jobs 2``: a ladder played to N games against a round robin of the same bots of about N
games, in alternation (which goes first alternates too); games per second of each, and the
median of the rounds' ratios.
"""

from __future__ import annotations

import argparse
import functools
import math
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.ladder.conftest import register_unchecked  # noqa: E402
from tests.tournaments import synthetic_record  # noqa: E402
from tournaments.ladder import service  # noqa: E402
from tournaments.ladder.matchmaking import Candidate, MatchParams, pair, plan_batch  # noqa: E402
from tournaments.ladder.rating import Ratings, fold_ready  # noqa: E402
from tournaments.ratings.skill import model  # noqa: E402
from tournaments.store.facts import Store  # noqa: E402
from tournaments.store.ladder_values import (  # noqa: E402
    Entry,
    EntryStatus,
    LadderGame,
    LadderSettings,
)
from tournaments.store.ladders import LadderStore  # noqa: E402

TARGET_US = 1000.0


# -- cost -----------------------------------------------------------------------------------------


def cost(bots: int, batches: int, warm: int) -> None:
    rng = random.Random(1)
    with tempfile.TemporaryDirectory() as folder, Store.open(Path(folder) / "b.db") as store:
        service.create_ladder(
            store,
            name="big",
            game_name="skull",
            table_sizes="3-5",
            options={},
            move_ms=1000,
            settings=LadderSettings(fault_limit=20),
        )
        names = [f"bot{i:04d}" for i in range(bots)]
        strengths = {name: rng.gauss(0, 1) for name in names}
        for name in names:
            register_unchecked(store, name, ["true"])
            service.submit(store, "big", name)
        lstore = LadderStore(store)
        ladder = lstore.ladder("big")
        spent = {"plan": [0.0, 0.0], "rate": [0.0, 0.0]}  # wall, CPU
        games = 0
        sizes: list[int] = []

        def timed(what: str, number: int, run: Callable[[], object]) -> object:
            wall, cpu = time.perf_counter(), time.process_time()
            found = run()
            if number >= warm:
                spent[what][0] += time.perf_counter() - wall
                spent[what][1] += time.process_time() - cpu
            return found

        for number in range(warm + batches):
            tid, _ = timed("plan", number, lambda: service.plan_next(store, ladder))
            assert tid is not None
            pending = store.pending_games(tid)
            store.record_games(
                (gid, synthetic_record(p, rng, strengths=strengths, fault_rate=0.0))
                for gid, p in pending
            )
            timed("rate", number, lambda: fold_ready(lstore, ladder))
            if number >= warm:
                games += len(pending)
                sizes += [len(p.seating) for _, p in pending]
    floor_wall, floor_cpu = _openskill_floor(sizes[:2000])
    print(
        f"{bots} bots, {batches} batches of about {games // batches} games after {warm} "
        f"warm-up batches (tables of 3-5); microseconds a game, wall (CPU):"
    )
    for what, title in (("plan", "matchmaking (plan a batch)"), ("rate", "rating update")):
        wall, cpu = (x / games * 1e6 for x in spent[what])
        print(f"  {title:28s} {wall:6.0f} ({cpu:4.0f})")
    wall, cpu = (sum(spent[w][i] for w in spent) / games * 1e6 for i in (0, 1))
    print(f"  {'together':28s} {wall:6.0f} ({cpu:4.0f})   target {TARGET_US:.0f}")
    print(f"  baseline, openskill's rate() of one game alone: {floor_wall:.0f} ({floor_cpu:.0f})")


def _openskill_floor(sizes: Sequence[int]) -> tuple[float, float]:
    """Wall and CPU microseconds of ``openskill``'s ``rate`` of one game of these sizes."""
    pl = model()
    wall, cpu = time.perf_counter(), time.process_time()
    for size in sizes:
        teams = [[pl.rating()] for _ in range(size)]
        pl.rate(teams, ranks=[float(i) for i in range(1, size + 1)])
    return (
        (time.perf_counter() - wall) / len(sizes) * 1e6,
        (time.process_time() - cpu) / len(sizes) * 1e6,
    )


# -- learning ----------------------------------------------------------------------------------


def pl_places(rng: random.Random, table: Sequence[int], elo: Sequence[float]) -> list[int]:
    """Places of a game drawn from the Plackett-Luce model of the true Elo strengths."""
    left = list(range(len(table)))
    places = [0] * len(table)
    for place in range(1, len(table) + 1):
        weights = [10 ** (elo[table[i]] / 400) for i in left]
        pick = rng.choices(left, weights)[0]
        places[pick] = place
        left.remove(pick)
    return places


class SimLadder:
    """A ladder in memory: the arena's matchmaking and rating code, games drawn at random."""

    def __init__(self, elo: Sequence[float], settings: LadderSettings, rng: random.Random) -> None:
        self.elo = elo
        self.settings = settings
        self.rng = rng
        self.entries: list[Entry] = []
        self.ratings = Ratings([], inherit=True)
        self.met: dict[tuple[int, int], int] = {}
        self.played = 0
        self.gid = 0

    def enter(self, key: int) -> None:
        self.entries.append(
            Entry(
                id=key, ladder_id=1, bot=f"v{key}", number=1, version="", runs_as=f"v{key}",
                participant=f"v{key}", uploaded=False, status=EntryStatus.ACTIVE, reason=None,
                previous_id=None, entered_at="",
            )
        )  # fmt: skip

    def tables(self, params: MatchParams) -> list[tuple[int, ...]]:
        candidates = [
            Candidate(
                key=e.id,
                group=e.participant,
                skill=self.ratings.skill(e.id),
                games=self.ratings.games.get(e.id, 0),
            )
            for e in self.entries
        ]
        tables = plan_batch(candidates, params, self.met)
        for table in tables:
            for a, b in ((a, b) for i, a in enumerate(table) for b in table[i + 1 :]):
                self.met[pair(a, b)] = self.met.get(pair(a, b), 0) + 1
        return tables

    def play(self, table: Sequence[int], after: Callable[[], None] | None = None) -> None:
        """A table in all its rotations, each game rated at once."""
        for rotation in range(len(table)):
            seating = tuple(table[rotation:]) + tuple(table[:rotation])
            self.gid += 1
            self.ratings.fold(
                LadderGame(self.gid, 0, seating, tuple(pl_places(self.rng, seating, self.elo)))
            )
            self.played += 1
            if after is not None:
                after()

    def rank_of(self, key: int) -> int:
        order = sorted(
            (e.id for e in self.entries),
            key=lambda e: (-self.ratings.skill(e).conservative, e),
        )
        return order.index(key) + 1


def _settle(sim: SimLadder, params: MatchParams, games: int) -> None:
    while sim.played < games:
        for table in sim.tables(params):
            sim.play(table)


def _until_stable(
    sim: SimLadder,
    newcomer: int,
    true_rank: int,
    tables: Callable[[], list],
    horizon: int,
    window: int,
) -> tuple[int, int]:
    """(newcomer's games, ladder's games) until its rank is within one of ``true_rank`` and
    stays so for its next ``window`` games; ``horizon`` of its games if that never happens
    before it has played ``horizon + window``."""
    start = sim.played
    marks: list[tuple[bool, int]] = []  # after each of its games: within one? ladder games

    def look() -> None:
        ok = abs(sim.rank_of(newcomer) - true_rank) <= 1
        marks.append((ok, sim.played - start))

    while sim.ratings.games.get(newcomer, 0) < horizon + window:
        for table in tables():
            sim.play(table, look if newcomer in table else None)
            if sim.ratings.games.get(newcomer, 0) >= horizon + window:
                break
    streak = 0
    for index, (ok, _) in enumerate(marks):
        streak = streak + 1 if ok else 0
        if streak == window:
            first = index - window + 1
            return first + 1, marks[first][1]
    return horizon, marks[-1][1] if marks else 0


def simulate(
    trials: int, horizon: int, window: int, batch_games: int, variants: int = 20, size: int = 4
) -> None:
    elo = [1250 + 500 * i / (variants - 1) for i in range(variants)]
    settings = LadderSettings(batch_games=batch_games)
    params = MatchParams(
        sizes=(size,),
        games=settings.batch_games,
        placement_games=settings.placement_games,
        max_entries=settings.max_batch_entries,
    )
    results: dict[str, list[tuple[int, int]]] = {"ladder": [], "round robin": []}
    for trial in range(trials):
        newcomer = random.Random(trial).randrange(variants)
        true_rank = variants - newcomer  # the strongest is first
        for kind in results:
            rng = random.Random(1000 + trial)
            sim = SimLadder(elo, settings, rng)
            for key in range(variants):
                if key != newcomer:
                    sim.enter(key)
            _settle(sim, params, 4000)
            sim.enter(newcomer)
            if kind == "ladder":
                tables = functools.partial(sim.tables, params)
            else:
                tables = functools.partial(
                    _round_robin, rng, _subsets(variants, size), settings.batch_games // size
                )
            results[kind].append(_until_stable(sim, newcomer, true_rank, tables, horizon, window))
    print(
        f"{variants} variants (true Elo 1250-1750), tables of {size}, batches of "
        f"{batch_games} games, {trials} newcomers; "
        f"games until the newcomer's place (mu - 3 sigma) is within one of its true place and "
        f"stays so for its next {window} games (cut at {horizon} of its games):"
    )
    for kind, found in results.items():
        mine = sorted(m for m, _ in found)
        total = sorted(t for _, t in found)
        print(
            f"  {kind:12s} newcomer's games: median {statistics.median(mine):5.0f} "
            f"(quartiles {_quartiles(mine)}); ladder games: median "
            f"{statistics.median(total):6.0f} (quartiles {_quartiles(total)})"
        )


def _round_robin(
    rng: random.Random, subsets: list[tuple[int, ...]], count: int
) -> list[tuple[int, ...]]:
    """The next ``count`` tables of a round robin: every ``k``-subset, in a shuffled order."""
    rng.shuffle(subsets)
    return subsets[: max(1, count)]


def _subsets(n: int, k: int) -> list[tuple[int, ...]]:
    import itertools

    return list(itertools.combinations(range(n), k))


def _quartiles(values: Sequence[int]) -> str:
    q = statistics.quantiles(values, n=4) if len(values) > 1 else [values[0]] * 3
    return f"{math.floor(q[0])}-{math.ceil(q[2])}"


# -- throughput ---------------------------------------------------------------------------------


def throughput(games: int, rounds: int, batch_games: int) -> None:
    import subprocess

    kinds = ["random", "first", "skull_odds", "random", "first", "skull_odds", "random", "first"]
    names = [f"{kind}_{i}" for i, kind in enumerate(kinds)]
    here = Path(__file__).resolve().parent.parent
    figures: dict[str, list[float]] = {"ladder": [], "tournament": []}

    def arena(db: Path, *args: str) -> None:
        subprocess.run(
            [sys.executable, "-m", "arena", *args, "--db", str(db)],
            check=True,
            cwd=here,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def register(db: Path) -> None:  # the same eight bots, each under a name of its own
        with Store.open(db) as store:
            for name, kind in zip(names, kinds):
                register_unchecked(store, name, [sys.executable, "-m", f"bots.{kind}"])

    repetitions = str(max(1, round(games / 280)))
    total = 0

    def tournament() -> float:
        nonlocal total
        with tempfile.TemporaryDirectory() as folder:
            db = Path(folder) / "t.db"
            register(db)
            arena(db, "tournament", "create", "--game", "skull", "--bots", ",".join(names),
                  "--table-size", "4", "--repetitions", repetitions)  # fmt: skip
            with Store.open(db) as store:
                total = store.tournament(1).games_total
            started = time.perf_counter()
            arena(db, "tournament", "run", "1", "--jobs", "2", "-q")
            return total / (time.perf_counter() - started)

    def ladder() -> float:
        with tempfile.TemporaryDirectory() as folder:
            db = Path(folder) / "l.db"
            register(db)
            arena(db, "ladder", "create", "sk", "--game", "skull", "--table-sizes", "4",
                  "--batch-games", str(batch_games))  # fmt: skip
            for name in names:
                arena(db, "ladder", "submit", "sk", name)
            started = time.perf_counter()
            arena(db, "ladder", "run", "sk", "--games", str(total), "--jobs", "2", "-q")
            with Store.open(db) as store:
                played = LadderStore(store).counts(1)[0]
            return played / (time.perf_counter() - started)

    for number in range(rounds):  # the tournament first, then the ladder first, in turn
        if number % 2 == 0:
            figures["tournament"].append(tournament())
            figures["ladder"].append(ladder())
        else:
            figures["ladder"].append(ladder())
            figures["tournament"].append(tournament())
    print(
        f"eight bots (random, first, skull_odds), Skull at tables of 4, --jobs 2, about "
        f"{total} games; ladder batches of {batch_games} games; games/s, each round:"
    )
    for kind, rates in figures.items():
        each = " ".join(f"{rate:.1f}" for rate in rates)
        print(f"  {kind:10s} {statistics.median(rates):6.1f} (median of {rounds}: {each})")
    ratios = [a / b for a, b in zip(figures["ladder"], figures["tournament"])]
    print(
        f"  ladder / tournament: {statistics.median(ratios):.2f} (median of the rounds' "
        f"ratios: {' '.join(f'{r:.2f}' for r in ratios)})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=1000)
    parser.add_argument("--batches", type=int, default=10)
    parser.add_argument("--warm", type=int, default=10)
    parser.add_argument("--simulate", action="store_true")
    parser.add_argument("--trials", type=int, default=15)
    parser.add_argument("--horizon", type=int, default=1500)
    parser.add_argument("--window", type=int, default=100)
    parser.add_argument("--throughput", action="store_true")
    parser.add_argument("--games", type=int, default=800)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batch-games", type=int, default=LadderSettings.batch_games)
    args = parser.parse_args()
    if args.simulate:
        simulate(args.trials, args.horizon, args.window, args.batch_games)
    elif args.throughput:
        throughput(args.games, args.rounds, args.batch_games)
    else:
        cost(args.bots, args.batches, args.warm)


if __name__ == "__main__":
    main()
