"""Helpers for the scenario and property tests of the disc games (``skull``, ``skull-bank``)."""

from __future__ import annotations

import random
from typing import Any

import msgpack

from arena.games import get_game
from arena.games.discs import DISCS_EACH, GOOD, SKULL, DiscState


def packed(value: Any) -> bytes:
    return msgpack.packb(value, use_bin_type=True)


def new(game: str, players: int = 4, seed: int = 0) -> Any:
    state = get_game(game).new(players, seed)
    assert isinstance(state, DiscState)
    return state


def put_down(state: DiscState, letters: str) -> None:
    """The simultaneous first step: one letter per active seat in seat order, ``s`` = skull,
    any other letter = the good disc (flower/rose)."""
    seats = state.active
    assert len(letters) == len(seats)
    kinds = {c: "skull" if c == "s" else state.GOOD_NAME for c in letters}
    state.apply({seat: f"{state.PLACE}:{kinds[c]}" for seat, c in zip(seats, letters)})


def play(state: DiscState, *moves: str) -> None:
    """Apply single-seat moves written ``"SEAT action"``."""
    for move in moves:
        seat, action = move.split(" ")
        state.apply({int(seat): action})


def hold(state: DiscState, seat: int, goods: int, skulls: int) -> None:
    """Give ``seat`` this hand before a round starts; the missing discs count as lost."""
    kit = state.kits[seat]
    kit.hand = [goods, skulls]
    kit.lost = [SKULL] * (1 - skulls) + [GOOD] * (3 - goods)
    state.refresh()


def eliminate(state: DiscState, seat: int, round_: int = 1) -> None:
    """Mark ``seat`` as eliminated in ``round_`` before a round starts."""
    kit = state.kits[seat]
    kit.hand, kit.lost, kit.out = [0, 0], [SKULL, GOOD, GOOD, GOOD], round_
    state.refresh()


def views(state: DiscState, seats: range | list[int]) -> list[bytes]:
    return [packed(state.view(s)) for s in seats]


def events(state: DiscState, type_: str) -> list[dict[str, Any]]:
    return [e for e in state.events if e["type"] == type_]


def check_conservation(state: DiscState) -> None:
    """Every player's four discs are in hand, on the mat or lost; exactly one skull each."""
    for kit in state.kits:
        discs = kit.pile + kit.lost + [GOOD] * kit.hand[GOOD] + [SKULL] * kit.hand[SKULL]
        assert sorted(discs) == [GOOD, GOOD, GOOD, SKULL]
        assert min(kit.hand) >= 0 and 0 <= len(kit.up) <= len(kit.pile)
        assert (kit.out is None) == (kit.owned > 0)
    assert sum(k.owned + len(k.lost) for k in state.kits) == DISCS_EACH * state.players


def random_game(game: str, players: int, seed: int, bot_seed: int) -> Any:
    """Play uniformly random legal actions to the end, checking conservation and the bound."""
    state = new(game, players, seed)
    rng = random.Random(bot_seed)
    bound = get_game(game).max_steps(players, {})
    while not state.is_over():
        state.apply({s: rng.choice(state.legal(s)) for s in state.to_act()})
        check_conservation(state)
        assert state.steps <= bound
    return state


def check_resample_plays_on(state: DiscState, rng: random.Random) -> None:
    """Every seat's resample keeps its view, conserves discs and plays on to the end."""
    for seat in range(state.players):
        other = state.resample(seat, rng)
        check_conservation(other)
        assert packed(other.view(seat)) == packed(state.view(seat))
        while not other.is_over():
            other.apply({s: rng.choice(other.legal(s)) for s in other.to_act()})
            check_conservation(other)


def check_resample_after(game: str, players: int, seed: int, cut: int) -> None:
    """Play ``cut`` random steps, then check every seat's resample (see below)."""
    state = new(game, players, seed)
    rng = random.Random(seed)
    while not state.is_over() and state.steps < cut:
        state.apply({s: rng.choice(state.legal(s)) for s in state.to_act()})
    check_resample_plays_on(state, rng)


def check_deterministic(game: str, players: int, seed: int, bot_seed: int) -> Any:
    """Two random games from the same seeds are identical; returns one of them."""
    one = random_game(game, players, seed, bot_seed)
    two = random_game(game, players, seed, bot_seed)
    assert packed(one.events) == packed(two.events) and packed(one.full()) == packed(two.full())
    return one
