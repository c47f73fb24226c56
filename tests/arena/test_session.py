"""The game session over real bot processes: seats from pool entries, absent seats, reuse."""

from __future__ import annotations

import pytest

from arena.errors import BotStartError
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
        session.prestart(entries)
        records = [
            driver.play(
                GameSetup(toy, session.seats(entries), seed, {"rounds": 1}, seed, [seed, seed]),
                LIMITS,
            )
            for seed in (1, 2, 1)
        ]
        assert session.started == 2
    assert all(r.faults == () for r in records)
    assert records[0].joint_actions() == records[2].joint_actions(), "same seeds, same game"
    assert records[0].bots == ("a", "b"), "process seats are named by their pool key"
