"""Incremental multiplayer Elo: ratings that move game by game, in plan order.

Everyone starts at ``INITIAL_RATING`` (1500). After a game with ``n`` players, each player's
rating moves by ``K / (n - 1) * sum over opponents (S - E)`` with ``S`` the pairwise result
(``tournaments.ratings.pairwise``) and ``E = 1 / (1 + 10 ** ((R_opp - R) / 400))``, all from
the ratings before the game; so a game counts like one two-player game whatever its size.
``K`` defaults to 16: small enough that ratings settle over the hundreds of games of a
tournament, large enough to move noticeably within the first few dozen.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from tournaments.ratings.pairwise import GameResult, pairwise_score

__all__ = [
    "DEFAULT_K",
    "INITIAL_RATING",
    "EloRatings",
    "HistoryRow",
    "expected_score",
    "incremental_elo",
]

DEFAULT_K = 16.0
INITIAL_RATING = 1500.0


def expected_score(rating: float, opponent: float) -> float:
    """Elo expected score of ``rating`` against ``opponent``."""
    return 1.0 / (1.0 + 10.0 ** ((opponent - rating) / 400.0))


class HistoryRow(NamedTuple):
    """An entrant's incremental Elo rating after the game with plan index ``game_index``.

    (A named tuple rather than a dataclass: a tournament has hundreds of thousands of rows.)
    """

    game_index: int
    entrant: str
    rating: float


@dataclass(frozen=True, kw_only=True)
class EloRatings:
    """Final incremental Elo ratings, games counted per entrant, and the per-game history."""

    ratings: dict[str, float]
    games: dict[str, int]
    history: tuple[HistoryRow, ...]


def incremental_elo(
    results: Iterable[GameResult],
    *,
    entrants: Sequence[str] = (),
    k: float = DEFAULT_K,
    initial: float = INITIAL_RATING,
) -> EloRatings:
    """Incremental multiplayer Elo over ``results`` in the order given (use plan order).

    ``entrants`` lists entrants to report even if they played no game (they keep ``initial``).
    """
    index: dict[str, int] = {}
    ratings: list[float] = []
    games: list[int] = []

    def ids_of(seating: tuple[str, ...]) -> list[int]:
        for label in seating:
            if label not in index:
                index[label] = len(ratings)
                ratings.append(initial)
                games.append(0)
        return [index[label] for label in seating]

    ids_of(tuple(entrants))
    seatings: dict[tuple[str, ...], list[int]] = {}
    pairs_of: dict[tuple[int, ...], list[tuple[int, int, float]]] = {}
    history: list[HistoryRow] = []
    row = tuple.__new__  # builds HistoryRow without NamedTuple's slow keyword __new__
    for result in results:
        seating, places = result.seating, result.places
        n = len(seating)
        if n < 2:
            continue
        ids = seatings.get(seating)
        if ids is None:
            ids = seatings[seating] = ids_of(seating)
        pairs = pairs_of.get(places)
        if pairs is None:
            pairs = pairs_of[places] = [
                (i, j, pairwise_score(places[i], places[j]))
                for i in range(n)
                for j in range(i + 1, n)
            ]
        before = [ratings[a] for a in ids]
        # E_ij = q_i / (q_i + q_j) with q = 10 ** (R / 400), taken relative to the first seat
        # so that q stays in floating-point range whatever the ratings.
        first = before[0]
        q = [10.0 ** ((r - first) / 400.0) for r in before]
        delta = [0.0] * n
        for i, j, score in pairs:
            diff = score - q[i] / (q[i] + q[j])
            delta[i] += diff
            delta[j] -= diff
        scale = k / (n - 1)
        game_index = result.index
        for i, a in enumerate(ids):
            rating = before[i] + scale * delta[i]
            ratings[a] = rating
            games[a] += 1
            history.append(row(HistoryRow, (game_index, seating[i], rating)))
    return EloRatings(
        ratings={label: ratings[i] for label, i in index.items()},
        games={label: games[i] for label, i in index.items()},
        history=tuple(history),
    )
