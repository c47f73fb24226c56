"""Matchmaking: the tables of a ladder's next batch, chosen from the skills so far.

``plan_batch`` is pure: given the bot versions in matchmaking (``Candidate``: skill, games,
participant), how often each pair has met, the table sizes and a budget of games, it returns
the tables. Every table is then played in each of its seat rotations on one deal, so a
table of k seats is k games and each of its bots plays all of them.

The rules (``docs/ladder.md`` gives the reason of each):

1. **Placement first.** Tables are formed one at a time around a *seed*: the bot version
   that most needs games. Versions in placement (fewer than ``placement_games`` games) come
   first, then those seated least in this batch, then the most uncertain (largest sigma),
   then those with fewest games. A version in placement may sit at twice as many tables of
   a batch as the others (``fair_share``: the budget's seats over the versions; each seat
   is a table's worth of games).
2. **Skill-close tables.** The other seats are taken from the ``window`` versions nearest
   the seed's mu.
3. **Least met.** Among those, the versions that have met the bots already at the table
   least often (in earlier batches and in this one so far) are taken first; ties go to the
   nearest in skill, then to the lower id.
4. **Collusion.** No two versions of one participant sit at one table (a participant's
   bots, two versions of one bot included, could signal to each other).
5. **Bounded batches.** At most ``max_entries`` versions take part in a batch (each needs
   a process per seat rotation while it runs), and tables are added until the batch holds
   ``games`` games.
6. **Every size.** Table sizes take turns through the ladder's range; a table that cannot be
   filled to its size is made as large as it can be within the range.

Ties are broken by candidate key, so the same input gives the same tables.
"""

from __future__ import annotations

import bisect
import heapq
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from tournaments.ratings.skill import Skill

__all__ = ["Candidate", "MatchParams", "fair_share", "pair", "plan_batch"]


@dataclass(frozen=True, slots=True)
class Candidate:
    """A bot version in matchmaking: its key (entry id), its participant (``group``), skill
    and games played."""

    key: int
    group: str
    skill: Skill
    games: int


@dataclass(frozen=True, kw_only=True)
class MatchParams:
    """What shapes a batch: table sizes, the budget of games, the placement threshold, the
    most versions in a batch and the skill window searched for each seat."""

    sizes: tuple[int, ...]
    games: int
    placement_games: int
    max_entries: int
    window: int = 6


def pair(a: int, b: int) -> tuple[int, int]:
    """The key of an unordered pair of candidates in the ``met`` counts."""
    return (a, b) if a < b else (b, a)


def fair_share(params: MatchParams, count: int) -> int:
    """Tables a version (not in placement) may sit at in one batch of ``count`` candidates."""
    versions = max(1, min(count, params.max_entries))
    return max(1, math.ceil(params.games / versions))


