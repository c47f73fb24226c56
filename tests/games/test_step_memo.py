"""The base State's step memo: legal lists and ``per_step`` facts are computed once per step,
dropped by ``apply``, and never carried into copies."""

from __future__ import annotations

import copy
import pickle
import random
from collections.abc import Mapping
from typing import Any

import pytest

from arena.errors import GameOver, NotYourTurn
from arena.games import Outcome, State, get_game
from arena.games.base import per_step


class Counter(State):
    """Two seats take turns adding 1 until the total reaches 3; counts what it computes."""

    def __init__(self) -> None:
        self.players, self.seed, self.options = 2, 0, {}
        self.rng = random.Random(0)
        self.events, self.steps = [], 0
        self.total = 0
        self.computed: list[str] = []

    def to_act(self) -> tuple[int, ...]:
        return () if self.total >= 3 else (self.total % 2,)

    def _legal(self, seat: int) -> list[str]:
        self.computed.append(f"legal {seat}")
        return ["add"] if seat in self.to_act() else []

    @per_step
    def summary(self) -> dict[str, Any]:
        self.computed.append("summary")
        return {"total": self.total}

    def _apply(self, actions: Mapping[int, str]) -> None:
        self.total += 1

    def view(self, seat: int) -> dict[str, Any]:
        return {"seat": seat, **self.summary()}

    def is_over(self) -> bool:
        return self.total >= 3

    def outcome(self) -> Outcome:
        return Outcome(scores=(0.0, 0.0), places=(1, 1))

    def full(self) -> dict[str, Any]:
        return {"total": self.total}

    def resample(self, seat: int, rng: random.Random) -> State:
        return self.clone()


def test_facts_and_legal_lists_are_computed_once_per_step() -> None:
    state = Counter()
    assert state.view(0) == {"seat": 0, "total": 0}
    assert state.view(1) == {"seat": 1, "total": 0}
    assert state.legal(0) is state.legal(0)
    assert state.computed == ["summary", "legal 0"]
    state.apply({0: "add"})  # apply's own check reuses the cached list
    assert state.computed == ["summary", "legal 0"]
    assert state.view(0) == {"seat": 0, "total": 1}  # apply dropped the old summary
    assert state.legal(1) == ["add"] and state.legal(0) == []
    assert state.computed == ["summary", "legal 0", "summary", "legal 1", "legal 0"]


@pytest.mark.parametrize(
    "copier", [copy.copy, copy.deepcopy, lambda s: pickle.loads(pickle.dumps(s)), State.clone]
)
def test_copies_start_without_the_memo(copier: Any) -> None:
    state = Counter()
    state.view(0)
    state.legal(0)
    twin = copier(state)
    twin.total = 1  # a copy that kept the memo would still show total 0
    assert twin.view(1) == {"seat": 1, "total": 1}
    assert twin.legal(1) == ["add"]


def test_apply_checks_seats_and_the_end() -> None:
    state = Counter()
    with pytest.raises(NotYourTurn):
        state.apply({1: "add"})
    with pytest.raises(NotYourTurn):
        state.apply({0: "add", 1: "add"})
    for _ in range(3):
        state.apply({state.to_act()[0]: "add"})
    with pytest.raises(GameOver):
        state.apply({0: "add"})
    assert state.steps == 3


def test_seats_of_one_step_share_the_public_view() -> None:
    """Skull's placing step is simultaneous: every seat's view carries the same public part,
    and the views handed out before an apply keep showing the step they were made for."""
    state = get_game("skull").new(3, 1)
    assert len(state.to_act()) == 3
    views = [state.view(seat) for seat in state.to_act()]
    assert views[0]["log"] is views[1]["log"] is views[2]["log"]
    assert [view["seat"] for view in views] == [0, 1, 2]
    before = copy.deepcopy(views)
    state.apply({seat: state.legal(seat)[0] for seat in state.to_act()})
    assert state.view(0)["to_act"] != views[0]["to_act"]
    assert views == before
