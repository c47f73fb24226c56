"""The Skull odds bot: its odds arithmetic, a few decisions, and that it clearly beats random."""

from __future__ import annotations

import pytest

import bots.skull_odds as bot
from arena.games import get_game
from tests.bots.match import mean_decision_seconds, win_rate


def test_module_contract() -> None:
    assert bot.__doc__ and bot.GAMES == ("skull",)
    assert callable(bot.act)


def test_next_good_gets_riskier_deeper_into_a_stack() -> None:
    assert bot.next_good(0.0, 3, 0) == 1.0
    assert bot.next_good(1.0, 2, 0) == pytest.approx(0.5)
    assert bot.next_good(1.0, 2, 1) == 0.0  # the skull must be the last one
    assert bot.next_good(0.6, 3, 0) > bot.next_good(0.6, 3, 1) > bot.next_good(0.6, 3, 2)


def test_plan_spreads_flips_over_the_safest_stacks() -> None:
    stacks = {1: (0.9, 1, 0), 2: (0.5, 2, 0), 3: (0.3, 1, 0)}
    curve, order = bot.plan(stacks, 3)
    assert order == [2, 3, 2]  # odds 0.75, then 0.7 beats 2's second disc (0.667)
    assert curve == pytest.approx([0.75, 0.525, 0.35])
    assert bot.plan({1: (0.0, 1, 1)}, 2) == ([], [])  # nothing left to flip


def test_own_stack_counts_only_the_flowers_above_the_skull() -> None:
    assert bot.safe_top(["skull", "flower", "flower"]) == 2
    assert bot.best_number(1, 6, ["skull", "flower"], {}, 0.5) == 1
    assert bot.best_number(2, 6, ["flower", "skull"], {}, 0.5) == 0
    assert bot.best_number(1, 3, ["flower"], {2: (0.0, 2, 0)}, 0.5) == 3


def _view_after(actions: list[dict[int, str]], seat: int) -> tuple[dict, list[str]]:
    state = get_game("skull").new(4, 0)
    for joint in actions:
        state.apply(joint)
    return state.view(seat), state.legal(seat)


def test_opens_with_the_skull_then_covers_it_with_a_flower() -> None:
    view, legal = _view_after([], 2)
    assert bot.act(view, legal) == "place:skull"
    view, legal = _view_after(
        [{0: "place:skull", 1: "place:flower", 2: "place:flower", 3: "place:flower"}], 0
    )
    assert bot.act(view, legal) == "place:flower"


def test_passes_a_bid_it_cannot_make_when_a_bluff_is_too_likely_to_stand() -> None:
    setup = {0: "place:skull", 1: "place:flower", 2: "place:flower", 3: "place:flower"}
    view, legal = _view_after(
        [setup, {0: "place:flower"}, {1: "bid:4"}, {2: "pass"}, {3: "pass"}], 0
    )
    assert legal == ["pass", "bid:5"]
    assert bot.act(view, legal) == "pass"  # seat 1 alone left, one option in two: 50 % risk


def test_discards_a_flower_and_keeps_the_skull() -> None:
    assert bot.act({"phase": "discard"}, ["discard:flower", "discard:skull"]) == "discard:flower"


def test_decisions_are_legal_and_fast() -> None:
    mean = mean_decision_seconds("skull", bot.act, players=6, seeds=range(20))
    assert mean < 0.0005  # well under a millisecond per decision


def test_beats_random_players_clearly() -> None:
    rate = win_rate("skull", bot.act, games=200, players=4, seed=1)
    assert rate > 0.5, f"won {rate:.0%} of 4-player games against three random bots"
