"""A ladder killed with SIGKILL at any moment resumes with nothing lost or played twice.

``arena ladder run`` runs in its own session and is killed at several moments (while it
starts, plans, plays, rates); nothing of it may be left running. Running it again finishes
the batch it left, rates it and goes on. At the end every planned game is played exactly
once, every batch is rated once, and the skills are what the ``openskill`` package computes
on the stored games (and what a rebuild gives).
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

from tests.ladder.conftest import (
    RANDOM_BOT,
    cli,
    folder_bot,
    make_ladder,
    register_unchecked,
    replay_openskill,
)
from tests.tournaments.test_kill_anytime import assert_nothing_left
from tournaments.ladder import service
from tournaments.store.facts import Store
from tournaments.store.ladders import LadderStore

#: When each run is killed: as it starts (after 0.8 s), once this many games are recorded
#: (mid-batch), as the first batch's last game is recorded (rating and planning), mid-way
#: through a later batch, and through the batch after it (on the workers the run kept from
#: the one before); and with how many ``--jobs`` it runs.
MOMENTS = ((None, 1), (5, 1), (24, 2), (40, 2), (60, 2))
GAMES = 100
DONE = "SELECT COUNT(*) FROM games WHERE status = 'done'"


def start(db: Path, marker: str, jobs: int) -> subprocess.Popen:
    env = dict(os.environ, ARENA_TEST_MARKER=marker, ARENA_BOT_TEST_MARKER=marker)
    return subprocess.Popen(
        [sys.executable, "-m", "arena", "ladder", "run", "sk", "--games", str(GAMES), "-q"]
        + ["--jobs", str(jobs), "--sandbox", "off", "--db", str(db)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        env=env,
    )


def count(db: Path, sql: str) -> int:
    if not db.exists():
        return 0
    conn = sqlite3.connect(db)
    try:
        return int(conn.execute(sql).fetchone()[0])
    finally:
        conn.close()


def test_killed_at_any_moment_the_ladder_resumes_with_nothing_lost_or_doubled(
    tmp_path: Path, shared: Path
) -> None:
    db = tmp_path / "arena.db"
    bot = folder_bot(shared, "r2", source=RANDOM_BOT)
    with Store.open(db) as store:
        register_unchecked(store, "r2", [sys.executable, str(bot / "bot.py")])
    make_ladder(db, bots=("random", "first", "skull_odds", "r2"), batch_games=24)
    for moment, jobs in MOMENTS:
        marker = uuid.uuid4().hex
        proc = start(db, marker, jobs)
        if moment is None:
            time.sleep(0.8)
        else:
            deadline = time.monotonic() + 120
            while count(db, DONE) < moment and time.monotonic() < deadline:
                time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        assert_nothing_left(marker)
    cli("ladder", "run", "sk", "--games", str(GAMES), "-q", "--sandbox", "off", "--db", str(db))

    seats = count(db, "SELECT COUNT(*) FROM seats")
    assert count(db, "SELECT COUNT(*) FROM games WHERE status != 'done'") == 0
    assert count(db, "SELECT COUNT(*) FROM games") >= GAMES
    assert seats == 3 * count(db, "SELECT COUNT(*) FROM games")  # each game recorded once
    assert count(db, "SELECT COUNT(*) FROM ladder_batches WHERE rated = 0") == 0
    assert count(db, "SELECT COUNT(*) FROM ladder_history") == seats  # each game rated once
    with Store.open(db) as store:
        lstore = LadderStore(store)
        ladder = lstore.ladder("sk")
        stored = {e: (s.mu, s.sigma, g) for e, (s, g) in lstore.skills(ladder.id).items()}
        service.rebuild_skills(store, "sk")
        rebuilt = {e: (s.mu, s.sigma, g) for e, (s, g) in lstore.skills(ladder.id).items()}
    assert sum(g for _, _, g in stored.values()) == seats
    assert stored == rebuilt == replay_openskill(db, "sk")
