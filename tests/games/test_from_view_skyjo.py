"""Skyjo's ``from_view``: a state rebuilt from one seat's view (search bots determinize with it)
shows that seat the same view, keeps the round's turn order and the scores, and draws every
card the seat cannot see (face-down cards, its own too, the draw pile, another seat's drawn
card) from the cards out of sight."""

from __future__ import annotations

from collections import Counter
from random import Random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import GameError, OptionError
from arena.games import get_game
from arena.games.skyjo import DECK, TURNS_PER_PLAYER_CAP, Cell, Phase, SkyjoState
from tests.games.conformance import packed, random_joint, wire
from tests.games.test_skyjo import accounted, new, play, reveal, stall

GAME = get_game("skyjo")


def rebuilt(state: SkyjoState, seat: int, rng: Random) -> SkyjoState:
    other = GAME.from_view(wire(state.view(seat)), seat, state.players, state.options, rng)
    assert isinstance(other, SkyjoState)
    return other


def check_rebuilt(state: SkyjoState, seat: int, other: SkyjoState) -> None:
    """What ``seat`` sees and what the rules derive from it are as in the true state."""
    assert packed(other.view(seat)) == packed(state.view(seat))
    assert other.to_act() == state.to_act() and other.is_over() == state.is_over()
    assert all(other.legal(s) == state.legal(s) for s in range(state.players))
    assert other.cells == state.cells and other.removed == state.removed
    assert (other.lap_left, other.turns, other.ender) == (state.lap_left, state.turns, state.ender)
    assert (other.totals, other.history) == (state.totals, state.history)
    assert accounted(other) == Counter(DECK)
    assert len(other.pile) == len(state.pile)
    assert (other.drawn is None) == (state.drawn is None)
    if state.current == seat:
        assert other.drawn == state.drawn
    if state.is_over():
        assert other.outcome() == state.outcome()


OPTIONS = st.fixed_dictionaries(
    {
        "columns": st.booleans(),
        "next_starter": st.sampled_from(["winner", "ender"]),
        "doubling": st.sampled_from(["unless-lowest", "manual"]),
        "discard_flip": st.sampled_from(["mandatory", "optional"]),
    }
)


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), players=st.integers(2, 8), options=OPTIONS)
def test_rebuilt_states_match_the_view(seed: int, players: int, options: dict) -> None:
    state = new(players, options, seed)
    rng = Random(seed)
    while True:
        if rng.random() < 0.1 or state.is_over():
            seat = rng.randrange(players)
            other = rebuilt(state, seat, rng)
            check_rebuilt(state, seat, other)
            if rng.random() < 0.1:
                while not other.is_over():
                    other.apply(random_joint(other, rng))
                assert other.history[: len(state.history)] == state.history
        if state.is_over():
            return
        state.apply(random_joint(state, rng))


@pytest.mark.parametrize("players", [2, 3, 5])
def test_the_round_runs_its_course_as_in_the_true_state(players: int) -> None:
    """Without column removal the legal actions never depend on hidden cards, so the same
    actions end the round (final lap, or the round cap) at the same step."""
    for seed in range(4):
        state = new(players, {"columns": False}, seed)
        rng = Random(seed)
        for _ in range(rng.randrange(1, 60)):
            state.apply(random_joint(state, rng))
            if state.is_over():
                break
        if state.is_over():
            continue
        other = rebuilt(state, rng.randrange(players), rng)
        round_ = state.round
        while True:
            joint = random_joint(state, rng)
            state.apply(joint)
            other.apply(joint)
            if state.round != round_ or state.is_over():
                break
            assert (other.phase, other.current) == (state.phase, state.current)
            assert other.round == round_
        # the round ended in both at once (only the scores, and so whether the game is over,
        # depend on the hidden cards)
        assert other.is_over() or other.round == round_ + 1


def test_a_stalled_round_hits_the_cap_as_in_the_true_state() -> None:
    state = new(2, {"columns": False}, seed=4)  # the drawn cards differ: no column removals
    rng = Random(4)
    state.apply(random_joint(state, rng))
    while state.turns < TURNS_PER_PLAYER_CAP * 2 - 3:
        play(state, stall(state, rng))
    other = rebuilt(state, 1, rng)
    check_rebuilt(state, 1, other)
    assert other.events == [] and not other.recording, "a rebuilt state records nothing"
    other.recording = True  # (to read the round's end in its log)
    while state.round == 1:
        (seat,) = state.to_act()
        action = stall(state, rng)
        state.apply({seat: action})
        other.apply({seat: action})
    assert other.round == 2 or other.is_over()
    assert [e["type"] for e in other.events].count("round-cap") == 1


