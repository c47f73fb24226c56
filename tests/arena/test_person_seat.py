"""A person's seat (``PersonSeat``) among real bot processes: the person is asked exactly what a
bot in the seat would be sent and waited for; the record marks their choices as a person's;
leaving forfeits the seat at once and the game is still played to its end; a person's deadline
is theirs only (``time_ms``), and the bots' deadlines never run while the person thinks."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import pytest

from arena.games import get_game
from arena.procs.limits import Limits
from arena.referee import single
from arena.referee.record import Chooser, FaultKind
from arena.referee.seats import Leave, PersonSeat, Start, Turn
from tests.arena.conftest import bundled

GAMES = ["skull", "skull-bank", "skull-king", "skyjo"]
#: The phases in which every seat acts at once, by their name in the games' views.
AT_ONCE = {"setup", "ante", "bidding", "reveal"}


def at_once(turn: Turn) -> bool:
    return turn.view.get("phase") in AT_ONCE


class Scripted:
    """A person who takes the last legal action (unlike the referee's default, the first),
    leaves at decision ``leave_at`` and thinks ``think_s`` at a simultaneous step."""

    def __init__(self, *, leave_at: int | None = None, think_s: float = 0.0) -> None:
        self.leave_at = leave_at
        self.think_s = think_s
        self.starts: list[Start] = []
        self.turns: list[Turn] = []
        self.ends: list[tuple[Mapping[str, Any], dict[str, Any]]] = []

    def start(self, start: Start) -> None:
        self.starts.append(start)

    def decide(self, turn: Turn, time_ms: float | None) -> str | Leave:
        self.turns.append(turn)
        if len(self.turns) == self.leave_at:
            return Leave("end of input")
        if self.think_s and at_once(turn):
            time.sleep(self.think_s)
        return turn.legal[-1]

    def end(self, result: Mapping[str, Any], view: dict[str, Any]) -> None:
        self.ends.append((result, view))


def play(game: str, person: Scripted, seat: int, *, time_ms: float | None = None, **limits):
    bots = [bundled("random"), bundled("random")]
    seats = {seat: PersonSeat(person, time_ms=time_ms)}
    return single.play_game(game, bots, here=seats, seed=11, limits=Limits(**limits))


@pytest.mark.parametrize("game", GAMES)
def test_a_person_plays_a_whole_game_among_bots(game: str) -> None:
    person = Scripted()
    record = play(game, person, 1)
    assert record.bots == ("random", "human", "random")
    assert record.faults == () and record.forfeits == ()
    mine = [a for a in record.actions if a.seat == 1]
    assert mine and all(a.by is Chooser.PERSON for a in mine)
    assert all(a.by is Chooser.BOT for a in record.actions if a.seat != 1)
    assert [a.action for a in mine] == [t.legal[-1] for t in person.turns]
    assert record.decisions[1] == len(person.turns)
    assert person.starts[0].seat == 1 and person.starts[0].players == 3
    assert all(t.view["seat"] == 1 for t in person.turns)
    # the view the person was asked on is the seat's own, as a bot there would get it
    state = get_game(game).new(3, record.seed, record.options)
    asked = iter(person.turns)
    for joint in record.joint_actions():
        if 1 in joint:
            turn = next(asked)
            assert turn.view == state.view(1) and turn.legal == state.legal(1)
        state.apply(joint)
    ((result, last),) = person.ends
    assert result["places"] == list(record.places) and last == state.view(1)


def test_a_person_who_leaves_forfeits_at_once_and_the_game_ends() -> None:
    person = Scripted(leave_at=2)
    record = play("skull-king", person, 0)
    assert [(f.seat, f.kind) for f in record.faults] == [(0, FaultKind.RESIGNED)]
    assert "end of input" in record.faults[0].detail
    assert record.forfeits == (0,) and record.places[0] == 3
    assert len(person.turns) == 2  # never asked again
    mine = [a for a in record.actions if a.seat == 0]
    assert [a.by for a in mine[:1]] == [Chooser.PERSON]
    assert all(a.by is Chooser.REFEREE for a in mine[1:]) and len(mine) > 2
    assert len(person.ends) == 1  # told the result of the game played to its end


def test_a_person_has_no_deadline_unless_given_one() -> None:
    slow = Scripted(think_s=0.3)
    record = play("skyjo", slow, 2, move_ms=100)
    assert record.faults == ()  # 0.3 s at the reveals, beyond a bot's 100 ms: no deadline
    late = Scripted(think_s=0.3)
    record = play("skyjo", late, 2, time_ms=100)
    assert [(f.seat, f.kind) for f in record.faults if f.seat == 2][:1] == [(2, FaultKind.TIMEOUT)]


def test_the_bots_deadlines_do_not_run_while_the_person_thinks() -> None:
    # skull-king's bids are simultaneous: seats 0 and 1 are asked before seat 2, the person;
    # their turns go out only once the person has answered, so 1.5 s of thought never eats
    # their second
    person = Scripted(think_s=1.5)
    record = play("skull-king", person, 2, move_ms=1000)
    thought = [t for t in person.turns if at_once(t)]
    assert record.faults == () and len(thought) >= 1
