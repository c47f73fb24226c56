"""Scenario tests for every rule and decision of ``docs/games/skull-bank.md``, plus property tests.

Seat 0 deals first. Scenarios apply explicit actions; chance only enters through blind takes.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import IllegalAction, NotYourTurn
from arena.games import get_game, skull_bank
from arena.games.discs import SKULL
from arena.games.skull_bank import MAX_ROUNDS, BankState
from tests.conftest import long_run
from tests.games.discs_helpers import (
    check_deterministic,
    check_resample_after,
    check_resample_plays_on,
    eliminate,
    events,
    hold,
    packed,
    play,
    views,
)
from tests.games.discs_helpers import new as new_game
from tests.games.discs_helpers import put_down as ante

GAME = get_game("skull-bank")


def new(players: int = 4, seed: int = 0) -> BankState:
    state = new_game("skull-bank", players, seed)
    assert isinstance(state, BankState)
    return state


def answers(state: BankState) -> list[str | None]:
    return [entry["answer"] for entry in state.view(0)["seats"]]


# ----- ante, add or claim ------------------------------------------------------------------


def test_ante_is_simultaneous_and_hidden() -> None:
    state = new()
    assert state.phase == skull_bank.ANTE and state.to_act() == (0, 1, 2, 3)
    assert all(state.legal(s) == ["add:rose", "add:skull"] for s in range(4))
    with pytest.raises(NotYourTurn):
        state.apply({0: "add:rose"})
    other = new()
    ante(state, "rrrr")
    ante(other, "srrr")
    assert views(state, range(1, 4)) == views(other, range(1, 4))
    assert state.phase == skull_bank.ADD and state.to_act() == (0,)  # the dealer starts
    assert state.view(0)["row"] == ["rose"] and other.view(0)["row"] == ["skull"]


def test_add_or_claim_from_the_dealer_with_claim_bounds() -> None:
    state = new()
    ante(state, "rrrr")
    assert state.legal(0) == ["add:rose", "add:skull", "claim:1", "claim:2", "claim:3", "claim:4"]
    before = packed(state.full())
    for bad in ("claim:0", "claim:5", "raise:2", "agree"):
        with pytest.raises(IllegalAction):
            state.apply({0: bad})
    assert packed(state.full()) == before
    play(state, "0 add:skull")
    assert state.to_act() == (1,) and state.legal(1)[-1] == "claim:5"
    assert state.view(0)["row"] == ["rose", "skull"]
    assert state.view(2)["seats"][0]["placed"] == 2


def test_empty_hand_must_claim() -> None:
    state = new()
    hold(state, 0, 1, 0)
    ante(state, "rrrr")
    assert state.legal(0) == ["claim:1", "claim:2", "claim:3", "claim:4"]


def test_claimant_takes_the_button_and_answers_start_on_its_left() -> None:
    state = new()
    ante(state, "rrrr")
    play(state, "0 add:rose", "1 claim:2")
    assert state.phase == skull_bank.RESPOND and state.dealer == 1 and state.claim == 2
    assert state.to_act() == (2,)
    assert state.legal(2) == ["agree", "disagree", "raise:3", "raise:4", "raise:5"]
    assert state.view(3)["dealer"] == 1 and state.view(3)["claim"] == 2


def test_a_raise_takes_the_button_and_voids_earlier_answers() -> None:
    state = new()
    ante(state, "rrrr")
    play(state, "0 add:rose", "1 claim:2", "2 agree", "3 disagree")
    assert answers(state) == [None, None, "agree", "disagree"]
    play(state, "0 raise:4")
    assert state.dealer == 0 and state.claim == 4 and answers(state) == [None] * 4
    assert state.to_act() == (1,)  # the earlier claimant answers too
    play(state, "1 agree", "2 agree", "3 disagree")
    assert state.phase == skull_bank.SHOWDOWN and state.challenge is not None
    assert state.challenge.by == 0 and state.challenge.target == 4
    assert state.view(1)["log"][-6:] == [
        "0:raise:4",
        "1:agree",
        "2:agree",
        "3:disagree",
        "0:reveal:0:1:rose",
        "0:reveal:0:0:rose",
    ]


def test_all_agree_passes_the_button_left_with_a_forced_raise() -> None:
    state = new()
    ante(state, "rrrr")
    play(state, "0 add:rose", "1 claim:2", "2 agree", "3 agree", "0 agree")
    assert state.phase == skull_bank.RAISE and state.dealer == 2 and state.to_act() == (2,)
    assert state.legal(2) == ["raise:3", "raise:4", "raise:5"]  # must raise
    assert state.view(0)["log"][-1] == "2:button"
    play(state, "2 raise:3")
    assert state.to_act() == (3,)
    play(state, "3 agree", "0 agree")
    assert state.to_act() == (1,)  # the previous dealer answers too
    play(state, "1 disagree")
    assert state.phase == skull_bank.SHOWDOWN and state.challenge is not None
    assert state.challenge.by == 2


def test_a_claim_of_every_bill_is_shown_down_even_if_all_agree() -> None:
    state = new()
    ante(state, "rrrr")
    play(state, "0 claim:4", "1 agree", "2 agree", "3 agree")
    assert state.phase == skull_bank.SHOWDOWN
    assert state.view(1)["revealed"] == [[0, 0, "rose"]] and state.view(1)["left"] == 3
    play(state, "0 reveal:3,0", "0 reveal:1,0", "0 reveal:2,0")
    result = state.results[-1]
    assert result["success"] is True and result["losers"] == [] and result["revealed"] == 4
    assert state.round == 2 and state.phase == skull_bank.ANTE  # a round without losses counts
    assert state.dealer == 1  # success: the dealer's left


# ----- showdown -------------------------------------------------------------------------------


def test_showdown_reveals_all_own_bills_first_then_chosen_bills() -> None:
    state = new()
    ante(state, "rsrr")
    play(
        state,
        "0 add:rose",
        "1 add:rose",
        "2 add:rose",
        "3 add:rose",
        "0 claim:6",
        "1 disagree",
        "2 agree",
        "3 agree",
    )
    auto = events(state, "reveal")
    assert [(e["seat"], e["disc"], e["auto"]) for e in auto] == [(0, "rose", True)] * 2
    assert state.legal(0) == [
        "reveal:1,0",
        "reveal:1,1",
        "reveal:2,0",
        "reveal:2,1",
        "reveal:3,0",
        "reveal:3,1",
    ]
    play(state, "0 reveal:2,1", "0 reveal:2,0")
    assert state.legal(0) == ["reveal:1,0", "reveal:1,1", "reveal:3,0", "reveal:3,1"]
    play(state, "0 reveal:3,0", "0 reveal:3,1")  # any order: the bottom first here
    result = state.results[-1]
    assert result["success"] is True and result["revealed"] == 6 and result["losers"] == [1]
    assert state.dealer == 1


def test_any_bill_of_any_other_row_in_any_order() -> None:
    state = new()
    ante(state, "rsrr")  # seat 1's skull at the bottom
    play(
        state,
        "0 add:rose",
        "1 add:rose",
        "2 add:rose",
        "3 add:rose",
        "0 claim:5",
        "1 disagree",
        "2 disagree",
        "3 agree",
    )
    view = state.view(3)
    assert view["face_down"] == [[], [0, 1], [0, 1], [0, 1]]
    assert view["revealed"] == [[0, 1, "rose"], [0, 0, "rose"]]
    play(state, "0 reveal:2,0")  # a bottom bill, its top still down
    assert state.view(1)["face_down"] == [[], [0, 1], [1], [0, 1]]
    assert "reveal:2,1" in state.legal(0) and "reveal:2,0" not in state.legal(0)
    play(state, "0 reveal:1,0")  # seat 1's skull, under its rose
    assert events(state, "reveal")[-1] == {
        "type": "reveal",
        "by": 0,
        "seat": 1,
        "disc": "skull",
        "auto": False,
        "position": 0,
    }
    result = state.results[-1]
    assert result["success"] is False and result["skull"] == 1 and result["revealed"] == 4


def test_reveals_name_a_position_the_row_holds_face_down() -> None:
    state = new()
    ante(state, "rrrr")
    play(state, "0 claim:2", "1 disagree", "2 agree", "3 agree")
    before = packed(state.full())
    for bad in ("reveal:1,1", "reveal:0,0", "reveal:1", "reveal:4,0", "reveal:1,-1"):
        with pytest.raises(IllegalAction):
            play(state, f"0 {bad}")
    assert packed(state.full()) == before


def test_dealer_stops_at_the_first_skull_of_his_own_row() -> None:
    state = new()
    ante(state, "srrr")
    play(
        state,
        "0 add:rose",
        "1 add:rose",
        "2 add:rose",
        "3 add:rose",
        "0 claim:5",
        "1 disagree",
        "2 disagree",
        "3 disagree",
    )
    assert [e["disc"] for e in events(state, "reveal")] == ["rose", "skull"]
    assert state.phase == skull_bank.GIVE and state.to_act() == (0,)  # the dealer, his own skull
    assert state.legal(0) == ["give:rose", "give:skull"]


# ----- settlement -------------------------------------------------------------------------


def _success_with_two_disagreers(seed: int) -> BankState:
    state = new(seed=seed)
    ante(state, "rrrr")
    play(state, "0 claim:3", "1 disagree", "2 disagree", "3 agree", "0 reveal:1,0", "0 reveal:2,0")
    return state


def test_success_every_disagreer_loses_a_bill_drawn_blind_by_the_dealer() -> None:
    state = _success_with_two_disagreers(0)
    takes = events(state, "take")
    assert [(e["seat"], e["by"]) for e in takes] == [(1, 0), (2, 0)]
    assert [kit.owned for kit in state.kits] == [4, 3, 3, 4]
    result = state.results[-1]
    assert result["agreed"] == [3] and result["disagreed"] == [1, 2]
    assert result["losers"] == [1, 2] and result["eliminated"] == []
    assert result["next_dealer"] == 1 and state.dealer == 1


def test_only_the_loser_learns_which_bill_was_drawn() -> None:
    by_draw: dict[str, BankState] = {}
    for seed in range(100):
        state = _success_with_two_disagreers(seed)
        draw = events(state, "take")[0]["disc"]
        assert state.view(1)["lost"] == [draw]
        by_draw.setdefault(draw, state)
    rose, skull = by_draw["rose"], by_draw["skull"]
    assert views(rose, [0, 3]) == views(skull, [0, 3])


def test_failure_dealer_and_agreers_lose_drawn_blind_by_the_skull_owner() -> None:
    state = new()
    ante(state, "rsrr")
    play(state, "0 claim:3", "1 disagree", "2 agree", "3 agree", "0 reveal:1,0")
    takes = events(state, "take")
    assert [(e["seat"], e["by"]) for e in takes] == [(0, 1), (2, 1), (3, 1)]
    result = state.results[-1]
    assert result["success"] is False and result["skull"] == 1
    assert result["losers"] == [0, 2, 3]
    assert state.dealer == 1  # the skull's owner deals next
    assert state.kits[1].owned == 4 and state.view(1)["lost"] == []


def test_a_skull_owner_who_agreed_chooses_his_own_bill_unseen() -> None:
    state = new()
    ante(state, "rrsr")
    play(state, "0 claim:3", "1 agree", "2 agree", "3 disagree", "0 reveal:2,0")
    assert [(e["seat"], e["by"]) for e in events(state, "take")] == [(0, 2), (1, 2)]
    assert state.phase == skull_bank.GIVE and state.to_act() == (2,)
    assert state.legal(2) == ["give:rose", "give:skull"] and state.legal(0) == []
    roses, skulls = state.clone(), state.clone()
    assert isinstance(roses, BankState) and isinstance(skulls, BankState)
    roses.apply({2: "give:rose"})
    skulls.apply({2: "give:skull"})
    assert views(roses, [0, 1, 3]) == views(skulls, [0, 1, 3])
    assert roses.view(2)["lost"] == ["rose"] and skulls.view(2)["hand"]["skull"] == 0
    assert roses.results[-1]["losers"] == [0, 1, 2] and roses.dealer == 2


def test_own_skull_the_dealer_chooses_and_the_button_goes_left() -> None:
    state = new()
    ante(state, "srrr")
    play(state, "0 claim:2", "1 agree", "2 disagree", "3 agree")
    assert [(e["seat"], e["by"]) for e in events(state, "take")] == [(1, 0), (3, 0)]
    play(state, "0 give:skull")
    assert state.dealer == 1 and state.results[-1]["losers"] == [0, 1, 3]
    assert state.kits[0].lost == [SKULL]


# ----- elimination, next dealer, end ----------------------------------------------------------


def test_same_settlement_eliminations_share_a_place() -> None:
    state = new()
    hold(state, 1, 1, 0)
    hold(state, 3, 1, 0)
    ante(state, "rrsr")
    play(state, "0 claim:2", "1 agree", "2 disagree", "3 agree", "0 reveal:2,0")
    assert state.results[-1]["eliminated"] == [1, 3] and state.kits[1].out == 1
    assert state.dealer == 2 and state.to_act() == (0, 2)  # eliminated seats are skipped
    hold(state, 0, 1, 0)
    ante(state, "rs")
    play(state, "2 claim:1", "0 agree")  # all agreed: the button passes to seat 0
    assert state.phase == skull_bank.RAISE and state.legal(0) == ["raise:2"]
    play(state, "0 raise:2", "2 disagree", "0 reveal:2,0")
    assert state.is_over() and state.winner == 2
    assert state.outcome().places == (2, 3, 1, 3)
    assert state.results[-1]["next_dealer"] is None


def test_an_eliminated_skull_owner_passes_the_deal_to_his_left() -> None:
    state = new()
    hold(state, 2, 0, 1)
    ante(state, "rrsr")
    play(state, "0 claim:2", "1 agree", "2 agree", "3 disagree", "0 reveal:2,0")
    give = events(state, "give")
    assert give == [{"type": "give", "seat": 2, "disc": "skull", "chosen": False}]
    assert state.kits[2].out == 1 and state.dealer == 3


def test_everyone_eliminated_in_one_settlement_shares_first_place() -> None:
    state = new(players=3)
    for seat in range(3):
        hold(state, seat, 1 if seat < 2 else 0, 0 if seat < 2 else 1)
    ante(state, "rrs")
    play(state, "0 claim:3", "1 agree", "2 agree", "0 reveal:1,0", "0 reveal:2,0")
    assert state.is_over() and state.winner is None
    assert state.outcome().places == (1, 1, 1)
    assert events(state, "end")[0]["why"].startswith("every remaining player")


def test_round_cap_ends_the_game_and_places_by_bills() -> None:
    state = new()
    eliminate(state, 1)
    hold(state, 3, 2, 0)
    state.round = MAX_ROUNDS
    ante(state, "rrr")
    play(state, "0 claim:3", "2 agree", "3 agree", "0 reveal:2,0", "0 reveal:3,0")
    assert state.is_over() and state.winner is None and state.round == MAX_ROUNDS
    outcome = state.outcome()
    assert outcome.places == (1, 4, 1, 3) and outcome.scores == (4.0, 0.0, 4.0, 2.0)


# ----- information, events, bound -------------------------------------------------------------


def test_view_holds_the_whole_information_set() -> None:
    state = _success_with_two_disagreers(2)
    ante(state, "rrrr")
    view = state.view(1)
    assert set(view) == {
        "game",
        "seat",
        "players",
        "round",
        "phase",
        "to_act",
        "dealer",
        "claim",
        "hand",
        "row",
        "lost",
        "seats",
        "revealed",
        "left",
        "log",
        "results",
        "winner",
        "face_down",
        "max_rounds",
    }
    assert view["phase"] == "add" and view["dealer"] == 1 and view["to_act"] == [1]
    assert set(view["seats"][0]) == {"owned", "in_hand", "placed", "eliminated", "answer"}
    assert view["results"][0]["losers"] == [1, 2]


def test_resample_keeps_what_is_known() -> None:
    state = new()
    ante(state, "rsrr")
    play(state, "0 claim:2", "1 disagree", "2 agree", "3 agree", "0 reveal:1,0")
    rng = random.Random(3)
    for _ in range(40):
        other = state.resample(0, rng)
        assert packed(other.view(0)) == packed(state.view(0))
        assert other.kits[1].hand == [3, 1]  # its skull was just revealed
    check_resample_plays_on(state, rng)


def test_events_format_as_readable_lines() -> None:
    state = _success_with_two_disagreers(0)
    lines = [GAME.format_event(e) for e in state.events]
    assert lines[0] == "round 1: dealer is seat 0"
    assert "seat 0 claims 3" in lines and "seat 1 disagrees" in lines
    assert all("=" not in line for line in lines)


def test_max_steps_bound() -> None:
    assert GAME.max_steps(3, {}) == MAX_ROUNDS * 59
    assert GAME.max_steps(6, {}) == MAX_ROUNDS * 188


# ----- properties ---------------------------------------------------------------------------


@settings(max_examples=30)
@given(players=st.integers(3, 6), seed=st.integers(0, 2**32), bot_seed=st.integers(0, 2**32))
def test_property_conservation_determinism_termination(
    players: int, seed: int, bot_seed: int
) -> None:
    one = check_deterministic("skull-bank", players, seed, bot_seed)
    assert one.round <= MAX_ROUNDS
    places = one.outcome().places
    if one.winner is not None:
        assert one.active == (one.winner,) and places[one.winner] == 1
    lost = sum(len(kit.lost) for kit in one.kits)
    assert lost == sum(len(r["losers"]) for r in one.results)


@pytest.mark.slow
@long_run(40)
@given(players=st.integers(3, 6), seed=st.integers(0, 2**32), cut=st.integers(0, 150))
def test_property_resampled_states_are_consistent(players: int, seed: int, cut: int) -> None:
    check_resample_after("skull-bank", players, seed, cut)
