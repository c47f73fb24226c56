"""Benchmark: finished games recorded per second into a results database file.

Each game is its own transaction (as the runner records them): a 4-player Skull-like game of
about 40 actions, with seats, an occasional fault, and the action list. The database is a real
file (WAL, synchronous=NORMAL). Target: at least 2,000 games/s.

    python bench/bench_store.py [--games 5000] [--db PATH]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent.parent))  # the tests package, for its helpers

from arena.keys.seeds import new_key  # noqa: E402
from arena.referee.record import GameRecord  # noqa: E402
from tests.tournaments import synthetic_record  # noqa: E402
from tournaments.plans.schedule import TournamentSpec, plan  # noqa: E402
from tournaments.store.facts import Store  # noqa: E402

BOTS = tuple(f"bot{i}" for i in range(8))


def tournament_for(games: int) -> TournamentSpec:
    """8 bots, tables of 4: 280 games a round; enough rounds for ``games``."""
    return TournamentSpec(
        game="skull", bots=BOTS, table_size=4, repetitions=max(1, -(-games // 280)), seed=1
    )


def planned_records(
    store: Store, games: int, *, seed: int = 1
) -> tuple[int, float, list[tuple[int, GameRecord]]]:
    """Plan a tournament and make synthetic records for its first ``games`` games.

    Returns (tournament id, seconds to plan, [(game id, record)])."""
    spec = tournament_for(games)
    started = time.perf_counter()
    key = new_key()
    tid = store.create_tournament(spec, plan(spec, key=key), {b: (b, "v1") for b in BOTS}, key=key)
    planned_s = time.perf_counter() - started
    rng = random.Random(seed)
    strengths = {b: i / 3 for i, b in enumerate(BOTS)}
    return (
        tid,
        planned_s,
        [
            (gid, synthetic_record(p, rng, strengths=strengths))
            for gid, p in store.pending_games(tid)[:games]
        ],
    )


def populate(
    store: Store, games: int, *, batch: int = 1000
) -> tuple[int, float, list[tuple[float, float]]]:
    """Record ``games`` synthetic games, one transaction each.

    Returns (tournament id, seconds to plan, [(wall s, cpu s)] per batch of ``batch`` games).
    """
    tid, planned_s, records = planned_records(store, games)
    timings = []
    for start in range(0, len(records), batch):
        wall, cpu = time.perf_counter(), time.process_time()
        for game_id, record in records[start : start + batch]:
            store.record_game(game_id, record)
        timings.append((time.perf_counter() - wall, time.process_time() - cpu))
    return tid, planned_s, timings


def arguments(games: int) -> argparse.Namespace:
    """``--games`` (default ``games``) and ``--db`` (default: a temporary file)."""
    parser = argparse.ArgumentParser(
        description=(sys.modules["__main__"].__doc__ or "").splitlines()[0]
    )
    parser.add_argument("--games", type=int, default=games)
    parser.add_argument("--db", default=None, help="database file (default: a temporary one)")
    return parser.parse_args()


def main() -> None:
    args = arguments(5000)
    with tempfile.TemporaryDirectory() as folder:
        path = args.db or os.path.join(folder, "bench.db")
        with Store.open(path) as store:
            tid, planned_s, timings = populate(store, args.games)
            total = store.tournament(tid).games_total
        size = sum(os.path.getsize(p) for p in Path(path).parent.glob(Path(path).name + "*"))
    wall = sum(w for w, _ in timings)
    cpu = sum(c for _, c in timings)
    per_batch = sorted(args.games / len(timings) / w for w, _ in timings)
    rate = args.games / wall
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"planned {total} games in {planned_s:.2f} s")
    print(
        f"recorded {args.games} games (4 players, ~40 actions), one transaction each: "
        f"{rate:,.0f} games/s overall ({1e6 / rate:.0f} us/game), batches of 1000: best "
        f"{per_batch[-1]:,.0f}/s, median {per_batch[len(per_batch) // 2]:,.0f}/s; "
        f"{'meets' if rate >= 2000 else 'MISSES'} the 2,000 games/s target"
    )
    print(
        f"CPU {1e6 * cpu / args.games:.0f} us/game (a bound of {args.games / cpu:,.0f} games/s "
        "on one idle core)"
    )
    print(f"database size {size / 1e6:.1f} MB ({size / args.games / 1000:.2f} kB per game)")


if __name__ == "__main__":
    main()
