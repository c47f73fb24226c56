"""Tournament runs with real bot processes: parallel equals serial, kill -9 and resume."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

from arena.keys.keyfile import key_file_path
from tests.tournaments import cli, create, ctrl_c_reaches_it
from tournaments.catalogue.botcopies import BotCopies

BOTS = "random,first,random,random"


def create_skull(db: Path, rounds: int = 2, *options: str) -> int:
    """A Skull tournament of ``BOTS`` at tables of 3 (4 tables, 12 games a repetition)."""
    return create(db, BOTS, "--table-size", "3", "--rounds", str(rounds), "--seed", "42", *options)[
        0
    ]


def copy_database(source: Path, target: Path) -> None:
    """Copy a (closed) database with its key file and its folder bots' copies: a tournament's
    deals come from its own key, so two runs of one plan need one key (a new tournament would
    get new deals), and its folder bots run from their copies."""
    shutil.copy(source, target)
    shutil.copy(key_file_path(source), key_file_path(target))
    copies = BotCopies.beside(source).root
    if copies.is_dir():
        shutil.copytree(copies, BotCopies.beside(target).root, symlinks=True)


def results(db: Path, tid: int) -> dict:
    conn = sqlite3.connect(db)
    games = conn.execute(
        "SELECT plan_index, actions, outcome FROM games WHERE tournament_id = ? "
        "ORDER BY plan_index",
        (tid,),
    ).fetchall()
    ratings = conn.execute(
        "SELECT method, entrant, round(rating, 6), round(lo, 6), "
        "round(hi, 6), games FROM ratings WHERE tournament_id = ? "
        "ORDER BY method, entrant",
        (tid,),
    ).fetchall()
    history = conn.execute(
        "SELECT game_index, entrant, round(rating, 6) FROM rating_history "
        "WHERE tournament_id = ? ORDER BY game_index, entrant",
        (tid,),
    ).fetchall()
    conn.close()
    actions = [(i, [a[:3] for a in json.loads(acts)], json.loads(out)) for i, acts, out in games]
    return {"games": actions, "ratings": ratings, "history": history}


def done_count(db: Path, tid: int) -> int:
    try:
        conn = sqlite3.connect(db, timeout=5)
        n = conn.execute(
            "SELECT COUNT(*) FROM games WHERE tournament_id = ? AND status = 'done'", (tid,)
        ).fetchone()[0]
        conn.close()
        return n
    except sqlite3.Error:
        return 0


def test_parallel_run_equals_serial_run(tmp_path: Path) -> None:
    serial, parallel = tmp_path / "serial.db", tmp_path / "parallel.db"
    a = b = create_skull(serial)
    copy_database(serial, parallel)
    cli("tournament", "run", str(a), "--quiet", "--db", str(serial))
    cli("tournament", "run", str(b), "--quiet", "--jobs", "2", "--db", str(parallel))
    first, second = results(serial, a), results(parallel, b)
    assert len(first["games"]) == 2 * 4 * 3
    assert first == second


def arena_run(db: Path, tid: int, marker: str = "", *extra: str) -> subprocess.Popen:
    env = dict(os.environ, ARENA_TEST_MARKER=marker)
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
            "--db",
            str(db),
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        env=env,
        preexec_fn=ctrl_c_reaches_it,
    )


def processes_with(marker: str) -> set[int]:
    """Pids of processes whose environment holds ``ARENA_TEST_MARKER=marker``."""
    needle = f"ARENA_TEST_MARKER={marker}".encode() + b"\0"
    pids = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                environ = (entry / "environ").read_bytes() + b"\0"
            except OSError:
                continue
            if needle in environ:
                pids.add(int(entry.name))
    return pids


def kill_minus_nine_then_resume(db: Path, tid: int, total: int) -> None:
    """Run tournament ``tid`` of ``db`` (``total`` games) with ``--jobs 2``, kill the arena
    process with SIGKILL once 5 games are recorded, check that no worker or bot outlives it,
    and run it again to the end. The killed run plays one game at a time a worker: with many
    at once (a phase's games all in flight together) the rest could end before the kill."""
    marker = uuid.uuid4().hex
    proc = arena_run(db, tid, marker, "--games-per-worker", "1")
    deadline = time.monotonic() + 60
    while done_count(db, tid) < 5 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(processes_with(marker)) > 3, "workers and bots are running"
    os.kill(proc.pid, signal.SIGKILL)  # the arena process only, mid-run
    proc.wait(10)
    partial = done_count(db, tid)
    assert 5 <= partial < total, "killed mid-run"
    deadline = time.monotonic() + 10
    while processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_with(marker) == set(), "no worker or bot outlives a killed arena"
    output = cli("tournament", "run", str(tid), "--quiet", "--db", str(db))
    assert f"{total}/{total} games played" in output


def test_kill_minus_nine_then_resume_equals_uninterrupted(tmp_path: Path) -> None:
    reference, killed = tmp_path / "reference.db", tmp_path / "killed.db"
    ref_id = tid = create_skull(reference, rounds=3)
    copy_database(reference, killed)
    cli("tournament", "run", str(ref_id), "--quiet", "--db", str(reference))
    kill_minus_nine_then_resume(killed, tid, 3 * 4 * 3)
    assert results(killed, tid) == results(reference, ref_id)


def test_ctrl_c_keeps_finished_games_and_says_how_to_finish(tmp_path: Path) -> None:
    db = tmp_path / "int.db"
    tid = create_skull(db, rounds=4)
    proc = arena_run(db, tid)
    deadline = time.monotonic() + 60
    while done_count(db, tid) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert b"run `arena tournament run" in err and b"Traceback" not in err
    assert done_count(db, tid) >= 3