def plan_batch(
    candidates: Sequence[Candidate],
    params: MatchParams,
    met: Mapping[tuple[int, int], int],
) -> list[tuple[int, ...]]:
    """The tables (candidate keys, seed first) of the next batch; see the module's rules."""
    low = min(params.sizes)
    by_key = {c.key: c for c in candidates}
    placement = {c.key for c in candidates if c.games < params.placement_games}
    share = fair_share(params, len(candidates))
    cap = {c.key: share * (2 if c.key in placement else 1) for c in candidates}
    used = dict.fromkeys(by_key, 0)
    pool = _Pool(candidates)
    in_batch: set[int] = set()
    here: dict[tuple[int, int], int] = {}  # tables shared in this batch so far

    def counts(a: int, b: int) -> int:
        key = pair(a, b)
        return met.get(key, 0) + here.get(key, 0)

    def priority(key: int) -> tuple[bool, int, float, int, int]:
        c = by_key[key]
        return (key not in placement, used[key], -c.skill.sigma, c.games, key)

    heap = [priority(key) for key in by_key]
    heapq.heapify(heap)
    tables: list[tuple[int, ...]] = []
    games = 0
    while heap and games < params.games:
        entry = heapq.heappop(heap)
        seed = entry[-1]
        if seed not in pool:
            continue
        if entry != priority(seed):
            heapq.heappush(heap, priority(seed))  # seated since it was queued: requeue
            continue
        size = params.sizes[len(tables) % len(params.sizes)]
        room = params.max_entries - len(in_batch) - (seed not in in_batch)
        if room < 0:
            pool.remove(seed)
            continue
        table = _fill(by_key[seed], size, pool, counts, params.window, in_batch, room)
        if len(table) < low:
            pool.remove(seed)  # no table can form around it in this batch: it waits
            continue
        tables.append(tuple(table))
        games += len(table)
        for i, a in enumerate(table):
            for b in table[i + 1 :]:
                here[pair(a, b)] = here.get(pair(a, b), 0) + 1
        for key in table:
            used[key] += 1
            in_batch.add(key)
            if used[key] >= cap[key]:
                pool.remove(key)
        if len(in_batch) >= params.max_entries:
            pool.keep(in_batch)  # the batch is full: only its versions take more seats
        if seed in pool:
            heapq.heappush(heap, priority(seed))
    return tables


class _Pool:
    """The versions that may still take a seat in this batch, in skill order (mu, then key)."""

    def __init__(self, candidates: Sequence[Candidate]) -> None:
        ordered = sorted(candidates, key=lambda c: (c.skill.mu, c.key))
        self.order = [(c.skill.mu, c.key) for c in ordered]
        self.by_key = {c.key: c for c in ordered}

    def __contains__(self, key: int) -> bool:
        return key in self.by_key

    def remove(self, key: int) -> None:
        c = self.by_key.pop(key, None)
        if c is not None:
            del self.order[bisect.bisect_left(self.order, (c.skill.mu, c.key))]

    def keep(self, keys: set[int]) -> None:
        for key in [k for k in self.by_key if k not in keys]:
            self.remove(key)

    def nearest(
        self,
        seed: Candidate,
        taken: set[int],
        groups: set[str],
        count: int,
        only: set[int] | None = None,
    ) -> list[Candidate]:
        """Up to ``count`` versions nearest ``seed`` in skill, walking out from it in the
        skill order, none in ``taken``, none of a participant in ``groups`` and, if ``only``
        is given, only those in it."""
        mu = seed.skill.mu
        order = self.order
        found: list[Candidate] = []
        right = bisect.bisect_left(order, (mu, seed.key))
        left = right - 1
        while len(found) < count and (left >= 0 or right < len(order)):
            if right >= len(order) or (left >= 0 and mu - order[left][0] <= order[right][0] - mu):
                key = order[left][1]
                left -= 1
            else:
                key = order[right][1]
                right += 1
            c = self.by_key[key]
            if key not in taken and c.group not in groups and (only is None or key in only):
                found.append(c)
        return found


def _fill(
    seed: Candidate,
    size: int,
    pool: _Pool,
    met: Callable[[int, int], int],
    window: int,
    in_batch: set[int],
    room: int,
) -> list[int]:
    """A table of up to ``size`` around ``seed``: seats taken one at a time from the
    ``window`` nearest versions in skill whose participant is not yet at the table, least met
    with the table first; at most ``room`` of them new to the batch."""
    table = [seed.key]
    groups = {seed.group}
    taken = {seed.key}
    mu = seed.skill.mu
    while len(table) < size:
        near = pool.nearest(seed, taken, groups, window, None if room > 0 else in_batch)
        if not near:
            break
        best = min(
            near,
            key=lambda c: (
                sum(met(c.key, other) for other in table),
                abs(c.skill.mu - mu),
                c.key,
            ),
        )
        table.append(best.key)
        taken.add(best.key)
        groups.add(best.group)
        room -= best.key not in in_batch
    return table
