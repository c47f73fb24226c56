"""The game session over real bot processes: seats from pool entries, absent seats, reuse."""

from __future__ import annotations

import subprocess

import pytest

from arena.errors import BotStartError
from arena.procs.botproc import BotSpec, wait_exits
from arena.procs.limits import Limits
from arena.referee import driver
from arena.referee.game import GameSetup
from arena.referee.record import Chooser, FaultKind
from arena.referee.session import Session
from tests.arena.conftest import bundled, rogue

LIMITS = Limits(move_ms=2000, startup_ms=3000)


def test_a_bot_that_does_not_start_sits_absent_unless_strict(toy, tmp_path):
    entries = [("dead", rogue("exit_at_once")), ("first", bundled("first"))]
    with Session(LIMITS, log_dir=tmp_path) as session:
        with pytest.raises(BotStartError, match="stopped before saying hello"):
            session.seats(entries, strict=True)
        seats = session.seats(entries)
        table = GameSetup(toy, seats, 3, {"rounds": 1}, names=["dead", "first"])
        record = driver.play(table, LIMITS)
    assert [(f.seat, f.step, f.kind) for f in record.faults] == [(0, 0, FaultKind.CRASH)]
    assert "stopped before saying hello" in record.faults[0].detail
    assert record.forfeits == (0,) and record.places == (2, 1)
    assert all(a.by is Chooser.REFEREE for a in record.actions if a.seat == 0)
    assert record.bots == ("dead", "first")


def test_a_session_reuses_its_processes_game_after_game(toy, tmp_path):
    entries = [("a", bundled("random")), ("b", bundled("first"))]
    with Session(LIMITS, log_dir=tmp_path) as session:
        session.pool.prestart(entries)
        records = [
            driver.play(
                GameSetup(toy, session.seats(entries), seed, {"rounds": 1}, seed, [seed, seed]),
                LIMITS,
            )
            for seed in (1, 2, 1)
        ]
        assert session.pool.started == 2
    assert all(r.faults == () for r in records)
    assert records[0].joint_actions() == records[2].joint_actions(), "same seeds, same game"
    assert records[0].bots == ("a", "b"), "process seats are named by their pool key"


def test_the_bots_of_a_game_start_together_and_a_bad_one_is_named(toy, tmp_path):
    """``get`` starts every missing process of the entries at once; one whose command cannot
    run raises its own BotStartError, and the others are up and reused by the next call."""
    entries = [("a", bundled("first")), ("bad", BotSpec("bad", ("/nonexistent/bot",)))]
    entries.append(("b", bundled("first")))
    with Session(LIMITS, log_dir=tmp_path) as session:
        with pytest.raises(BotStartError, match="/nonexistent/bot"):
            session.seats(entries, strict=True)
        started = {label: session.pool.procs.get(label) for label in ("a", "b")}
        assert all(proc is not None and proc.running() for proc in started.values())
        seats = session.seats([entries[0], entries[2]], strict=True)
        assert [seat.proc for seat in seats] == [started["a"], started["b"]]
        assert session.pool.started == 2


def test_waiting_for_exits_reaps_those_that_exit_and_leaves_the_others_running():
    """``wait_exits`` is woken by each exit (and reaps it); past its timeout it returns with
    the others still running. A process reaped before the call is no trouble."""
    done = subprocess.Popen(["true"])
    done.wait()
    quick = [subprocess.Popen(["true"]) for _ in range(3)]
    slow = subprocess.Popen(["sleep", "60"])
    try:
        wait_exits([done, *quick], 60.0)  # returns as soon as the three have exited
        assert [proc.returncode for proc in quick] == [0, 0, 0]
        wait_exits([slow], 0.05)
        assert slow.poll() is None
    finally:
        slow.kill()
        slow.wait()
