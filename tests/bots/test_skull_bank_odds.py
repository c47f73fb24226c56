"""The Skull & Roses bank odds bot: its answers, a few decisions, and that it clearly beats
random."""

from __future__ import annotations

import random

import bots.skull_bank_odds as bot
from arena.games import get_game
from arena.games.base import State
from tests.bots.match import mean_decision_seconds, win_rate


def _state(players: int, *moves: dict[int, str]) -> State:
    state = get_game("skull-bank").new(players, 0)
    for joint in moves:
        state.apply(joint)
    return state


def test_module_contract() -> None:
    assert bot.__doc__ and bot.GAMES == ("skull-bank",)
    assert callable(bot.act)


def test_own_row_odds_are_exact() -> None:
    assert bot.own_next_good(["skull", "rose"], 0) == 1.0
    assert bot.own_next_good(["skull", "rose"], 1) == 0.0
    assert bot.own_next_good(["rose"], 1) == 0.0


def test_antes_its_skull_then_covers_it_with_a_rose() -> None:
    random.seed(1)
    state = _state(3)
    assert bot.act(state.view(0), state.legal(0)) == "add:skull"
    state = _state(3, {0: "add:skull", 1: "add:rose", 2: "add:rose"})
    assert bot.act(state.view(0), state.legal(0)) == "add:rose"


def test_disagrees_when_the_dealer_must_reveal_its_skull() -> None:
    state = _state(3, {0: "add:rose", 1: "add:skull", 2: "add:rose"}, {0: "claim:3"})
    view = state.view(1)
    assert bot.dealer_odds(view) == 0.0
    assert bot.act(view, state.legal(1)) == "disagree"


def test_agrees_with_a_claim_the_dealer_covers_himself() -> None:
    state = _state(3, {0: "add:rose", 1: "add:skull", 2: "add:rose"}, {0: "claim:1"})
    view = state.view(1)  # its own skull on top: it cannot raise
    assert bot.dealer_odds(view) > 0.7
    assert bot.act(view, state.legal(1)) == "agree"


def test_raises_when_its_own_roses_cover_the_raise() -> None:
    state = _state(
        3,
        {0: "add:rose", 1: "add:rose", 2: "add:rose"},
        {0: "add:rose"},
        {1: "add:rose"},
        {2: "claim:1"},
    )
    action = bot.act(state.view(0), state.legal(0))
    assert action.startswith("raise:") and int(action[6:]) >= 2  # at least its two roses


def test_forced_raise_takes_the_smallest_step_and_gives_roses_first() -> None:
    assert bot.act({"phase": "raise"}, ["raise:3", "raise:4"]) == "raise:3"
    give = {"phase": "give", "hand": {"rose": 2, "skull": 1}}
    assert bot.act(give, ["give:rose", "give:skull"]) == "give:rose"
    give["hand"] = {"rose": 1, "skull": 1}
    assert bot.act(give, ["give:rose", "give:skull"]) == "give:skull"


def test_decisions_are_legal_and_fast() -> None:
    mean = mean_decision_seconds("skull-bank", bot.act, players=5, seeds=range(6))
    assert mean < 0.0005  # well under a millisecond per decision


def test_beats_random_players_clearly() -> None:
    rate = win_rate("skull-bank", bot.act, games=200, players=4, seed=1)
    assert rate > 0.6, f"won {rate:.0%} of 4-player games against three random bots"


def test_skull_chance_weighs_the_ante_and_what_was_revealed() -> None:
    fresh = [bot.skull_chance(0.6, 3, [0, 1, 2], at) for at in range(3)]
    assert fresh[0] > fresh[1] == fresh[2] and abs(sum(fresh) - 0.6) < 1e-9
    after = bot.skull_chance(0.6, 3, [0, 1], 1)  # the top (2) was a rose
    assert after > fresh[1]
    assert bot.skull_chance(0.0, 2, [0, 1], 0) == 0.0


def test_reveals_the_bill_least_likely_a_skull() -> None:
    state = _state(
        4,
        {0: "add:rose", 1: "add:rose", 2: "add:rose", 3: "add:rose"},
        {0: "add:rose"},
        {1: "add:rose"},
        {2: "add:rose"},
        {3: "add:rose"},
        {0: "claim:4"},
        {1: "agree"},
        {2: "disagree"},
        {3: "agree"},
    )
    view = state.view(0)
    assert view["phase"] == "showdown"
    choice = bot.act(view, state.legal(0))
    # a later bill of a row whose owner agreed (he wants the dealer to succeed), not an ante
    assert choice in ("reveal:1,1", "reveal:3,1"), choice
