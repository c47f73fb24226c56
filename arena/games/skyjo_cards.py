"""Skyjo's data and pure rules: the deck, the game's caps, the phases, the states of a grid
cell, who starts and how a round scores. A leaf module: ``arena.games.skyjo`` (the rules) and
``arena.games.skyjo_view`` (a view read for a state rebuilt from it) both build on it.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping

#: How many cards of each value the deck holds (150 cards).
CARD_COUNTS: Mapping[int, int] = {-2: 5, -1: 10, 0: 15, **{v: 10 for v in range(1, 13)}}
DECK: tuple[int, ...] = tuple(v for v, n in sorted(CARD_COUNTS.items()) for _ in range(n))
#: [arena] a round ends at once after this many turns per player without anyone ending it.
TURNS_PER_PLAYER_CAP = 60
#: [arena] the game ends after this many rounds even if nobody has reached the target.
MAX_ROUNDS = 50
TARGET = 100


class Phase(enum.StrEnum):
    """What the game waits for."""

    REVEAL = "reveal"  # every seat turns two cards over (simultaneous)
    TURN = "turn"  # the seat to play takes the discard or draws
    DRAWN = "drawn"  # the seat to play holds a drawn card: swap it or discard and flip
    OVER = "over"


class Cell(enum.IntEnum):
    """The state of one grid position."""

    DOWN = 0
    UP = 1
    GONE = 2  # its column was removed


def first_player(revealed_sums: list[int]) -> int:
    """Round 1: the highest sum of the two revealed cards starts; [arena] ties: lowest seat."""
    return min(range(len(revealed_sums)), key=lambda s: (-revealed_sums[s], s))


def round_winner(scores: list[int]) -> int:
    """The lowest round score (after doubling); ties: the lowest seat."""
    return min(range(len(scores)), key=lambda s: (scores[s], s))


def round_scores(raw: list[int], ender: int | None, capped: bool, doubling: str) -> list[int]:
    """Round scores from the card sums: the ender's sum doubles unless the ender is lowest.

    ``unless-lowest`` (the user's text): doubled if another seat scored strictly less, whatever
    the sign. ``manual``: doubled only if positive and another seat scored the same or less.
    Nobody is doubled in a round that the round cap ended (or that has no ender).
    """
    scores = list(raw)
    if ender is None or capped:
        return scores
    others = [raw[o] for o in range(len(raw)) if o != ender]
    if doubling == "manual":
        doubled = raw[ender] > 0 and any(o <= raw[ender] for o in others)
    else:
        doubled = any(o < raw[ender] for o in others)
    if doubled:
        scores[ender] = 2 * raw[ender]
    return scores
