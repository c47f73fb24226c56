"""Replays: rebuild a game from its seed and actions; a full log or one seat's story.

A stored game holds only its seed, seating, options and actions; everything else (events,
chance outcomes, views) is derived here, so any tool can re-check a game.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.games import get_game
from arena.games.base import State


@dataclass(frozen=True)
class SeatTurn:
    """One decision of one seat: what it saw, what it was offered, what was played."""

    step: int
    view: dict[str, Any]
    legal: list[str]
    action: str


def replay(
    game_name: str,
    players: int,
    seed: int,
    options: Mapping[str, Any] | None,
    steps: Sequence[Mapping[int, str]],
) -> State:
    """The final state after applying every joint action from a fresh deal of ``seed``."""
    state = get_game(game_name).new(players, seed, options)
    for joint in steps:
        state.apply(dict(joint))
    return state


def seat_story(
    game_name: str,
    players: int,
    seed: int,
    options: Mapping[str, Any] | None,
    steps: Sequence[Mapping[int, str]],
    seat: int,
) -> Iterator[SeatTurn]:
    """The game as ``seat`` saw it: its view and legal actions at each of its decisions."""
    state = get_game(game_name).new(players, seed, options)
    for index, joint in enumerate(steps):
        if seat in joint:
            yield SeatTurn(index, state.view(seat), state.legal(seat), joint[seat])
        state.apply(dict(joint))
