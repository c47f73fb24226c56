"""Results do not depend on how many games run at once (``--jobs`` x ``--games-per-worker``)
nor on whether the bots take several turns per message (batches).

One tournament planned once (one key), played from copies of its database with (jobs 1, K 1),
(jobs 1, K 8) and (jobs 2, K 4) among bundled SDK bots that serve many games at once: the
stored games (deals, seatings, bot seeds' outcomes: every action and result) are identical.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.tournaments import game_rows
from tests.tournaments.test_runner import cli, copy_database, results

BOTS = "random,first,skull_odds,random,first"


def create(db: Path) -> int:
    out = cli(
        "tournament", "create", "--game", "skull", "--bots", BOTS, "--table-size", "4",
        "--rounds", "2", "--seed", "11", "--json", "--db", str(db),
    )  # fmt: skip
    return json.loads(out)["id"]


def deals(db: Path, tid: int) -> list[tuple]:
    return game_rows(db, tid, "plan_index, deal_seed, seating, status")


def test_results_are_the_same_whatever_jobs_and_games_per_worker(tmp_path: Path) -> None:
    base = tmp_path / "base.db"
    tid = create(base)
    stored = []
    for jobs, at_once in ((1, 1), (1, 8), (2, 4)):
        db = tmp_path / f"j{jobs}k{at_once}.db"
        copy_database(base, db)
        cli(
            "tournament", "run", str(tid), "--quiet", "--jobs", str(jobs),
            "--games-per-worker", str(at_once), "--db", str(db),
        )  # fmt: skip
        stored.append((deals(db, tid), results(db, tid)))
    first = stored[0]
    assert len(first[1]["games"]) == len(first[0]) > 8
    assert all(status == "done" for *_, status in first[0])
    for other in stored[1:]:
        assert other == first


def test_results_are_the_same_batched_and_unbatched(tmp_path: Path, monkeypatch) -> None:
    """The bundled SDK bots take batches by default; told not to (``ARENA_BOT_BATCH=0``, which
    the arena passes on to them), they store the very same games."""
    base = tmp_path / "base.db"
    tid = create(base)
    stored = []
    for batch in ("1", "0"):
        monkeypatch.setenv("ARENA_BOT_BATCH", batch)
        db = tmp_path / f"batch{batch}.db"
        copy_database(base, db)
        cli(
            "tournament", "run", str(tid), "--quiet", "--games-per-worker", "8", "--db", str(db),
        )  # fmt: skip
        stored.append((deals(db, tid), results(db, tid)))
    assert len(stored[0][1]["games"]) == len(stored[0][0]) > 8
    assert stored[1] == stored[0]
