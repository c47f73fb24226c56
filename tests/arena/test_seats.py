"""The referee over in-process and scripted seats: faults, forfeits and simultaneous steps,
fast and deterministic (no processes, no clocks but the in-process timeout's)."""

from __future__ import annotations

import time

import pytest

from arena.errors import ArenaError, IllegalAction
from arena.procs.limits import Limits
from arena.referee import driver
from arena.referee.game import GameSetup
from arena.referee.record import Chooser, FaultKind
from arena.referee.replay import replay
from arena.referee.seats import InProcessSeat, Misbehave, ScriptedSeat

LIMITS = Limits(move_ms=1000, max_faults=3)


def play(toy, seats, *, rounds=3, limits=LIMITS, seed=1):
    return driver.play(
        GameSetup(toy, seats, seed=seed, options={"rounds": rounds}, bot_seeds=[7] * len(seats)),
        limits,
    )


def kinds(record, seat=None):
    return [f.kind for f in record.faults if seat is None or f.seat == seat]


def by_seat(record, seat):
    return [a for a in record.actions if a.seat == seat]


def test_scripted_answers_are_played_and_replay(toy):
    record = play(toy, [ScriptedSeat(["n:2"] * 6), ScriptedSeat(["n:1"] * 6)])
    assert record.faults == () and record.forfeits == ()
    assert [a.action for a in by_seat(record, 0)] == ["n:2"] * 6
    assert all(a.by is Chooser.BOT for a in record.actions)
    assert record.places == (1, 2) and sum(record.decisions) == 12
    final = replay("toy", 2, record.seed, record.options, record.joint_actions())
    assert final.outcome().places == record.places


def test_illegal_answers_are_faults_then_forfeit(toy):
    record = play(toy, [ScriptedSeat(["bad", "n:9", "", "n:2"]), ScriptedSeat()])
    assert kinds(record) == [FaultKind.ILLEGAL] * 3
    assert record.faults[0].detail == "'bad' was not offered"
    assert record.forfeits == (0,) and record.places == (2, 1)
    assert all(a.by is Chooser.REFEREE and a.action == "n:0" for a in by_seat(record, 0))
    assert record.decisions[0] == 0, "an illegal answer is no decision of the bot's"


def test_illegal_answers_of_two_seats_in_one_simultaneous_step(toy):
    # steps: seat 0, seat 1, then both at once: both answer illegally there
    record = play(toy, [ScriptedSeat(["n:1", "x"]), ScriptedSeat(["n:1", "y"])], rounds=1)
    assert [(f.seat, f.step, f.kind) for f in record.faults] == [
        (0, 2, FaultKind.ILLEGAL),
        (1, 2, FaultKind.ILLEGAL),
    ]
    assert [(a.seat, a.action, a.by) for a in record.actions if a.step == 2] == [
        (0, "n:0", Chooser.REFEREE),
        (1, "n:0", Chooser.REFEREE),
    ]


def test_a_wrong_request_id_is_a_fault_but_the_answer_still_counts(toy):
    record = play(toy, [ScriptedSeat([Misbehave.WRONG_ID, "n:2"]), ScriptedSeat()], rounds=1)
    assert kinds(record) == [FaultKind.WRONG_ID]
    assert by_seat(record, 0)[0].action == "n:2" and by_seat(record, 0)[0].by is Chooser.BOT


def test_wrong_ids_up_to_the_bound_forfeit_and_the_answer_is_dropped(toy):
    record = play(toy, [ScriptedSeat([Misbehave.WRONG_ID] * 3 + ["n:2"]), ScriptedSeat()], rounds=1)
    assert kinds(record) == [FaultKind.WRONG_ID] * 3 and record.forfeits == (0,)
    first = by_seat(record, 0)[0]
    assert (first.action, first.by) == ("n:0", Chooser.REFEREE)


@pytest.mark.parametrize(
    "item, kind",
    [(Misbehave.TIMEOUT, FaultKind.TIMEOUT), (Misbehave.MALFORMED, FaultKind.MALFORMED)],
)
def test_a_late_or_malformed_answer_is_a_fault_and_the_default_moves(toy, item, kind):
    record = play(toy, [ScriptedSeat([item, "n:2"]), ScriptedSeat()], rounds=1)
    assert kinds(record) == [kind] and record.forfeits == ()
    moves = by_seat(record, 0)
    assert (moves[0].action, moves[0].by) == ("n:0", Chooser.REFEREE)
    assert (moves[1].action, moves[1].by) == ("n:2", Chooser.BOT), "the next turn is its own"


