"""Skull King's ``from_view``: a state rebuilt from one seat's view (search bots determinize
with it) shows that seat the same view, keeps the round's tricks and scores, deals the unseen
cards at random without breaking revealed voids, and plays on to a right outcome."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import GameError, PlayerCountError
from arena.games import get_game
from arena.games.skull_king import BIDDING, SkullKingState
from arena.games.skull_king_cards import hand_card
from tests.games.conformance import packed, random_joint, wire
from tests.games.test_skull_king import bid, play, start

GAME = get_game("skull-king")


def rebuilt(state: SkullKingState, seat: int, rng: random.Random) -> SkullKingState:
    other = GAME.from_view(wire(state.view(seat)), seat, state.players, state.options, rng)
    assert isinstance(other, SkullKingState)
    return other


def check_rebuilt(state: SkullKingState, seat: int, other: SkullKingState) -> None:
    """What ``seat`` sees and what the rules derive from it are as in the true state."""
    assert packed(other.view(seat)) == packed(state.view(seat))
    assert other.to_act() == state.to_act() and other.is_over() == state.is_over()
    assert other.legal(seat) == state.legal(seat)
    if state.phase == BIDDING:
        assert all(other.legal(s) == state.legal(s) for s in state.seats)
    assert (other.won, other.bonus, other.alliances) == (state.won, state.bonus, state.alliances)
    assert (other.scores, other.round_scores) == (state.scores, state.round_scores)
    assert [len(hand) for hand in other.hands] == [len(hand) for hand in state.hands]
    played = [hand_card(card) for trick in other._round_plays() for _, card in trick]
    cards = Counter(played) + Counter(other.undealt)
    for hand in other.hands:
        cards.update(hand)
    assert cards == Counter(other.deck), "hands, played and undealt cards make the deck"
    voids = state.voids()
    for s, hand in enumerate(other.hands):
        assert not any(card.suit in voids[s] for card in hand), f"seat {s} got a void suit"
    if state.bids is not None and not state.is_over():
        assert other.round_points() == state.round_points()


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**63 - 1),
    players=st.integers(2, 8),
    advanced=st.booleans(),
    scoring=st.sampled_from(["standard", "rascal"]),
)
def test_rebuilt_states_match_the_view(
    seed: int, players: int, advanced: bool, scoring: str
) -> None:
    state = GAME.new(players, seed, {"advanced": advanced, "scoring": scoring})
    assert isinstance(state, SkullKingState)
    rng = random.Random(seed)
    while True:
        if rng.random() < 0.3 or state.is_over():
            seat = rng.randrange(players)
            other = rebuilt(state, seat, rng)
            check_rebuilt(state, seat, other)
            if rng.random() < 0.1:
                while not other.is_over():
                    other.apply(random_joint(other, rng))
                assert other.round_scores[: len(state.round_scores)] == state.round_scores
        if state.is_over():
            assert rebuilt(state, 0, rng).outcome() == state.outcome()
            return
        state.apply(random_joint(state, rng))


def test_the_last_play_scores_the_game_as_the_true_state_does() -> None:
    for seed in range(6):
        state = GAME.new(3 + seed % 4, seed, {"advanced": seed % 2 == 1})
        assert isinstance(state, SkullKingState)
        rng = random.Random(seed)
        while not (state.round == 10 and sum(len(hand) for hand in state.hands) == 1):
            state.apply(random_joint(state, rng))  # until the last card of the game is to play
        seat = state.turn
        other = rebuilt(state, seat, rng)
        last = {seat: state.legal(seat)[0]}
        state.apply(last)
        other.apply(last)
        assert other.is_over() and other.outcome() == state.outcome()


def test_unseen_cards_are_drawn_anew_and_voids_kept() -> None:
    state = start([["B2", "P6", "P7"], ["Y9", "Y11", "P1"], ["Y3", "G4", "G5"]], round_=3)
    bid(state, 1, 1, 1)
    play(state, "Y3", "P6")  # seat 0 shows it has no yellow
    rng = random.Random(3)
    seen = set()
    for _ in range(40):
        other = rebuilt(state, 1, rng)
        check_rebuilt(state, 1, other)
        assert other.hands[1] == state.hands[1]
        seen.add(tuple(card.name for card in [*other.hands[0], *other.hands[2]]))
        assert other.events == [] and not other.recording, "a rebuilt state records nothing"
    assert len(seen) > 30, "the other hands are drawn, not copied"
    again = [rebuilt(state, 1, random.Random(7)).full() for _ in range(2)]
    assert again[0] == again[1], "the draw comes from the generator it is given"


def test_later_rounds_are_dealt_by_a_drawn_generator() -> None:
    state = start([["G1"], ["G2"]], round_=1)
    bid(state, 0, 0)
    rng = random.Random(5)
    nexts = set()
    for _ in range(10):
        other = rebuilt(state, 0, rng)
        other.apply({0: "play:G1"})
        other.apply({1: other.legal(1)[0]})  # seat 1's card is drawn
        assert other.round == 2
        nexts.add(tuple(card.name for card in other.hands[0]))
    assert len(nexts) > 5


def test_bad_views_are_a_game_error() -> None:
    state = GAME.new(3, 1, {"advanced": True})
    rng = random.Random(1)
    for _ in range(5):
        state.apply(random_joint(state, rng))
    view = wire(state.view(0))
    options = state.options
    with pytest.raises(GameError, match="seat 1"):
        GAME.from_view(view, 1, 3, options, rng)
    with pytest.raises(GameError, match="options"):
        GAME.from_view(view, 0, 3, {"advanced": False}, rng)
    with pytest.raises(PlayerCountError):
        GAME.from_view(view, 0, 9, options, rng)
    for key, value in [
        ("hand", view["hand"] + ["SK", "SK"]),
        ("hand", ["NOPE"] * len(view["hand"])),
        ("won", [9, 9, 9]),
        ("phase", "napping"),
        ("scores", "many"),
    ]:
        with pytest.raises(GameError, match="not a skull-king view"):
            GAME.from_view({**view, key: value}, 0, 3, options, rng)
    if view["tricks"]:
        trick = {**view["tricks"][0], "next": (view["tricks"][0]["next"] + 1) % 3}
        with pytest.raises(GameError, match="not taken as shown"):
            GAME.from_view({**view, "tricks": [trick, *view["tricks"][1:]]}, 0, 3, options, rng)
    with pytest.raises(GameError):
        GAME.from_view({}, 0, 3, options, rng)
