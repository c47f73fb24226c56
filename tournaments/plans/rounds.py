"""Tournaments played round by round (Swiss, knockout): what a round holds and how a table of it
is scored.

A round seats the field at tables of ``k`` (``RoundPlan``: the tables, and the entrants who sit
it out, its *byes*); each table plays ``deals`` deals (the tournament's repetitions), each in all
its seat rotations, as every table of every tournament does. Round ``r``'s deal ``d`` is stored
as repetition ``r * deals + d`` (``repetition_of``), so deal seeds, phases and replays work as
for any plan. A round is planned once the one before it is complete, from its results
(``PlayedRound``): the planning itself is pure (``swiss``, ``knockout``).

**Table scores.** Each game of a table gives each entrant a point for every table mate it
places above, half a point for every one it ties with (``tournaments.ratings.pairwise_score``:
the arena's one way to score a pair of seats). An entrant's *share* at a table is its points
over all the table's games of the round, divided by the most it could take (``games * (k -
1)``): 1 for first place in every game, 0 for last in every one, 0.5 on average.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from tournaments.ratings.pairwise import pairwise_score

__all__ = [
    "PlayedRound",
    "RoundGame",
    "RoundPlan",
    "TableScore",
    "draw_order",
    "repetition_of",
    "round_of",
    "table_scores",
]


def repetition_of(round_: int, deal: int, deals: int) -> int:
    """The stored repetition of deal ``deal`` of round ``round_`` (``deals`` deals a table)."""
    return round_ * deals + deal


def round_of(repetition: int, deals: int) -> int:
    """The round a stored repetition belongs to (``deals`` deals a table)."""
    return repetition // deals


def draw_order(entrants: Sequence[str], rng: random.Random) -> tuple[str, ...]:
    """The entrants in a random order (the *draw*): the first round's tables, and the last
    tie-break of every standing."""
    order = list(entrants)
    rng.shuffle(order)
    return tuple(order)


@dataclass(frozen=True, kw_only=True)
class RoundPlan:
    """One round: its tables (entrants in seat order) and who sits it out."""

    number: int
    tables: tuple[tuple[str, ...], ...]
    byes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class RoundGame:
    """A finished game of a round: its table (within the round), seating and places."""

    table: int
    seating: tuple[str, ...]
    places: tuple[int, ...]


@dataclass(frozen=True, kw_only=True)
class PlayedRound:
    """A round as planned (``plan``), with its finished games. ``complete``: every game of it
    is played."""

    plan: RoundPlan
    games: tuple[RoundGame, ...]
    complete: bool

    @property
    def number(self) -> int:
        return self.plan.number

    def scores(self) -> dict[int, list[TableScore]]:
        """Each table's scores (by table number), best first: ``table_scores``."""
        return {
            table: table_scores(members, [g for g in self.games if g.table == table])
            for table, members in enumerate(self.plan.tables)
        }


@dataclass(frozen=True, kw_only=True)
class TableScore:
    """An entrant's result at one table of a round: its points, the share of the most it
    could take, its wins (first places, shared ones too) and games."""

    entrant: str
    points: float
    share: float
    wins: int
    games: int

    def to_dict(self) -> dict[str, object]:
        return {
            "entrant": self.entrant,
            "points": self.points,
            "share": round(self.share, 4),
            "wins": self.wins,
            "games": self.games,
        }


def table_scores(
    members: Sequence[str],
    games: Iterable[RoundGame],
    seeds: Mapping[str, int] | None = None,
) -> list[TableScore]:
    """The scores of a table's ``members`` over its ``games``, best first: more points, then
    more wins, then the better seed (``seeds``: lower first; default: seat order)."""
    points = dict.fromkeys(members, 0.0)
    wins = dict.fromkeys(members, 0)
    played = 0
    for game in games:
        played += 1
        for seat, name in enumerate(game.seating):
            place = game.places[seat]
            points[name] += sum(
                pairwise_score(place, other)
                for other_seat, other in enumerate(game.places)
                if other_seat != seat
            )
            wins[name] += place == 1
    most = played * (len(members) - 1)
    order = seeds or {name: i for i, name in enumerate(members)}
    scores = [
        TableScore(
            entrant=name,
            points=points[name],
            share=points[name] / most if most else 0.0,
            wins=wins[name],
            games=played,
        )
        for name in members
    ]
    return sorted(scores, key=lambda s: (-s.points, -s.wins, order[s.entrant]))