def test_a_crash_forfeits_at_once(toy):
    record = play(toy, [ScriptedSeat(), ScriptedSeat(["n:1", Misbehave.CRASH])])
    assert kinds(record) == [FaultKind.CRASH] and record.forfeits == (1,)
    assert all(a.by is Chooser.REFEREE for a in by_seat(record, 1)[1:])


def test_an_absent_seat_is_a_crash_at_the_start_and_is_never_asked(toy):
    absent = ScriptedSeat([Misbehave.ABSENT])
    record = play(toy, [ScriptedSeat(), absent])
    assert [(f.step, f.kind) for f in record.faults] == [(0, FaultKind.CRASH)]
    assert record.forfeits == (1,) and absent.turns == []
    assert len(absent.ends) == 1


def test_simultaneous_turns_reveal_nothing_of_the_other_seats_choice(toy):
    seats = [ScriptedSeat(["n:1", "n:2"]), ScriptedSeat(["n:2", "n:1"])]
    play(toy, seats, rounds=1)
    together = [seat.turns[1] for seat in seats]  # the third step, asked of both
    assert together[0].view["totals"] == together[1].view["totals"] == [1, 2]
    assert [seat.starts[0].seed for seat in seats] == [7, 7]
    assert all(seat.ends[0][1]["places"] for seat in seats)


def test_in_process_seats_play_deterministically(toy):
    def highest(view, legal):
        return legal[-1]

    records = [
        driver.play(
            GameSetup(toy, [InProcessSeat(highest), InProcessSeat(highest)], 5, {"rounds": 2}),
            LIMITS,
        )
        for _ in range(2)
    ]
    assert records[0].joint_actions() == records[1].joint_actions()
    assert records[0].faults == () and records[0].bots == ("in-process", "in-process")
    assert all(a.action == "n:2" for a in records[0].actions)


def test_in_process_misbehaviour_is_a_fault_like_a_bots(toy):
    def boom(view, legal):
        raise ValueError("no idea")

    def number(view, legal):
        return 2

    def illegal(view, legal):
        return "n:7"

    record = play(toy, [InProcessSeat(boom), InProcessSeat(number)], rounds=1)
    assert (record.faults[0].seat, record.faults[0].kind) == (0, FaultKind.CRASH)
    assert "ValueError: no idea" in record.faults[0].detail and 0 in record.forfeits
    assert kinds(record, 1) == [FaultKind.MALFORMED, FaultKind.MALFORMED]
    first = InProcessSeat(lambda view, legal: legal[0])
    record = play(toy, [InProcessSeat(illegal), first], rounds=1)
    assert kinds(record) == [FaultKind.ILLEGAL] * 2


def test_an_in_process_answer_past_its_deadline_is_a_timeout(toy):
    def slow(view, legal):
        time.sleep(0.05)
        return legal[-1]

    record = play(
        toy,
        [InProcessSeat(slow), InProcessSeat(lambda view, legal: legal[0])],
        rounds=1,
        limits=Limits(move_ms=1, max_faults=5),
    )
    assert kinds(record) == [FaultKind.TIMEOUT] * 2
    assert all(a.by is Chooser.REFEREE for a in by_seat(record, 0))


def test_the_engine_is_the_one_check_of_legality(toy, monkeypatch):
    # the engine decides: an action it accepts is played, even one a stale list lacks
    state_class = type(toy.new(2, 1, {"rounds": 1}))
    monkeypatch.setattr(
        state_class,
        "legal",
        lambda self, seat: ["n:0", "n:1", "n:2", "n:5"] if seat in self.to_act() else [],
    )
    record = play(toy, [ScriptedSeat(["n:5"]), ScriptedSeat()], rounds=1)
    assert record.faults == () and by_seat(record, 0)[0].action == "n:5"
    assert record.scores[0] == 5


def test_an_illegal_default_move_is_the_referees_error_not_a_seats(toy, monkeypatch):
    # the bot's answer is refused (a fault), then the default move too: that is no fault of
    # any seat, and the referee says so instead of looping
    def refuse(self, actions):
        raise IllegalAction("nothing goes", seat=0)

    monkeypatch.setattr(type(toy.new(2, 1, {"rounds": 1})), "apply", refuse)
    with pytest.raises(ArenaError, match="IllegalAction: nothing goes"):
        play(toy, [ScriptedSeat(), ScriptedSeat()], rounds=1)
