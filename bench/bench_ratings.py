"""Benchmark: ratings from 100,000 stored games (8 bots, 4 players a game) in a database file.

The games are written first (many per transaction, not timed as play would be), the database
is closed and reopened, then timed:

- batch: read every finished game back, count pairwise results, fit the batch
  maximum-likelihood ratings with intervals and LOS (target: under 5 s in all);
- rebuild: ``Results.rebuild_ratings``, which also runs incremental Elo in plan order and
  rewrites the ratings and the rating history (4 rows a game).

    python bench/bench_ratings.py [--games 100000] [--db PATH]
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_store import arguments, planned_records, tournament_for  # noqa: E402
from tournaments.ratings import PairCounts, batch_ratings  # noqa: E402
from tournaments.store.facts import Store  # noqa: E402

CHUNK = 10_000


def fill(path: str, games: int) -> int:
    """A tournament with ``games`` finished synthetic games; returns its id."""
    with Store.open(path) as store:
        tid, _, records = planned_records(store, games, seed=7)
        for start in range(0, len(records), CHUNK):
            store.record_games(records[start : start + CHUNK])
    return tid


def main() -> None:
    args = arguments(100_000)
    with tempfile.TemporaryDirectory() as folder:
        path = args.db or os.path.join(folder, "bench.db")
        started = time.perf_counter()
        tid = fill(path, args.games)
        print(
            f"stored {args.games:,} games in {time.perf_counter() - started:.1f} s "
            f"({os.path.getsize(path) / 1e6:.0f} MB)"
        )
        with Store.open(path) as store:
            t0 = time.perf_counter()
            results = store.results.games(tid)
            t1 = time.perf_counter()
            counts = PairCounts(tournament_for(args.games).entrants)
            counts.add_results(results)
            t2 = time.perf_counter()
            batch = batch_ratings(counts)
            t3 = time.perf_counter()
            rebuilt = store.results.rebuild_ratings(tid)
            t4 = time.perf_counter()
    total = t3 - t0
    print(
        f"batch ratings of {len(results):,} games: read {t1 - t0:.2f} s + count "
        f"{t2 - t1:.2f} s + fit {t3 - t2:.3f} s ({batch.iterations} Newton steps) = "
        f"{total:.2f} s; {'meets' if total < 5 else 'MISSES'} the 5 s target"
    )
    print(
        f"full rebuild (read, incremental Elo, batch, write {len(rebuilt.elo.history):,} "
        f"history rows): {t4 - t3:.2f} s"
    )
    best = batch.ranked()[0]
    print(f"top: {best.entrant} {best.rating:.0f} [{best.lo:.0f}, {best.hi:.0f}]")


if __name__ == "__main__":
    main()
