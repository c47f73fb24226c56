"""Tournaments played in rounds, with real bots: ``arena tournament run`` killed with SIGKILL in
the middle of a later round, then run again, ends with the very tournament an uninterrupted run
of the same plan gives (the same rounds, tables, deals and games), nothing lost or doubled."""

from __future__ import annotations

import os
import signal
import time
import uuid
from pathlib import Path

import pytest

from tests.tournaments import cli, create, game_rows
from tests.tournaments.test_runner import (
    arena_run,
    copy_database,
    done_count,
    processes_with,
    results,
)


def plan_rows(db: Path, tid: int) -> list[tuple]:
    return game_rows(
        db, tid, "plan_index, round, table_index, rotation, deal_seed, seating, status"
    )


@pytest.mark.parametrize(
    ("settings", "total", "kill_after"),
    [
        # nine entrants, three tables a round: 9 games a round, killed in round 2 of 3
        (("--format", "swiss", "--rounds", "3"), 27, 11),
        # 9 -> 3: three tables then the final, two deals a table: killed in the final
        (("--advance", "1", "--repetitions", "2"), 24, 19),
    ],
)
def test_kill_mid_round_then_resume_equals_uninterrupted(
    tmp_path: Path, settings: tuple[str, ...], total: int, kill_after: int
) -> None:
    reference, killed = tmp_path / "reference.db", tmp_path / "killed.db"
    tid = create(
        reference,
        "random,first,random",
        "--copies", "3", "--table-size", "3", "--seed", "42", "--move-time", "20000",
        *settings,
    )[0]  # fmt: skip
    copy_database(reference, killed)
    out = cli("tournament", "run", str(tid), "--quiet", "--db", str(reference))
    assert f"{total}/{total} games played" in out
    marker = uuid.uuid4().hex
    proc = arena_run(killed, tid, marker, "--games-per-worker", "1")  # killed mid-round
    deadline = time.monotonic() + 120
    while done_count(killed, tid) < kill_after and time.monotonic() < deadline:
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(10)
    partial = done_count(killed, tid)
    assert kill_after <= partial < total, "killed in a later round"
    deadline = time.monotonic() + 10
    while processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_with(marker) == set()
    out = cli("tournament", "run", str(tid), "--quiet", "--db", str(killed))
    assert f"{total}/{total} games played" in out
    assert plan_rows(killed, tid) == plan_rows(reference, tid)
    assert results(killed, tid) == results(reference, tid)
    show = cli("tournament", "show", str(tid), "--db", str(killed))
    assert "standings after round 3" in show or "order      1." in show
