"""Knockouts: tables of ``k``, the best ``advance`` of each table go on, until one table is left.

- **Rounds.** A round seats its field at ``n // k`` tables; when ``k`` does not divide the
  field, the ``n mod k`` best seeds who have had the fewest byes sit the round out and go on
  (a *bye*). The next field is ``advance`` per table plus the byes. The last round is one
  table of exactly ``k``; a field that cannot end so (it would shrink below ``k``) is refused
  when the tournament is created (``field_sizes``), with the field sizes near it that work.
- **Who goes on.** A table's entrants are ranked by their points over every game it played in
  the round (every seat rotation of each of its deals: ``rounds.table_scores``), then by their
  wins (first places, shared ones too), then by their seed. The first ``advance`` go on.
- **Seeds.** The first round's seeds are the draw (a random order drawn from the tournament's
  key and seed). A later round's seeds: first the byes of the round before (in their seed
  order), then those who went on, by their place at their table, then their share of its
  points, then their seed before. Tables are filled in a serpentine over the seeds (1 to ``t``,
  then ``t`` back to 1...), so the best seeds meet late.
- **Final order.** The final table's ranking, then those out in the round before it (by their
  place at their table, then their share, then their seed), and so on back to the first
  round: the order ``final_order`` gives, which the format's statistics compare to the truth.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from tournaments.errors import PlanError
from tournaments.plans.rounds import PlayedRound, RoundPlan, TableScore

__all__ = [
    "BracketRound",
    "BracketTable",
    "bracket",
    "check_knockout",
    "field_of",
    "field_sizes",
    "final_order",
    "pair_round",
]


def field_sizes(entrants: int, k: int, advance: object) -> list[int]:
    """The field of each round of a knockout of ``entrants`` at tables of ``k``, the best
    ``advance`` of each table going on (the last is ``k``: the final table). Raises PlanError
    for a knockout that cannot end at one full table."""
    if not isinstance(advance, int) or isinstance(advance, bool) or not 1 <= advance < k:
        raise PlanError(
            f"a knockout at tables of {k} sends on 1-{k - 1} of each table (--advance), "
            f"not {advance!r}"
        )
    if entrants <= k:
        raise PlanError(
            f"a knockout at tables of {k} needs more than {k} entrants, not {entrants}: "
            "play a round robin"
        )
    sizes = _sizes(entrants, k, advance)
    if sizes[-1] != k:
        near = [n for n in range(max(k + 1, entrants - 12), entrants + 13) if n != entrants]
        works = sorted(n for n in near if _sizes(n, k, advance)[-1] == k)
        works = sorted(sorted(works, key=lambda n: abs(n - entrants))[:6])
        hint = f"; fields that work near it: {', '.join(map(str, works))}" if works else ""
        raise PlanError(
            f"a knockout of {entrants} entrants at tables of {k}, {advance} going on from each, "
            f"cannot end at one table of {k} (fields {' -> '.join(map(str, sizes))}){hint}; "
            "or change --advance or --table-size"
        )
    return sizes


def _sizes(n: int, k: int, advance: int) -> list[int]:
    sizes = [n]
    while n > k:
        n = (n // k) * advance + n % k
        sizes.append(n)
    return sizes


def check_knockout(entrants: int, k: int, advance: object) -> int:
    """How many rounds the knockout has. Raises PlanError (``field_sizes``)."""
    return len(field_sizes(entrants, k, advance))


def _ranked(played: PlayedRound, seeds: dict[str, int]) -> dict[int, list[TableScore]]:
    return {
        table: sorted(lines, key=lambda s: (-s.points, -s.wins, seeds[s.entrant]))
        for table, lines in played.scores().items()
    }


def field_of(draw: Sequence[str], advance: int, rounds: Sequence[PlayedRound]) -> list[str]:
    """The field of the round after ``rounds``, best seed first."""
    field = list(draw)
    for played in rounds:
        seeds = {name: i for i, name in enumerate(field)}
        ranked = _ranked(played, seeds)
        on = [
            (place, -line.share, seeds[line.entrant], line.entrant)
            for lines in ranked.values()
            for place, line in enumerate(lines[:advance], 1)
        ]
        byes = sorted(played.plan.byes, key=seeds.__getitem__)
        field = byes + [name for *_, name in sorted(on)]
    return field


def pair_round(
    entrants: Sequence[str],
    k: int,
    advance: int,
    draw: Sequence[str],
    rounds: Sequence[PlayedRound],
) -> RoundPlan | None:
    """The tables of the round after ``rounds`` (every one complete); None once the final
    table has played."""
    sizes = field_sizes(len(entrants), k, advance)
    number = len(rounds)
    if number >= len(sizes):
        return None
    if any(not r.complete for r in rounds):
        raise PlanError(f"round {number + 1} is planned once every round before it is complete")
    field = field_of(draw, advance, rounds)
    if len(field) != sizes[number]:
        raise PlanError(
            f"round {number + 1} of the knockout has {len(field)} entrants, not the "
            f"{sizes[number]} planned"
        )
    tables = len(field) // k
    spare = len(field) - tables * k
    had = Counter(name for r in rounds for name in r.plan.byes)
    position = {name: i for i, name in enumerate(field)}
    byes = sorted(sorted(field, key=lambda e: (had[e], position[e]))[:spare], key=position.get)
    seated = [name for name in field if name not in byes]
    seats: list[list[str]] = [[] for _ in range(tables)]
    for i, name in enumerate(seated):
        lap, at = divmod(i, tables)
        seats[at if lap % 2 == 0 else tables - 1 - at].append(name)
    return RoundPlan(number=number, tables=tuple(map(tuple, seats)), byes=tuple(byes))


@dataclass(frozen=True, kw_only=True)
class BracketTable:
    """One table of a bracket: its scores, best first (places so far while it is played), and
    how many of them go on (0 at the final, and until the table is complete)."""

    table: int
    scores: tuple[TableScore, ...]
    going_on: int

    def to_dict(self) -> dict[str, object]:
        return {
            "table": self.table,
            "scores": [
                s.to_dict() | {"place": place, "on": place <= self.going_on}
                for place, s in enumerate(self.scores, 1)
            ],
            "going_on": self.going_on,
        }


@dataclass(frozen=True, kw_only=True)
class BracketRound:
    """One round of a bracket: its tables, byes and whether every game of it is played."""

    number: int
    tables: tuple[BracketTable, ...]
    byes: tuple[str, ...]
    complete: bool
    final: bool

    def to_dict(self) -> dict[str, object]:
        return {
            "round": self.number + 1,
            "final": self.final,
            "complete": self.complete,
            "byes": list(self.byes),
            "tables": [t.to_dict() for t in self.tables],
        }


def bracket(
    entrants: Sequence[str],
    k: int,
    advance: int,
    draw: Sequence[str],
    rounds: Sequence[PlayedRound],
) -> list[BracketRound]:
    """The rounds planned so far, each table ranked as ``pair_round`` ranks it."""
    sizes = field_sizes(len(entrants), k, advance)
    out = []
    for number, played in enumerate(rounds):
        field = field_of(draw, advance, rounds[:number])
        seeds = {name: i for i, name in enumerate(field)}
        final = number == len(sizes) - 1
        out.append(
            BracketRound(
                number=number,
                tables=tuple(
                    BracketTable(
                        table=table,
                        scores=tuple(lines),
                        going_on=0 if final or not played.complete else advance,
                    )
                    for table, lines in _ranked(played, seeds).items()
                ),
                byes=played.plan.byes,
                complete=played.complete,
                final=final,
            )
        )
    return out


def final_order(
    entrants: Sequence[str],
    k: int,
    advance: int,
    draw: Sequence[str],
    rounds: Sequence[PlayedRound],
) -> list[str]:
    """Every entrant, the winner first (see the module's docstring). While the knockout is
    played, the latest round's entrants come first, ranked by its results so far (its byes
    before them), then those out in each round before it."""
    order: list[str] = []
    played = bracket(entrants, k, advance, draw, rounds)
    for number in reversed(range(len(played))):
        field = field_of(draw, advance, rounds[:number])
        seeds = {name: i for i, name in enumerate(field)}
        latest = number == len(played) - 1
        if latest:
            order += sorted(played[number].byes, key=seeds.__getitem__)
        out = [
            (place, -line.share, seeds[line.entrant], line.entrant)
            for table in played[number].tables
            for place, line in enumerate(table.scores, 1)
            if latest or place > advance
        ]
        order += [name for *_, name in sorted(out)]
    return order or list(draw)
