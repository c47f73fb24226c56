"""A run's heartbeat (``tournaments.store.heartbeat``): a run opens a row, beats while it plays and
closes it; a reader tells a running run from a stopped one by the row, its age, and (on the
run's own host) whether its process is still there. Real SQLite files, real runs."""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.tournaments.test_runner import create_skull
from tournaments.store import heartbeat
from tournaments.store.facts import Store
from tournaments.store.heartbeat import GONE_S, STALE_S, RunInfo, RunState, process_token, run_state
from tournaments.store.migrations import SCHEMA_VERSION, migrate
from tournaments.store.sqlite import Database

NOW = datetime(2030, 1, 1, tzinfo=UTC)


def beating(age_s: float, **changes: object) -> RunInfo:
    stamp = (NOW - timedelta(seconds=age_s)).isoformat(timespec="milliseconds")
    run = RunInfo(
        id=1,
        tournament_id=1,
        host=socket.gethostname(),
        pid=os.getpid(),
        pid_token=process_token(),
        started_at=stamp,
        beat_at=stamp,
        ended_at=None,
        games_at_once=4,
    )
    return replace(run, **changes)


def test_reading_a_run_row() -> None:
    assert run_state(None, now=NOW) is RunState.NEVER
    assert run_state(beating(1), now=NOW) is RunState.RUNNING
    assert run_state(beating(1, ended_at="2029-12-31T23:59:59.000+00:00"), now=NOW) is (
        RunState.STOPPED
    )
    # another host: only the beat's age tells
    assert run_state(beating(STALE_S - 1, host="elsewhere", pid=1), now=NOW) is RunState.RUNNING
    assert run_state(beating(STALE_S + 1, host="elsewhere"), now=NOW) is RunState.STOPPED
    # this host, this very process: running however old its beat (until STALE_S)
    assert run_state(beating(GONE_S + 1), now=NOW) is RunState.RUNNING
    # this host, a process that is gone (or another process under its pid)
    gone = beating(GONE_S + 1, pid_token="not-a-start-time")
    assert run_state(gone, now=NOW) is RunState.STOPPED
    assert run_state(replace(gone, beat_at=beating(1).beat_at), now=NOW) is RunState.RUNNING


def test_heartbeat_opens_beats_and_closes_its_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(heartbeat, "BEAT_S", 0.05)
    db = tmp_path / "arena.db"
    tid = create_skull(db, 1)
    with Store.open(db) as store:
        assert store.runs.last(tid) is None
        with store.runs.heartbeat(tid, games_at_once=8):
            first = store.runs.last(tid)
            assert first is not None and first.ended_at is None and first.games_at_once == 8
            assert first.pid == os.getpid() and first.pid_token == process_token()
            assert run_state(first) is RunState.RUNNING
            deadline = time.monotonic() + 10
            while store.runs.last(tid).beat_at == first.beat_at:
                assert time.monotonic() < deadline, "no beat"
                time.sleep(0.02)
        closed = store.runs.last(tid)
        assert closed.id == first.id and closed.ended_at is not None
        assert run_state(closed) is RunState.STOPPED


def test_a_run_closes_its_row_and_a_killed_one_is_seen_stopped(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    done, killed = create_skull(db, 1), create_skull(db, 400)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    command = [sys.executable, "-m", "arena", "tournament", "run"]
    subprocess.run(
        [*command, str(done), "-q", "--sandbox", "off", "--db", str(db)], env=env, check=True
    )
    with Store.open(db) as store:
        run = store.runs.last(done)
        assert run is not None and run.ended_at is not None
    proc = subprocess.Popen(
        [*command, str(killed), "-q", "--sandbox", "off", "--db", str(db)], env=env
    )
    try:
        with Store.open(db) as store:
            deadline = time.monotonic() + 60
            while store.tournament(killed).games_done == 0:
                assert time.monotonic() < deadline and proc.poll() is None
                time.sleep(0.1)
            assert run_state(store.runs.last(killed)) is RunState.RUNNING
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            run = store.runs.last(killed)
            assert run.ended_at is None  # killed: nothing closed it
            later = datetime.fromisoformat(run.beat_at) + timedelta(seconds=GONE_S + 0.5)
            assert run_state(run, now=later) is RunState.STOPPED
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def game_ids(store: Store, tid: int) -> list[int]:
    rows = store.db.execute("SELECT id FROM games WHERE tournament_id = ? ORDER BY id", (tid,))
    return [game_id for (game_id,) in rows.fetchall()]


def test_each_beat_writes_the_games_in_play_and_the_end_clears_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(heartbeat, "BEAT_S", 0.05)
    db = tmp_path / "arena.db"
    tid = create_skull(db, 1)
    with Store.open(db) as store:
        first, second, third = game_ids(store, tid)[:3]
        started = time.time() - 3
        playing = {first: started, second: started + 1}
        with store.runs.heartbeat(tid, games_at_once=2, playing=lambda: dict(playing)):
            assert store.runs.last(tid).in_play == ()  # the start is no beat
            deadline = time.monotonic() + 10
            while not store.runs.last(tid).in_play:
                assert time.monotonic() < deadline, "no beat"
                time.sleep(0.02)
            run = store.runs.last(tid)
            assert [g.game_id for g in run.in_play] == [first, second]
            assert run.in_play[0].started_at == (
                datetime.fromtimestamp(started, UTC).isoformat(timespec="milliseconds")
            )
            assert store.runs.in_play(tid) == run.in_play
            # a game recorded before the next beat is not shown as in play
            store.db.execute("UPDATE games SET status = 'done' WHERE id = ?", (first,))
            assert [g.game_id for g in store.runs.in_play(tid)] == [second]
            # the list follows the run: the next beats write the new one
            playing.pop(second)
            playing[third] = time.time()
            while [g.game_id for g in store.runs.last(tid).in_play] != [first, third]:
                assert time.monotonic() < deadline, "the list was not written again"
                time.sleep(0.02)
            # a stopped run (its beat too old) shows none, whatever its row says
            later = datetime.fromisoformat(store.runs.last(tid).beat_at) + timedelta(
                seconds=STALE_S + 1
            )
            assert [g.game_id for g in store.runs.in_play(tid)] == [third]
            assert store.runs.in_play(tid, now=later) == ()
        closed = store.runs.last(tid)
        assert closed.in_play == () and store.runs.in_play(tid) == ()
        raw = store.db.execute("SELECT in_play FROM runs WHERE id = ?", (closed.id,)).fetchone()
        assert raw == ("[]",)


def test_a_database_from_before_the_games_in_play_opens_with_its_runs(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    conn = sqlite3.connect(db, isolation_level=None)
    migrate(Database(conn), path=str(db), target=12)  # as schema 12 left it
    at = "2030-01-01T00:00:00+00:00"
    tid = conn.execute(
        "INSERT INTO tournaments (game, options, table_size, rounds, seed, move_ms, created_at, "
        "status) VALUES ('skull', '{}', 3, 1, 0, 1000, ?, 'planned')",
        (at,),
    ).lastrowid
    conn.execute(
        "INSERT INTO runs (tournament_id, host, pid, started_at, beat_at) VALUES (?, 'h', 1, ?, ?)",
        (tid, at, at),
    )
    conn.close()
    with Store.open(db) as store:
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        run = store.runs.last(tid)
        assert run is not None and run.in_play == () and store.runs.in_play(tid) == ()
