"""Balanced tournaments: a few tables per entrant, every pair meeting as equally often as the
sizes allow.

A round robin plays every ``k``-subset of its entrants: 50 bots at tables of 4 make 230,300
tables. A balanced tournament seats each entrant at ``per_entrant`` tables (``N``) instead:

- **Seats.** ``T = ceil(n N / k)`` tables. Every entrant sits at ``N`` of them when ``k``
  divides ``n N``; otherwise the ``T k - n N`` spare seats (fewer than ``k``) go to as many
  entrants, drawn at random, who sit at ``N + 1``.
- **Pairs.** The ``T k (k - 1) / 2`` meetings of pairs are spread over the ``n (n - 1) / 2``
  pairs as evenly as possible: ideally every pair meets ``floor(L)`` or ``ceil(L)`` times
  (``L``: their mean), exactly ``L`` times when ``L`` is whole (a *balanced incomplete block
  design*, BIBD: e.g. 7 entrants at tables of 3, 3 tables each, is the Fano plane).
- **How.** When ``N`` is a multiple of ``C(n - 1, k - 1)`` the design is complete (every
  ``k``-subset, repeated): exact. Otherwise tables are filled one at a time, each seat given to
  the entrant who has met the table's entrants least (ties: the one with most seats still to
  fill, then a random order), never leaving an entrant more seats than tables remain; then a
  local search swaps entrants between tables, each swap aimed at a pair that meets too often
  or too rarely, and kept if it does not make the sum of squared pair counts worse (the sum is
  least exactly when the counts are as even as they can be). The search stops when no pair is
  outside ``[floor(L), ceil(L)]`` or after ``STEPS_PER_SEAT`` steps per seat (at least
  ``MIN_STEPS``, at most ``SEARCH_STEPS``): it finds the small BIBDs
  (Fano plane, the affine plane of order 3, the projective plane of order 3, Steiner triple
  systems of 15, 19 and 27 points) and, for 50 entrants at 50 tables of 4 each, pairs meeting
  3 or 4 times; what it reaches is reported (``Balance``), never assumed.
- **Seats at a table.** Each table's order is shuffled (its seat rotations then put every
  entrant in every seat); who sits after whom is not balanced beyond that.

Everything is drawn from one ``random.Random`` seeded by the caller (from the tournament's key
and seed: ``tournaments.plans.schedule``), so a design is the same on every run.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

from tournaments.errors import PlanError

__all__ = [
    "MIN_STEPS",
    "SEARCH_STEPS",
    "STEPS_PER_SEAT",
    "Balance",
    "balance_of",
    "balanced_tables",
    "check_balanced",
]

#: The local search takes ``STEPS_PER_SEAT`` steps per seat of the plan (at least
#: ``MIN_STEPS``, at most ``SEARCH_STEPS``, scaled down by ``(k / 4) ** 2`` for tables of more
#: than four): 100,000 for 50 entrants at 625 tables of four (under
#: a second of CPU), which it balances in 40,000-80,000 steps. While that leaves pairs uneven
#: and the ``SEARCH_STEPS`` of all attempts allow, it starts again from a fresh fill (a small
#: design's steps are cheap); the most even attempt is kept.
STEPS_PER_SEAT = 40
MIN_STEPS = 20_000
SEARCH_STEPS = 200_000

#: Tables tried for each step of the search.
_TRIES = 6


@dataclass(frozen=True, kw_only=True)
class Balance:
    """How balanced a plan's tables are: the fewest and most tables any entrant sits at, the
    fewest and most times any pair of entrants meets (sits at one table), and the mean of the
    pair meetings. ``exact``: every pair meets equally often and every entrant sits at equally
    many tables (a balanced incomplete block design, or the complete one)."""

    tables: int
    seats_min: int
    seats_max: int
    pairs_min: int
    pairs_max: int
    pairs_mean: float

    @property
    def exact(self) -> bool:
        return self.seats_min == self.seats_max and self.pairs_min == self.pairs_max

    @property
    def best_possible(self) -> bool:
        """Whether no plan of as many tables could spread pair meetings more evenly."""
        return self.pairs_max - self.pairs_min <= (0 if self.pairs_mean.is_integer() else 1)

    def text(self) -> str:
        """``625 tables; each entrant at 50 tables; pairs meet 3-4 times (mean 3.06)``."""
        seats = (
            f"{self.seats_min}"
            if self.seats_min == self.seats_max
            else f"{self.seats_min}-{self.seats_max}"
        )
        pairs = (
            f"{self.pairs_min}"
            if self.pairs_min == self.pairs_max
            else f"{self.pairs_min}-{self.pairs_max}"
        )
        verdict = (
            "a balanced incomplete block design"
            if self.exact
            else "as even as the sizes allow"
            if self.best_possible
            else "not perfectly even"
        )
        return (
            f"{self.tables} tables; each entrant at {seats} tables; pairs meet {pairs} times "
            f"(mean {self.pairs_mean:.2f}: {verdict})"
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "tables": self.tables,
            "seats_min": self.seats_min,
            "seats_max": self.seats_max,
            "pairs_min": self.pairs_min,
            "pairs_max": self.pairs_max,
            "pairs_mean": round(self.pairs_mean, 4),
            "exact": self.exact,
            "best_possible": self.best_possible,
        }


def balance_of(entrants: Sequence[str], tables: Iterable[Sequence[str]]) -> Balance:
    """The balance of ``tables`` (each the entrants at one table) over ``entrants``."""
    index = {name: i for i, name in enumerate(entrants)}
    n = len(entrants)
    seats = [0] * n
    pairs = [0] * (n * n)
    count = 0
    for table in tables:
        count += 1
        members = sorted(index[name] for name in table)
        for i, a in enumerate(members):
            seats[a] += 1
            for b in members[i + 1 :]:
                pairs[a * n + b] += 1
    met = [pairs[a * n + b] for a in range(n) for b in range(a + 1, n)] or [0]
    return Balance(
        tables=count,
        seats_min=min(seats, default=0),
        seats_max=max(seats, default=0),
        pairs_min=min(met),
        pairs_max=max(met),
        pairs_mean=sum(met) / len(met),
    )


def check_balanced(entrants: int, k: int, per_entrant: object) -> int:
    """How many tables a balanced plan of ``entrants`` at tables of ``k``, ``per_entrant``
    tables each, has. Raises PlanError for a plan that cannot be made."""
    if not isinstance(per_entrant, int) or isinstance(per_entrant, bool) or per_entrant < 1:
        raise PlanError(f"tables per entrant must be at least 1, not {per_entrant!r}")
    if entrants <= k:
        raise PlanError(
            f"a balanced tournament chooses tables of {k} among more than {k} entrants; "
            f"{entrants} fill one table: play a round robin (`--repetitions` for more games)"
        )
    return math.ceil(entrants * per_entrant / k)


def balanced_tables(
    entrants: Sequence[str], k: int, per_entrant: int, rng: random.Random
) -> list[tuple[str, ...]]:
    """The tables of a balanced plan (see the module's docstring), each in seat order."""
    n = len(entrants)
    check_balanced(n, k, per_entrant)
    complete = math.comb(n - 1, k - 1)
    if per_entrant % complete == 0:
        tables = [list(t) for t in combinations(range(n), k)] * (per_entrant // complete)
    else:
        tables = _Design(n, k, per_entrant, rng).tables
    out = []
    for table in tables:
        order = list(table)
        rng.shuffle(order)
        out.append(tuple(entrants[i] for i in order))
    return out


class _Design:
    """A greedy fill, then the local search of the module's docstring, over entrant numbers."""

    def __init__(self, n: int, k: int, per_entrant: int, rng: random.Random) -> None:
        self.n, self.k, self.rng = n, k, rng
        seats = math.ceil(n * per_entrant / k) * k
        budget = SEARCH_STEPS * 16 // max(16, k * k)  # a step's work grows as k * k
        steps = min(budget, max(MIN_STEPS, STEPS_PER_SEAT * seats))
        best: tuple[int, list[list[int]]] | None = None
        for _ in range(budget // steps):  # fresh fills while the budget lasts
            self.count = [0] * (n * n)  # pair meetings, both ways: count[a * n + b]
            self.tables = self._fill(per_entrant)
            even = self._search(steps, max(MIN_STEPS // 4, STEPS_PER_SEAT * seats // 4))
            cost = sum(c * c for c in self.count)
            if best is None or cost < best[0]:
                best = (cost, self.tables)
            if even:
                break
        assert best is not None
        self.tables = best[1]

    def _fill(self, per_entrant: int) -> list[list[int]]:
        n, k, count, rng = self.n, self.k, self.count, self.rng
        total = math.ceil(n * per_entrant / k)
        left = [per_entrant] * n
        for lucky in rng.sample(range(n), total * k - n * per_entrant):
            left[lucky] += 1
        tables = []
        for number in range(total):
            remaining = total - number
            table = [e for e in range(n) if left[e] == remaining]  # or they cannot all sit
            order = list(range(n))
            rng.shuffle(order)
            while len(table) < k:
                best, best_key = -1, (0, 0)
                for e in order:
                    if left[e] and e not in table:
                        row = e * n
                        key = (sum(count[row + x] for x in table), -left[e])
                        if best < 0 or key < best_key:
                            best, best_key = e, key
                table.append(best)
            for i, a in enumerate(table):
                left[a] -= 1
                for b in table[i + 1 :]:
                    count[a * n + b] += 1
                    count[b * n + a] += 1
            tables.append(table)
        return tables

    def _search(self, steps: int, patience: int) -> bool:
        """Swap entrants between tables for at most ``steps`` steps, or until ``patience``
        steps have passed without fewer uneven pairs than ever; whether every pair then meets
        as evenly as the sizes allow."""
        n, k, count, tables, rng = self.n, self.k, self.count, self.tables, self.rng
        total = len(tables)
        meetings = total * k * (k - 1) // 2
        pairs = n * (n - 1) // 2
        low = meetings // pairs
        high = low + (meetings % pairs > 0)
        members = [set(t) for t in tables]
        at: list[list[int]] = [[] for _ in range(n)]  # the tables of each entrant
        for number, table in enumerate(tables):
            for e in table:
                at[e].append(number)
        off: list[int] = []  # pairs a * n + b (a < b) meeting fewer than low or more than high
        where: dict[int, int] = {}

        def mark(p: int) -> None:
            if not low <= count[p] <= high:
                if p not in where:
                    where[p] = len(off)
                    off.append(p)
            elif p in where:
                i = where.pop(p)
                last = off.pop()
                if last != p:
                    off[i], where[last] = last, i

        for a in range(n):
            for b in range(a + 1, n):
                mark(a * n + b)

        def change(i: int, a: int, j: int, b: int) -> int | None:
            """The change of the sum of squared counts if ``a`` (at table i) and ``b`` (at
            table j) swap tables; None if either already sits at the other's table."""
            ti, tj = members[i], members[j]
            if b in ti or a in tj:
                return None
            ra, rb, delta = a * n, b * n, 0
            for x in tables[i]:
                if x != a and x not in tj:
                    delta += 2 * (count[rb + x] - count[ra + x]) + 2
            for y in tables[j]:
                if y != b and y not in ti:
                    delta += 2 * (count[ra + y] - count[rb + y]) + 2
            return delta

        def bump(a: int, b: int, by: int) -> None:
            count[a * n + b] += by
            count[b * n + a] += by
            mark(a * n + b if a < b else b * n + a)

        def swap(i: int, a: int, j: int, b: int) -> None:
            ti, tj = members[i], members[j]
            for x in tables[i]:
                if x != a and x not in tj:
                    bump(a, x, -1)
                    bump(b, x, 1)
            for y in tables[j]:
                if y != b and y not in ti:
                    bump(a, y, 1)
                    bump(b, y, -1)
            tables[i][tables[i].index(a)] = b
            tables[j][tables[j].index(b)] = a
            ti.discard(a)
            ti.add(b)
            tj.discard(b)
            tj.add(a)
            at[a][at[a].index(i)] = j
            at[b][at[b].index(j)] = i

        random = rng.random
        fewest, since = len(off), 0
        for step in range(steps):
            if len(off) < fewest:
                fewest, since = len(off), step
            if not off or step - since > patience:
                break
            p = off[int(random() * len(off))]
            a, x = divmod(p, n)
            if random() < 0.5:
                a, x = x, a
            best: tuple[int, int, int, int, int] | None = None
            if count[p] > high:  # a and x meet too often: a leaves one of their tables
                shared = [t for t in at[a] if x in members[t]]
                i = shared[int(random() * len(shared))]
                for _ in range(_TRIES):
                    j = int(random() * total)
                    if j != i:
                        for b in tables[j]:
                            delta = change(i, a, j, b)
                            if delta is not None and (best is None or delta < best[0]):
                                best = (delta, i, a, j, b)
            else:  # too rarely: x comes to a table of a, someone there goes to x's
                mine, theirs = at[a], at[x]
                for _ in range(_TRIES):
                    i = mine[int(random() * len(mine))]
                    j = theirs[int(random() * len(theirs))]
                    if i != j:
                        for z in tables[i]:
                            if z != a:
                                delta = change(i, z, j, x)
                                if delta is not None and (best is None or delta < best[0]):
                                    best = (delta, i, z, j, x)
            if best is not None and best[0] <= 0:
                swap(*best[1:])
        return not off
