"""``Game.from_view`` of the disc games: a state rebuilt from one seat's view looks the same to
that seat, acts the same, plays on without error, and really draws what the view hides."""

from __future__ import annotations

import random

import pytest

from arena.games import get_game
from arena.games.discs import SKULL, DiscState
from tests.games.discs_helpers import check_conservation, new

#: Verbs whose legality depends on which discs a player holds (hidden from the others).
KIND_VERBS = ("place:", "add:", "discard:", "give:")


def random_positions(game: str, players: int, seed: int) -> list[DiscState]:
    """Clones of one random game at a few random steps (the end included)."""
    state = new(game, players, seed)
    rng = random.Random(seed)
    cut_every = rng.randrange(3, 12)
    snapshots = []
    while not state.is_over():
        if state.steps % cut_every == 0:
            snapshots.append(state.clone())
        state.apply({s: rng.choice(state.legal(s)) for s in state.to_act()})
    snapshots.append(state)
    return snapshots


def check_rebuilt(state: DiscState, seat: int, rng: random.Random) -> DiscState:
    game = get_game(state.GAME)
    view = state.view(seat)
    other = game.from_view(view, seat, state.players, state.options, rng)
    assert isinstance(other, DiscState)
    assert other.view(seat) == view
    assert other.to_act() == state.to_act() and other.is_over() == state.is_over()
    for acting in state.to_act():
        if acting == seat:
            assert other.legal(acting) == state.legal(acting)
        else:  # what does not hang on the hidden discs is the same
            ours = [a for a in state.legal(acting) if not a.startswith(KIND_VERBS)]
            assert [a for a in other.legal(acting) if not a.startswith(KIND_VERBS)] == ours
    check_conservation(other)
    for owner, (kit, true) in enumerate(zip(other.kits, state.kits)):
        assert kit.out == true.out and kit.known_lost == true.known_lost, owner
        if kit.gone_by is not None:
            assert kit.gone_by == true.gone_by
    if state.is_over():
        assert other.outcome() == state.outcome()
    return other


def play_out(state: DiscState, rng: random.Random) -> None:
    while not state.is_over():
        state.apply({s: rng.choice(state.legal(s)) for s in state.to_act()})
        check_conservation(state)


@pytest.mark.parametrize("game", ["skull", "skull-bank"])
@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_a_rebuilt_state_matches_the_view_and_plays_on(game: str, players: int) -> None:
    rng = random.Random(players)
    for seed in range(6):
        for state in random_positions(game, players, seed * 7 + players):
            for seat in range(players):
                other = check_rebuilt(state, seat, rng)
                play_out(other, rng)


def skull_places(state: DiscState, seat: int) -> tuple:
    """Where every other player's skull is: hand, pile position or loss index."""
    places = []
    for owner, kit in enumerate(state.kits):
        if owner == seat:
            continue
        if kit.hand[SKULL]:
            places.append((owner, "hand"))
        elif SKULL in kit.pile:
            places.append((owner, "pile", kit.pile.index(SKULL)))
        else:
            places.append((owner, "lost", kit.lost.index(SKULL)))
    return tuple(places)


@pytest.mark.parametrize("game", ["skull", "skull-bank"])
def test_rebuilding_draws_the_hidden_discs(game: str) -> None:
    state = new(game, 4, 3)
    rng = random.Random(5)
    # every player puts a disc down and a few more go down: the skulls may be anywhere
    state.apply({s: f"{state.PLACE}:{state.GOOD_NAME}" for s in state.to_act()})
    for _ in range(3):
        (acting,) = state.to_act()
        state.apply({acting: f"{state.PLACE}:{state.GOOD_NAME}"})
    view = state.view(0)
    drawn = {
        skull_places(get_game(game).from_view(view, 0, 4, state.options, rng), 0) for _ in range(40)
    }
    assert len(drawn) > 5


@pytest.mark.parametrize("game", ["skull", "skull-bank"])
def test_clone_is_a_deep_copy_made_by_hand(game: str) -> None:
    """The hand-made ``clone`` equals a deep copy and shares nothing that play changes."""
    from arena.games.base import State

    for state in random_positions(game, 5, 11):
        mine, deep = state.clone(), State.clone(state)
        assert mine.full() == deep.full() and mine.view(0) == deep.view(0)
        before = state.full()
        rng = random.Random(3)
        while not mine.is_over():
            joint = {s: rng.choice(mine.legal(s)) for s in mine.to_act()}
            mine.apply(joint)
            deep.apply(joint)
            assert mine.full() == deep.full()
        assert state.full() == before


@pytest.mark.parametrize("game", ["skull", "skull-bank"])
def test_a_view_of_another_seat_or_game_is_refused(game: str) -> None:
    from arena.errors import GameError

    state = new(game, 4, 1)
    view = state.view(1)
    rule = get_game(game)
    with pytest.raises(GameError):
        rule.from_view(view, 2, 4, {}, random.Random(0))
    with pytest.raises(GameError):
        rule.from_view({**view, "seats": []}, 1, 4, {}, random.Random(0))
    other = "skull-bank" if game == "skull" else "skull"
    with pytest.raises(GameError):
        get_game(other).from_view(view, 1, 4, {}, random.Random(0))