def test_hidden_cards_are_drawn_the_seats_own_and_the_drawn_card_too() -> None:
    state = new(3, seed=21)
    reveal(state, "0,0+0,1", "0,0+0,1", "0,0+0,1")
    play(state, "draw")
    drawer = state.current
    watcher = (drawer + 1) % 3
    rng = Random(4)
    own_cards, drawn = set(), set()
    for _ in range(30):
        mine = rebuilt(state, drawer, rng)
        theirs = rebuilt(state, watcher, rng)
        check_rebuilt(state, drawer, mine)
        check_rebuilt(state, watcher, theirs)
        own_cards.add(tuple(mine.cards[drawer]))
        drawn.add(theirs.drawn)
    assert len(own_cards) > 20 and len(drawn) > 3
    again = [rebuilt(state, watcher, Random(7)).full() for _ in range(2)]
    assert again[0] == again[1], "the draw comes from the generator it is given"


def test_removed_columns_and_a_reshuffled_pile_are_rebuilt() -> None:
    state = new(8, seed=11)
    reveal(state, *["0,0+1,0"] * 8)
    rng = Random(2)
    while not state.pile_public:
        assert state.view(0)["pile_cards"] is None
        play(state, "draw")
        if state.drawn is not None and not state.pile_public:
            play(state, "swap:0,0")
    assert state.drawn is not None  # the draw that emptied the pile came from the new one
    known = sorted([*state.pile, state.drawn])
    for seat in range(8):
        assert state.view(seat)["pile_cards"] == known
        other = rebuilt(state, seat, rng)
        check_rebuilt(state, seat, other)
        assert other.pile_public
        pool = other.pile + ([other.drawn] if other.current != seat else [])
        assert sorted(pool) == sorted(state.pile + ([state.drawn] if state.current != seat else []))
    found = 0
    for seed in range(40):  # random games now and then complete a column
        removed = new(2, seed=seed)
        while not removed.is_over():
            removed.apply(random_joint(removed, rng))
            if any(removed.removed):
                other = rebuilt(removed, seed % 2, rng)
                check_rebuilt(removed, seed % 2, other)
                assert any(Cell.GONE in cells for cells in other.cells)
                found += 1
    assert found > 10


def test_the_next_round_starts_as_the_rules_say() -> None:
    for rule in ("winner", "ender"):
        state = new(3, {"next_starter": rule}, seed=8)
        rng = Random(8)
        while state.round == 1:
            state.apply(random_joint(state, rng))
        assert state.phase is Phase.REVEAL
        other = rebuilt(state, 1, rng)
        other.recording = True  # (to read who starts in its log)
        other.apply(random_joint(other, rng))
        assert other.current == state.starter
        assert [e for e in other.events if e["type"] == "starter"][-1]["reason"] == rule


def test_bad_views_are_a_game_error() -> None:
    state = new(3, seed=1)
    rng = Random(1)
    for _ in range(6):
        state.apply(random_joint(state, rng))
    view = wire(state.view(0))
    with pytest.raises(GameError, match="seat 1"):
        GAME.from_view(view, 1, 3, state.options, rng)
    with pytest.raises(GameError, match="options"):
        GAME.from_view(view, 0, 3, {"columns": False}, rng)
    with pytest.raises(OptionError):
        GAME.from_view(view, 0, 3, {"colour": "blue"}, rng)
    for key, value in [
        ("discard", view["discard"] + [12] * 11),
        ("draw_count", view["draw_count"] + 1),
        ("grids", view["grids"][:2]),
        ("phase", "napping"),
        ("totals", None),
    ]:
        with pytest.raises(GameError, match="not a skyjo view"):
            GAME.from_view({**view, key: value}, 0, 3, state.options, rng)
    with pytest.raises(GameError):
        GAME.from_view({}, 0, 3, state.options, rng)
