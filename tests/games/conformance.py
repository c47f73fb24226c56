"""Generic conformance checks every registered game must pass (OpenSpiel-style).

Each check takes a game and a seed; ``test_conformance.py`` runs them for every game in the
registry, so a new game plugs in by registering itself.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import msgpack
import pytest

from arena.errors import GameError, IllegalAction, NotYourTurn
from arena.games import Game, State


def packed(value: Any) -> bytes:
    return msgpack.packb(value, use_bin_type=True)


def check_msgpack_map(value: Any, path: str = "view") -> None:
    """A view is a map with string keys holding only lists, maps, ints, strings, bools, None."""
    if isinstance(value, dict):
        for key, item in value.items():
            assert isinstance(key, str), f"{path}: key {key!r} is not a string"
            check_msgpack_map(item, f"{path}.{key}")
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            check_msgpack_map(item, f"{path}[{index}]")
    else:
        assert value is None or isinstance(value, (bool, int, str, float)), (
            f"{path}: {type(value).__name__} is not msgpack-able"
        )


def random_joint(state: State, rng: random.Random) -> dict[int, str]:
    return {seat: rng.choice(state.legal(seat)) for seat in state.to_act()}


def playout(
    game: Game, players: int, seed: int, options: dict | None = None, *, check_views: bool = True
) -> tuple[State, list[dict[int, str]]]:
    """Play random legal actions to the end, checking the basic contract at every step."""
    state = game.new(players, seed, options)
    rng = random.Random(seed ^ 0x5EED)
    bound = game.max_steps(players, state.options)
    history: list[dict[int, str]] = []
    while not state.is_over():
        acting = state.to_act()
        assert acting, "a game that is not over has a seat to act"
        assert len(set(acting)) == len(acting)
        for seat in range(players):
            legal = state.legal(seat)
            if seat in acting:
                assert legal, f"seat {seat} must act but has no legal action"
                assert len(set(legal)) == len(legal), "legal actions are distinct"
                assert all(isinstance(a, str) and a for a in legal)
            else:
                assert legal == [], f"seat {seat} is not to act but has legal actions"
        handed_out = []
        for seat in range(players) if check_views else ():
            view = state.view(seat)
            assert isinstance(view, dict)
            check_msgpack_map(view)
            handed_out.append((view, packed(view)))
        joint = random_joint(state, rng)
        state.apply(joint)
        for view, before in handed_out:
            assert packed(view) == before, "a view handed out earlier changed with the game"
        history.append(joint)
        assert len(history) <= bound, f"game ran past its bound of {bound} steps"
    assert state.to_act() == ()
    outcome = state.outcome()
    assert len(outcome.scores) == players and len(outcome.places) == players
    check_places(outcome.places)
    for seat in range(players):
        check_msgpack_map(state.view(seat))
    return state, history


def check_places(places: tuple[int, ...]) -> None:
    """Places are standard competition ranks: 1 is taken, ties share, gaps follow ties."""
    assert min(places) == 1
    for place in set(places):
        better = sum(1 for p in places if p < place)
        assert place == better + 1, f"places {places} are not competition ranks"


def check_replay(game: Game, players: int, seed: int, options: dict | None = None) -> None:
    """The seed and the joint actions replay the game, its event log and its views exactly."""
    state, history = playout(game, players, seed, options, check_views=False)
    again = game.new(players, seed, options)
    for joint in history:
        again.apply(joint)
    assert again.is_over()
    assert packed(again.events) == packed(state.events)
    assert packed(again.full()) == packed(state.full())
    assert again.outcome() == state.outcome()
    for seat in range(players):
        assert packed(again.view(seat)) == packed(state.view(seat))


def check_illegal(game: Game, players: int, seed: int, options: dict | None = None) -> None:
    """Illegal or mis-addressed actions raise a typed error and change nothing."""
    state = game.new(players, seed, options)
    rng = random.Random(seed)
    steps = 0
    while not state.is_over() and steps < 400:
        before = packed(state.full()), len(state.events), state.steps
        acting = state.to_act()
        seat = acting[0]
        bad = {s: rng.choice(state.legal(s)) for s in acting}
        bad[seat] = "no-such-action:42"
        with pytest.raises(IllegalAction) as raised:
            state.apply(bad)
        assert raised.value.seat == seat
        if len(acting) > 1:
            partial = {s: rng.choice(state.legal(s)) for s in acting[1:]}
            with pytest.raises(NotYourTurn) as missing:
                state.apply(partial)
            assert missing.value.seat is None
        idle = [s for s in range(players) if s not in acting]
        if idle:
            extra = random_joint(state, rng)
            extra[idle[0]] = "pass"
            with pytest.raises(NotYourTurn):
                state.apply(extra)
        assert (packed(state.full()), len(state.events), state.steps) == before
        state.apply(random_joint(state, rng))
        steps += 1


def seat_cannot_tell(
    state: State,
    seat: int,
    rng: random.Random,
    shown: Callable[[State], Any] | None = None,
    *,
    where: str = "",
) -> State:
    """The information test at one point of a game: a copy of ``state`` with everything
    ``seat`` cannot know redrawn (``resample``) shows the seat the same thing — its view
    (packed), or what ``shown`` makes of a state for it (a person's screen in ``arena play
    --human``) — and the same seats to act and legal actions. Returns the copy."""
    other = state.resample(seat, rng)
    show = shown or (lambda s: packed(s.view(seat)))
    assert show(other) == show(state), (
        f"what seat {seat} is shown changed when only hidden information changed ({where})"
    )
    assert other.to_act() == state.to_act()
    assert other.legal(seat) == state.legal(seat)
    return other


def check_information(
    game: Game, players: int, seed: int, options: dict | None = None, *, every: int = 1
) -> int:
    """Changing only what a seat cannot know leaves its view byte-identical.

    Returns how many resamples changed the hidden state (the caller asserts some did, so the
    test can fail if ``resample`` is a no-op).
    """
    state = game.new(players, seed, options)
    rng = random.Random(seed * 7919 + 1)
    changed = 0
    step = 0
    while not state.is_over():
        if step % every == 0:
            for seat in range(players):
                other = seat_cannot_tell(state, seat, rng, where=f"step {step}")
                if packed(other.full()) != packed(state.full()):
                    changed += 1
                # the resampled state is a consistent game: it plays on to the end
                if step % (every * 7) == 0 and seat == step % players:
                    finish = other.clone()
                    moves = 0
                    while not finish.is_over():
                        finish.apply(random_joint(finish, rng))
                        moves += 1
                        assert moves <= game.max_steps(players, state.options)
        state.apply(random_joint(state, rng))
        step += 1
    return changed


def check_clone(game: Game, players: int, seed: int, options: dict | None = None) -> None:
    """A clone is independent and continues exactly like the original."""
    state = game.new(players, seed, options)
    rng = random.Random(seed)
    for _ in range(5):
        if state.is_over():
            return
        state.apply(random_joint(state, rng))
    twin = state.clone()
    before = packed(state.full())
    rng_a, rng_b = random.Random(1), random.Random(1)
    while not twin.is_over():
        twin.apply(random_joint(twin, rng_b))
    assert packed(state.full()) == before, "playing a clone changed the original"
    while not state.is_over():
        state.apply(random_joint(state, rng_a))
    assert packed(state.events) == packed(twin.events)


def wire(view: dict[str, Any]) -> dict[str, Any]:
    """The view as a bot receives it: through msgpack (tuples arrive as lists)."""
    return msgpack.unpackb(packed(view), raw=False)


def check_from_view(
    game: Game, players: int, seed: int, options: dict | None = None, *, every: int = 1
) -> int:
    """``from_view`` rebuilds a state the viewing seat cannot tell from the true one.

    At every ``every``-th step, for each seat: the rebuilt state shows that seat the same view
    (given the view as a bot receives it), has the same seats to act, the same legal actions for
    that seat (and some for every other seat to act), ends when the game ends with the same
    outcome, and now and then plays on to the end. Returns how many pairs of rebuilds from one
    view differed (the caller asserts some did: ``from_view`` must draw what the view hides).
    Skips the test for a game that cannot rebuild a state yet.
    """
    state = game.new(players, seed, options)
    rng = random.Random(seed * 7919 + 3)
    differed = 0
    step = 0
    while True:
        for seat in range(players) if step % every == 0 else ():
            view = state.view(seat)
            rebuilt = game.from_view(wire(view), seat, players, state.options, rng)
            again = game.from_view(wire(view), seat, players, state.options, rng)
            differed += packed(rebuilt.full()) != packed(again.full())
            assert packed(rebuilt.view(seat)) == packed(view), f"seat {seat}, step {step}"
            assert rebuilt.to_act() == state.to_act()
            assert rebuilt.is_over() == state.is_over()
            if state.is_over():
                assert rebuilt.outcome() == state.outcome()
            for acting in state.to_act():
                if acting == seat:
                    assert rebuilt.legal(seat) == state.legal(seat)
                else:
                    assert rebuilt.legal(acting), f"seat {acting} must act but cannot"
            if step % (every * 5) == 0 and seat == step % players:
                moves = 0
                while not rebuilt.is_over():
                    rebuilt.apply(random_joint(rebuilt, rng))
                    moves += 1
                    assert moves <= game.max_steps(players, state.options)
        if state.is_over():
            return differed
        state.apply(random_joint(state, rng))
        step += 1


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place inside a view: map keys and list positions, nested."""
    inner: list[tuple[Any, ...]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            inner += _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            inner += _paths(item, (*path, index))
    return [*inner, path] if path else inner


def check_damaged_views(game: Game, players: int, seed: int, *, every: int = 4) -> int:
    """``from_view`` of a damaged view (one value made ``None``, a number, a string or taken
    out) either rebuilds a state or raises ``GameError``: never another error. Returns how many
    damaged views it refused (the caller asserts some were)."""
    state = game.new(players, seed, {})
    rng = random.Random(seed)
    refused = step = 0
    while not state.is_over():
        if step % every == 0:
            seat = step % players
            view = wire(state.view(seat))
            for path in rng.sample(_paths(view), 8):
                damaged = wire(view)
                holder = damaged
                for key in path[:-1]:
                    holder = holder[key]
                kind = rng.randrange(4)
                if kind == 3 and isinstance(holder, dict):
                    del holder[path[-1]]
                else:
                    holder[path[-1]] = (None, 99, "x", -1)[kind]
                try:
                    game.from_view(damaged, seat, players, state.options, rng)
                except GameError:
                    refused += 1
        state.apply(random_joint(state, rng))
        step += 1
    return refused
