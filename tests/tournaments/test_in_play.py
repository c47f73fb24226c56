"""The games a run is playing (``runs.in_play``, written with its heartbeat): a real tournament
with real bot processes, serial and with ``--jobs 2``. While it runs, the list holds games of
that tournament not yet recorded, never more than the run plays at once; once it ends, none."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.tournaments import slow_tournament, thinking_bot
from tournaments.store.facts import Store
from tournaments.store.withheld import tables_in_play


@pytest.fixture
def slow_bot(shared: Path) -> Path:
    # a pause longer than a beat (BEAT_S) at the first move of each of its processes (one a
    # phase) and now and then after: beats see the games in play
    return thinking_bot(shared, 0.01, pause_s=1.2, every=100)


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_run_lists_the_games_it_is_playing_and_none_once_it_ended(
    tmp_path: Path, slow_bot: Path, jobs: int
) -> None:
    db = tmp_path / "arena.db"
    tid, _ = slow_tournament(db, slow_bot, "--rounds", "2", "--move-time", "5000", check_ms=5000)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    command = [sys.executable, "-m", "arena", "tournament", "run", str(tid), "-q"]
    proc = subprocess.Popen(
        [*command, "--jobs", str(jobs), "--sandbox", "off", "--db", str(db)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    seen: set[int] = set()
    try:
        with Store.open(db) as store:
            games = {
                game_id
                for (game_id,) in store.db.execute(
                    "SELECT id FROM games WHERE tournament_id = ?", (tid,)
                ).fetchall()
            }
            conn = store.db.conn
            while proc.poll() is None:
                conn.execute("BEGIN")  # one snapshot: the list and the games' statuses
                try:
                    playing = store.runs.in_play(tid)
                    run = store.runs.last(tid)
                    pending = {
                        game_id
                        for (game_id,) in conn.execute(
                            "SELECT id FROM games WHERE tournament_id = ? AND status = 'pending'",
                            (tid,),
                        )
                    }
                    tables = tables_in_play(store, tid)
                finally:
                    conn.execute("COMMIT")
                ids = [game.game_id for game in playing]
                assert len(set(ids)) == len(ids) and set(ids) <= pending <= games
                assert [table.game_id for table in tables] == sorted(ids)
                if run is not None:
                    assert {game.game_id for game in run.in_play} <= games
                    assert len(run.in_play) <= (run.games_at_once or 0)
                for table in tables:
                    assert sorted(table.seating) == ["first", "random", "slow"]
                seen.update(ids)
                time.sleep(0.1)
            assert proc.returncode == 0, proc.stderr.read() if proc.stderr else ""
            assert seen, "no game was seen in play"
            assert store.tournament(tid).games_done == len(games)
            run = store.runs.last(tid)
            assert run is not None and run.ended_at is not None
            assert run.in_play == () and store.runs.in_play(tid) == ()
            assert tables_in_play(store, tid) == []
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
