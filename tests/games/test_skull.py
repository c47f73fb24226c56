"""Scenario tests for every rule and edge case of ``docs/games/skull.md``, plus property tests.

Scenarios apply explicit actions (chance only enters through blind random takes) and, where a
position is long to reach, adjust a player's discs directly before the round starts.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import IllegalAction, NotYourTurn
from arena.games import get_game, skull
from arena.games.discs import GOOD, MOVES, SKULL, parse_move
from arena.games.skull import SkullState
from tests.conftest import long_run
from tests.games.discs_helpers import (
    check_deterministic,
    check_resample_after,
    eliminate,
    events,
    hold,
    packed,
    play,
    views,
)
from tests.games.discs_helpers import new as new_game
from tests.games.discs_helpers import put_down as setup

GAME = get_game("skull")


def new(players: int = 4, seed: int = 0) -> SkullState:
    state = new_game("skull", players, seed)
    assert isinstance(state, SkullState)
    return state


# ----- setup -----------------------------------------------------------------------------------


def test_setup_is_simultaneous_and_comes_first() -> None:
    state = new()
    assert state.phase == skull.SETUP
    assert state.to_act() == (0, 1, 2, 3)
    for seat in range(4):
        assert state.legal(seat) == ["place:flower", "place:skull"]  # no bid before setup
    with pytest.raises(NotYourTurn):
        state.apply({0: "place:flower"})
    setup(state, "fsff")
    assert state.phase == skull.TURNS and state.to_act() == (0,)
    assert [kit.pile for kit in state.kits] == [[GOOD], [SKULL], [GOOD], [GOOD]]
    assert state.view(1)["log"] == ["0:place", "1:place", "2:place", "3:place"]


def test_setup_choices_are_hidden_from_the_others() -> None:
    one, two = new(), new()
    setup(one, "ffff")
    setup(two, "sfff")
    assert views(one, range(1, 4)) == views(two, range(1, 4))
    assert one.view(0)["stack"] == ["flower"] and two.view(0)["stack"] == ["skull"]
    assert two.view(0)["hand"] == {"flower": 3, "skull": 0}


# ----- turns and bids --------------------------------------------------------------------------


def test_turn_offers_place_or_bid_up_to_the_discs_on_the_mats() -> None:
    state = new()
    setup(state, "ffff")
    assert state.legal(0) == ["place:flower", "place:skull", "bid:1", "bid:2", "bid:3", "bid:4"]
    assert state.legal(1) == []
    before = packed(state.full())
    for bad in ("bid:0", "bid:5"):
        with pytest.raises(IllegalAction):
            state.apply({0: bad})
    assert packed(state.full()) == before


def test_place_goes_on_top_and_the_turn_moves_clockwise() -> None:
    state = new()
    setup(state, "ffff")
    play(state, "0 place:skull", "1 place:flower")
    assert state.to_act() == (2,)
    assert state.view(0)["stack"] == ["flower", "skull"]
    assert state.view(3)["seats"][0] == {
        "owned": 4,
        "in_hand": 2,
        "placed": 2,
        "eliminated": False,
        "successes": 0,
        "passed": False,
    }
    assert state.legal(2)[-1] == "bid:6"


def test_empty_hand_must_bid_and_one_disc_plays_normally() -> None:
    state = new()
    hold(state, 0, 1, 0)  # one disc left
    setup(state, "ffff")
    assert state.view(0)["hand"] == {"flower": 0, "skull": 0}
    assert state.legal(0) == ["bid:1", "bid:2", "bid:3", "bid:4"]
    assert state.view(1)["seats"][0]["owned"] == 1


def test_bid_equal_to_the_discs_on_the_mats_ends_the_auction_at_once() -> None:
    state = new()
    setup(state, "ffff")
    play(state, "0 bid:4")
    assert state.phase == skull.CHALLENGE and state.to_act() == (0,)
    view = state.view(2)
    assert view["challenger"] == 0 and view["bid"] == 4
    assert view["flips"] == [[0, "flower"]] and view["left"] == 3
    assert state.legal(0) == ["flip:1", "flip:2", "flip:3"]


def test_auction_raises_passes_and_ends_when_all_but_one_passed() -> None:
    state = new()
    setup(state, "ffff")
    play(state, "0 place:flower", "1 bid:2")
    assert state.phase == skull.AUCTION and state.to_act() == (2,)
    assert state.legal(2) == ["pass", "bid:3", "bid:4", "bid:5"]  # no more placing
    play(state, "2 pass", "3 bid:3", "0 pass")
    assert state.to_act() == (1,)  # 2 passed and is skipped
    play(state, "1 bid:4")
    assert state.to_act() == (3,)  # 2 and 0 skipped
    assert [s["passed"] for s in state.view(3)["seats"]] == [True, False, True, False]
    play(state, "3 pass")
    assert state.phase == skull.CHALLENGE
    assert state.challenge is not None and state.challenge.by == 1
    assert state.challenge.target == 4
    assert state.view(0)["log"][5:] == [
        "1:bid:2",
        "2:pass",
        "3:bid:3",
        "0:pass",
        "1:bid:4",
        "3:pass",
        "1:flip:1:flower",
    ]


# ----- the challenge ------------------------------------------------------------------------


def test_own_stack_flipped_automatically_only_as_far_as_needed() -> None:
    state = new()
    setup(state, "ffff")
    play(
        state,
        "0 place:flower",
        "1 place:flower",
        "2 place:flower",
        "3 place:flower",
        "0 place:flower",
        "1 bid:2",
    )
    assert state.phase == skull.AUCTION
    play(state, "2 pass", "3 pass", "0 pass")
    flips = events(state, "flip")
    assert [(e["seat"], e["auto"]) for e in flips] == [(1, True), (1, True)]
    assert state.successes == [0, 1, 0, 0]
    result = state.results[-1]
    assert result == {
        "round": 1,
        "challenger": 1,
        "bid": 2,
        "flipped": 2,
        "success": True,
        "skull": None,
        "lost": None,
        "eliminated": False,
        "first": 1,
    }
    assert state.phase == skull.SETUP and state.first == 1 and state.round == 2
    assert all(kit.hand == [3, 1] and not kit.pile for kit in state.kits)


def test_own_stack_top_first_stops_at_own_skull_then_discard_is_chosen_and_hidden() -> None:
    state = new()
    setup(state, "ffff")
    play(
        state,
        "0 place:skull",
        "1 place:flower",
        "2 place:flower",
        "3 place:flower",
        "0 place:flower",
        "1 place:flower",
    )
    # seat 0's stack bottom->top: flower, skull, flower
    play(state, "2 place:flower", "3 place:flower", "0 bid:3", "1 pass", "2 pass", "3 pass")
    assert [e["disc"] for e in events(state, "flip")] == ["flower", "skull"]
    assert state.phase == skull.DISCARD and state.to_act() == (0,)
    assert state.legal(0) == ["discard:flower", "discard:skull"]
    kept, dropped = state.clone(), state.clone()
    assert isinstance(kept, SkullState) and isinstance(dropped, SkullState)
    kept.apply({0: "discard:flower"})
    dropped.apply({0: "discard:skull"})
    assert views(kept, range(1, 4)) == views(dropped, range(1, 4))
    assert kept.view(0)["lost"] == ["flower"] and dropped.view(0)["lost"] == ["skull"]
    assert kept.view(1)["seats"][0]["owned"] == 3
    assert kept.first == 0 and kept.phase == skull.SETUP  # challenger still in: starts
    assert kept.results[-1]["skull"] == 0 and kept.results[-1]["lost"] == 0


def test_flips_of_others_are_decisions_top_disc_of_any_stack() -> None:
    state = new()
    setup(state, "ffsf")
    play(
        state,
        "0 place:flower",
        "1 place:skull",
        "2 place:flower",
        "3 bid:5",
        "0 pass",
        "1 pass",
        "2 pass",
    )
    assert state.view(0)["flips"] == [[3, "flower"]]
    assert state.legal(3) == ["flip:0", "flip:1", "flip:2"]
    play(state, "3 flip:0", "3 flip:0")  # seat 0's two flowers, top first
    assert state.legal(3) == ["flip:1", "flip:2"]  # no face-down disc left on stack 0
    play(state, "3 flip:2")  # top of seat 2's stack is a flower (the skull is below)
    assert state.view(1)["left"] == 1
    play(state, "3 flip:1")  # seat 1's top is the skull
    assert state.results[-1]["skull"] == 1 and state.results[-1]["flipped"] == 5
    take = events(state, "take")
    assert len(take) == 1 and take[0]["seat"] == 3 and take[0]["by"] == 1


def _fail_on_others_skull(seed: int) -> SkullState:
    state = new(seed=seed)
    setup(state, "ffsf")
    play(state, "0 bid:2", "1 pass", "2 pass", "3 pass", "0 flip:2")
    return state


def test_other_skull_costs_a_blind_random_disc_only_the_challenger_learns() -> None:
    taken = {}
    for seed in range(200):
        state = _fail_on_others_skull(seed)
        (event,) = events(state, "take")
        taken.setdefault(event["disc"], []).append(state)
        assert state.view(0)["lost"] == [event["disc"]]
        assert state.kits[0].owned == 3 and state.first == 0
    assert 25 <= len(taken["skull"]) <= 80  # one disc in four, drawn by the game's generator
    flower, skull = taken["flower"][0], taken["skull"][0]
    assert views(flower, range(1, 4)) == views(skull, range(1, 4))
    assert flower.view(0)["hand"] != skull.view(0)["hand"]
    assert flower.view(2)["log"] == [] and flower.view(2)["round"] == 2
    assert flower.results[-1]["lost"] == 0 and flower.results[-1]["skull"] == 2


# ----- elimination and the next first player ----------------------------------------------


def test_challenger_eliminated_by_another_skull_hands_the_start_to_its_owner() -> None:
    state = new()
    hold(state, 0, 1, 0)
    setup(state, "ffsf")
    play(state, "0 bid:2", "1 pass", "2 pass", "3 pass", "0 flip:2")
    assert state.kits[0].out == 1
    assert state.phase == skull.SETUP and state.first == 2 and state.round == 2
    assert state.to_act() == (1, 2, 3)
    assert state.view(1)["seats"][0]["eliminated"] is True
    assert state.results[-1]["eliminated"] is True and state.results[-1]["first"] == 2
    setup(state, "fff")
    assert state.to_act() == (2,)
    play(state, "2 place:flower", "3 place:flower")
    assert state.to_act() == (1,)  # seat 0 is skipped
    play(state, "1 bid:2")
    assert state.to_act() == (2,)
    assert "flip:0" not in state.legal(2) and state.legal(0) == []


def test_own_skull_elimination_lets_the_challenger_choose_the_first_player() -> None:
    state = new()
    hold(state, 0, 0, 1)
    setup(state, "sfff")
    play(state, "0 bid:1", "1 pass", "2 pass", "3 pass")
    assert state.kits[0].out == 1 and state.kits[0].lost[-1] == SKULL
    assert state.phase == skull.FIRST and state.to_act() == (0,)
    assert state.legal(0) == ["first:1", "first:2", "first:3"]
    assert state.legal(1) == []
    play(state, "0 first:3")
    assert state.first == 3 and state.phase == skull.SETUP and state.to_act() == (1, 2, 3)
    assert state.results[-1]["first"] == 3
    setup(state, "fff")
    assert state.to_act() == (3,)


def test_second_success_wins() -> None:
    state = new()
    state.successes[2] = 1
    setup(state, "ffff")
    play(state, "0 place:flower", "1 place:flower", "2 bid:1", "3 pass", "0 pass", "1 pass")
    assert state.is_over() and state.winner == 2 and state.phase == skull.OVER
    assert state.to_act() == () and all(state.legal(s) == [] for s in range(4))
    outcome = state.outcome()
    assert outcome.places == (2, 2, 1, 2) and outcome.scores == (0.0, 0.0, 1.0, 0.0)
    with pytest.raises(IllegalAction):
        state.apply({2: "place:flower"})


def test_last_player_standing_wins_and_placing_orders_the_eliminated() -> None:
    state = new(players=3)
    eliminate(state, 1)
    state.round = 4
    hold(state, 0, 1, 0)
    setup(state, "fs")
    play(state, "0 bid:2", "0 flip:2")  # 2 discs down: the bid ends the auction at once
    assert state.is_over() and state.winner == 2
    assert state.outcome().places == (2, 3, 1)
    assert state.results[-1]["first"] is None


def test_placing_ties_share_a_place() -> None:
    state = new(players=6)
    state.winner, state.phase = 0, skull.OVER
    state.successes = [2, 1, 1, 1, 0, 0]
    state.kits[3].hand = [2, 1]  # same successes, fewer discs
    state.kits[4].hand, state.kits[4].out = [0, 0], 3
    state.kits[5].hand, state.kits[5].out = [0, 0], 2
    assert state.outcome().places == (1, 2, 2, 4, 5, 6)
    state.kits[5].out = 3  # impossible in Skull, but keys tie
    assert state.outcome().places == (1, 2, 2, 4, 5, 5)


# ----- information -------------------------------------------------------------------------


def test_view_holds_the_whole_information_set() -> None:
    state = _fail_on_others_skull(1)
    setup(state, "ffff")
    view = state.view(0)
    assert set(view) == {
        "game",
        "seat",
        "players",
        "round",
        "phase",
        "to_act",
        "first",
        "hand",
        "stack",
        "lost",
        "seats",
        "bid",
        "bidder",
        "challenger",
        "flips",
        "left",
        "log",
        "results",
        "winner",
    }
    assert view["phase"] == "turns" and view["first"] == 0 and view["to_act"] == [0]
    assert view["round"] == 2 and view["bid"] == 0 and view["bidder"] is None
    assert view["results"][0]["challenger"] == 0 and view["results"][0]["success"] is False


def test_resample_keeps_what_is_known() -> None:
    state = _fail_on_others_skull(0)
    rng = random.Random(5)
    for _ in range(50):
        other = state.resample(1, rng)
        assert packed(other.view(1)) == packed(state.view(1))
        kit = other.kits[0]
        assert kit.owned == 3 and sorted(
            kit.lost + [GOOD] * kit.hand[GOOD] + [SKULL] * kit.hand[SKULL]
        ) == [0, 0, 0, 1]
        assert other.kits[2].hand == [3, 1]  # its skull was just shown


def test_events_format_as_readable_lines() -> None:
    state = _fail_on_others_skull(3)
    lines = [GAME.format_event(e) for e in state.events]
    assert lines[0] == "round 1: first player is seat 0"
    assert "seat 0 flips seat 2's disc: skull" in lines
    assert all("=" not in line for line in lines)


def test_max_steps_bound() -> None:
    assert GAME.max_steps(3, {}) == 600
    assert GAME.max_steps(6, {}) == 2280


# ----- properties ---------------------------------------------------------------------------


@settings(max_examples=30)
@given(players=st.integers(3, 6), seed=st.integers(0, 2**32), bot_seed=st.integers(0, 2**32))
def test_property_conservation_determinism_termination(
    players: int, seed: int, bot_seed: int
) -> None:
    one = check_deterministic("skull", players, seed, bot_seed)
    assert one.round <= 5 * players
    winner = one.winner
    assert winner is not None and one.outcome().places[winner] == 1
    assert one.successes[winner] == 2 or one.active == (winner,)


@pytest.mark.slow
@long_run(40)
@given(players=st.integers(3, 6), seed=st.integers(0, 2**32), cut=st.integers(0, 200))
def test_property_resampled_states_are_consistent(players: int, seed: int, cut: int) -> None:
    check_resample_after("skull", players, seed, cut)


def test_every_disc_action_parses_to_its_verb_and_argument() -> None:
    """``parse_move`` (the disc games read each action once): a disc's name becomes its kind,
    numbers numbers, ``owner,position`` a pair; the answer is kept in ``MOVES``."""
    expected = {
        "place:flower": ("place", GOOD),
        "add:rose": ("add", GOOD),
        "discard:skull": ("discard", SKULL),
        "give:rose": ("give", GOOD),
        "bid:12": ("bid", 12),
        "flip:0": ("flip", 0),
        "first:5": ("first", 5),
        "reveal:3,1": ("reveal", (3, 1)),
        "pass": ("pass", None),
        "agree": ("agree", None),
    }
    for action, move in expected.items():
        assert parse_move(action) == move
        assert MOVES[action] == move
