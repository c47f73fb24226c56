"""A killed arena leaves nothing behind, whenever it is killed: while its workers start, while
they play, and while they stop.

``arena tournament run --jobs 2`` runs in its own session; it is killed with SIGKILL at a range
of moments, and every process that carries the run's marker in its environment (the workers
inherit it; bots get it as an ``ARENA_BOT_*`` variable, the only kind passed to them) must be
gone soon after. What was recorded stays, and a second run finishes the tournament.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.security.conftest import survivors
from tests.tournaments import ctrl_c_reaches_it
from tests.tournaments.test_runner import cli, create_skull, done_count

#: Seconds after the start at which the arena is killed: during the workers' start-up (the
#: spawned interpreters import for about a second here), during play and later.
MOMENTS = (0.05, 0.3, 0.6, 0.9, 1.3, 2.0)


def start(db: Path, tid: int, marker: str) -> subprocess.Popen:
    env = dict(os.environ, ARENA_TEST_MARKER=marker, ARENA_BOT_TEST_MARKER=marker)
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "arena",
            "tournament",
            "run",
            str(tid),
            "--jobs",
            "2",
            "--quiet",
            "--db",
            str(db),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        env=env,
        preexec_fn=ctrl_c_reaches_it,
    )


def assert_nothing_left(marker: str) -> None:
    deadline = time.monotonic() + 15
    while survivors(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = survivors(marker)
    for pid in left:  # do not leak them into other tests
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    assert left == [], "processes outlived a killed arena"


@pytest.mark.parametrize("moment", MOMENTS)
def test_kill_at_any_moment_leaves_no_process(tmp_path: Path, moment: float) -> None:
    db = tmp_path / "arena.db"
    tid = create_skull(db, rounds=2)
    marker = uuid.uuid4().hex
    proc = start(db, tid, marker)
    time.sleep(moment)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(10)
    assert_nothing_left(marker)
    output = cli("tournament", "run", str(tid), "--quiet", "--db", str(db))
    assert "24/24 games played" in output


def test_kill_while_stopping_leaves_no_process(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    tid = create_skull(db, rounds=2)
    marker = uuid.uuid4().hex
    proc = start(db, tid, marker)
    deadline = time.monotonic() + 60
    while done_count(db, tid) < 24 and time.monotonic() < deadline:
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)  # the last game is stored: the workers are stopping
    proc.wait(10)
    assert done_count(db, tid) == 24
    assert_nothing_left(marker)


def test_ctrl_c_leaves_no_process(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    tid = create_skull(db, rounds=2)
    marker = uuid.uuid4().hex
    proc = start(db, tid, marker)
    deadline = time.monotonic() + 60
    while done_count(db, tid) < 3 and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    assert proc.wait(30) == 130
    assert_nothing_left(marker)
