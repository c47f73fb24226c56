"""Pairwise results: how the arena scores a pair of seats of one game, and the counts of them.

Every rating, head-to-head count and match score decomposes a game into pairwise results: for
every pair of seats, the better place wins (1), the worse loses (0), equal places draw
(``DRAW``). ``PairCounts`` counts them once into integer matrices by table size (the tally a
run keeps, the input of the batch fit), and gives the head-to-head results of every pair of
entrants (``Crosstable``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

__all__ = [
    "DRAW",
    "Crosstable",
    "GameResult",
    "HeadToHead",
    "PairCounts",
    "pair_weight",
    "pairwise_score",
]

#: What a tie in places counts for, between the win (1) and the loss (0).
DRAW = 0.5


def pairwise_score(place: int, other: int) -> float:
    """The pairwise result of a seat placed ``place`` against a seat placed ``other`` in the
    same game (1 = best): 1 for the better place, 0 for the worse, ``DRAW`` for the same place.
    Every rating, head-to-head count and match score of the arena scores a pair this way."""
    return 1.0 if place < other else 0.0 if place > other else DRAW


def pair_weight(players: int) -> float:
    """Weight of one pairwise result of a ``players``-player game in the batch fit."""
    return 3.0 / (players + 1)


class GameResult(NamedTuple):
    """The part of a finished game that ratings use: entrant labels by seat, places by seat.

    (A named tuple: a store reads back hundreds of thousands of them at once.)
    """

    index: int
    seating: tuple[str, ...]
    places: tuple[int, ...]


@dataclass(frozen=True, kw_only=True)
class HeadToHead:
    """Pairwise results of ``entrant`` against ``opponent`` (over all games they met)."""

    entrant: str
    opponent: str
    wins: int
    draws: int
    losses: int

    @property
    def played(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float | None:
        """Share of points (win 1, draw ``DRAW``), or None if they never met."""
        if not self.played:
            return None
        return (self.wins + DRAW * self.draws) / self.played


@dataclass(frozen=True, kw_only=True)
class Crosstable:
    """Head-to-head results between every ordered pair of entrants (entrant order kept)."""

    entrants: tuple[str, ...]
    pairs: dict[tuple[str, str], HeadToHead]

    def cell(self, entrant: str, opponent: str) -> HeadToHead:
        return self.pairs[(entrant, opponent)]

    def total(self, entrant: str) -> HeadToHead:
        """``entrant``'s pairwise results against everyone."""
        cells = [self.pairs[(entrant, o)] for o in self.entrants if o != entrant]
        return HeadToHead(
            entrant=entrant,
            opponent="*",
            wins=sum(c.wins for c in cells),
            draws=sum(c.draws for c in cells),
            losses=sum(c.losses for c in cells),
        )

    def leader(self) -> str | None:
        """The entrant with the best pairwise score so far (None before any game)."""
        scored = [
            (score, entrant)
            for entrant in self.entrants
            if (score := self.total(entrant).score) is not None
        ]
        return max(scored)[1] if scored else None


class PairCounts:
    """Integer counts of pairwise results, by table size: the input of the batch fit.

    Counts are exact integers, so the result does not depend on the order games are added.
    """

    def __init__(self, entrants: Sequence[str] = ()) -> None:
        self.entrants: list[str] = []
        self._index: dict[str, int] = {}
        self.games: list[int] = []
        # players -> (wins[a][b], draws[a][b]); draws is kept symmetric.
        self._by_size: dict[int, tuple[list[list[int]], list[list[int]]]] = {}
        for label in entrants:
            self._id(label)

    def _id(self, label: str) -> int:
        found = self._index.get(label)
        if found is not None:
            return found
        new = len(self.entrants)
        self._index[label] = new
        self.entrants.append(label)
        self.games.append(0)
        for wins, draws in self._by_size.values():
            for row in wins:
                row.append(0)
            for row in draws:
                row.append(0)
            wins.append([0] * (new + 1))
            draws.append([0] * (new + 1))
        return new

    def _matrices(self, players: int) -> tuple[list[list[int]], list[list[int]]]:
        found = self._by_size.get(players)
        if found is None:
            size = len(self.entrants)
            found = ([[0] * size for _ in range(size)], [[0] * size for _ in range(size)])
            self._by_size[players] = found
        return found

    def add_game(self, seating: Sequence[str], places: Sequence[int], *, times: int = 1) -> None:
        """Count one game's pairwise results (``times`` times)."""
        ids = [self._id(label) for label in seating]
        n = len(ids)
        wins, draws = self._matrices(n)
        for i in range(n):
            a, pa = ids[i], places[i]
            self.games[a] += times
            for j in range(i + 1, n):
                b = ids[j]
                score = pairwise_score(pa, places[j])
                if score == 1.0:
                    wins[a][b] += times
                elif score == 0.0:
                    wins[b][a] += times
                else:
                    draws[a][b] += times
                    draws[b][a] += times

    def add_results(self, results: Iterable[GameResult]) -> None:
        """Count many games; identical (seating, places) pairs are counted once, with weight."""
        for (seating, places), times in Counter((r.seating, r.places) for r in results).items():
            self.add_game(seating, places, times=times)

    def add(
        self,
        entrant: str,
        opponent: str,
        *,
        wins: int = 0,
        draws: int = 0,
        losses: int = 0,
        players: int = 2,
    ) -> None:
        """Count pairwise results aggregated elsewhere (e.g. in SQL)."""
        a, b = self._id(entrant), self._id(opponent)
        win, draw = self._matrices(players)
        win[a][b] += wins
        win[b][a] += losses
        draw[a][b] += draws
        draw[b][a] += draws

    def head_to_head(self, entrant: str, opponent: str) -> HeadToHead:
        a, b = self._id(entrant), self._id(opponent)
        wins = draws = losses = 0
        for win, draw in self._by_size.values():
            wins += win[a][b]
            losses += win[b][a]
            draws += draw[a][b]
        return HeadToHead(entrant=entrant, opponent=opponent, wins=wins, draws=draws, losses=losses)

    def crosstable(self) -> Crosstable:
        return Crosstable(
            entrants=tuple(self.entrants),
            pairs={
                (a, b): self.head_to_head(a, b)
                for a in self.entrants
                for b in self.entrants
                if a != b
            },
        )

    def weighted(self) -> tuple[list[list[float]], list[list[float]]]:
        """(points[a][b], played[a][b]) with each pairwise result weighted by table size."""
        size = len(self.entrants)
        points = [[0.0] * size for _ in range(size)]
        played = [[0.0] * size for _ in range(size)]
        for players, (win, draw) in sorted(self._by_size.items()):
            w = pair_weight(players)
            for a in range(size):
                for b in range(size):
                    if a != b:
                        points[a][b] += w * (win[a][b] + DRAW * draw[a][b])
                        played[a][b] += w * (win[a][b] + win[b][a] + draw[a][b])
        return points, played
