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


def step_events(
    game_name: str,
    players: int,
    seed: int,
    options: Mapping[str, Any] | None,
    steps: Sequence[Mapping[int, str]],
) -> tuple[list[dict[str, Any]], list[list[dict[str, Any]]]]:
    """A game's events split by when they happened: those of the deal (before any step),
    then those of each step's joint action."""
    state = get_game(game_name).new(players, seed, options)
    deal = list(state.events)
    by_step = []
    for joint in steps:
        before = len(state.events)
        state.apply(dict(joint))
        by_step.append(list(state.events[before:]))
    return deal, by_step


def state_at(
    game_name: str,
    players: int,
    seed: int,
    options: Mapping[str, Any] | None,
    steps: Sequence[Mapping[int, str]],
    step: int,
) -> State:
    """The state at step ``step`` (before its joint action): what the seats were asked then."""
    return replay(game_name, players, seed, options, steps[:step])


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
