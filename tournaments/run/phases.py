"""Phases: the order a run plays its games in, so that the processes of one entrant that play
rotations of one deal are never alive at the same time.

Every seat rotation of a table is played on the same deal, so between them the processes of an
entrant that play a deal's rotations see every hand of it. Whatever channel they might use to
pool what they saw (a file, a lock, a socket, the machine's load), they cannot use it if they
are never alive together and nothing they leave survives them. So a run groups its deals into
**blocks** of consecutive deals (in plan order: repetition by repetition, table by table) and
plays each block in as many **phases** as a deal has rotations: each phase holds one rotation
of every deal of its block, deal ``d`` playing rotation ``(step + d) mod k`` in the block's
phase number ``step`` (so an entrant does not sit in one seat through a phase and another in
the next: its seat tells it nothing of the phase). Every bot process of a phase is ended (and
seen gone, its scratch and, as root, its uid's files removed) before any process of the next
phase starts (``tournaments.run.playing``, ``tournaments.run.runner``): a process plays each deal at
most once, and those that play its other rotations start after it is gone. Within a phase
processes serve many games, and many at once, in an order drawn afresh for each run
(``shuffled``): the first game a phase's first process plays is no deal in particular.
(A bundled bot's next process may be made ready during a phase, as a warm start that runs none
of the bot's code until its phase begins: ``arena.procs.warm``.)

Blocks hold ``WAVES`` times the games the run has in flight at once (at least ``MIN_DEALS``
deals): enough that starting a phase's processes (a fraction of a second) and waiting for its
last games cost little next to the phase, few enough that deals complete as the run goes (a
block's deals are complete when its last phase ends: replays, ratings of complete deals and a
match's SPRT see them then). Blocks are of one size, as near that as divides the plan's deals
evenly; a run that may stop between blocks (a match, stopped by its SPRT) starts with
``FIRST_DEALS`` deals and doubles the block up to that size, so that a clear result is seen
after a few deals. Their boundaries follow from
the plan and from how many games the run plays at once, so a run resumed with the same
settings resumes in its earliest incomplete phase; with other settings it regroups what is
pending, which is as safe.

With **independent deals** (``tournaments.plans.schedule.DealMode``) no two games share a deal, so
there is no rotation to keep apart: a phase is a whole block, every rotation of its tables at once
(``step`` None). Blocks stay as they are (the same deals-per-block, the same boundaries on
resume); a run has a ``k``-th of the phases, so its bots' processes start ``k`` times less often.
"""

from __future__ import annotations

import bisect
import itertools
import math
import random
from collections.abc import Iterable
from dataclasses import dataclass, replace

from tournaments.plans.schedule import PlannedGame

#: A block holds this many times the games a run has in flight at once (per rotation)...
WAVES = 8
#: ... and at least this many deals (one game at a time, smaller blocks cost a third of a
#: 540-game run's speed: every phase starts the entrants' processes again).
MIN_DEALS = 256
#: The first block of a run that may stop between blocks (then doubling up to the size above).
FIRST_DEALS = 8


@dataclass(frozen=True)
class Phase:
    """One step of a block: one rotation of each deal of the block (``step`` None: every
    rotation, with independent deals), its games in plan order, its place in the run
    (``index``) and in its block (``step``), whether it is its block's last (its deals are then
    complete), and the entrants of the phase after it (``upcoming``: their processes may be
    made ready ahead, ``arena.procs.warm``)."""

    index: int
    block: int
    step: int | None
    games: tuple[tuple[int, PlannedGame], ...]
    last_of_block: bool
    upcoming: tuple[str, ...] = ()

    @property
    def entrants(self) -> tuple[str, ...]:
        """The entrants seated in its games, in order of first appearance."""
        return tuple(dict.fromkeys(label for _, game in self.games for label in game.seating))


def deals_per_block(deals: int, in_flight: int) -> int:
    """How many deals a block holds, for a plan of ``deals`` deals played ``in_flight`` games
    at once: about ``WAVES * in_flight`` (at least ``MIN_DEALS``), evened out over the plan."""
    wanted = max(MIN_DEALS, WAVES * in_flight)
    blocks = max(1, round(deals / wanted))
    return max(1, math.ceil(deals / blocks))


def block_starts(deals: int, per_block: int, *, growing: bool = False) -> list[int]:
    """The first deal of each block: every ``per_block`` deals or, ``growing``, blocks of
    ``FIRST_DEALS`` deals doubling up to ``per_block``."""
    sizes = (min(per_block, FIRST_DEALS << i) for i in itertools.count()) if growing else None
    starts, at = [], 0
    while at < max(deals, 1):
        starts.append(at)
        at += next(sizes) if sizes is not None else per_block
    return starts


def phases(
    pending: Iterable[tuple[int, PlannedGame]],
    *,
    tables: int,
    per_block: int,
    rotations: int,
    deals: int = 0,
    growing: bool = False,
    independent: bool = False,
) -> list[Phase]:
    """The phases of the ``pending`` games, block by block; ``tables`` is the number of
    tables (deals) of one repetition, ``per_block`` the deals of a block (``growing``: from
    ``FIRST_DEALS``, doubling, over the plan's ``deals``), ``rotations`` the number of
    rotations (seatings) of every deal in the plan: deal ``d`` plays rotation ``r`` in its
    block's phase ``(r - d) mod rotations`` (with ``independent`` deals, one phase a block)."""
    pending = list(pending)
    if not deals:
        deals = 1 + max((g.repetition * tables + g.table for _, g in pending), default=0)
    starts = block_starts(deals, per_block, growing=growing)
    groups: dict[tuple[int, int], list[tuple[int, PlannedGame]]] = {}
    for item in pending:
        game = item[1]
        deal = game.repetition * tables + game.table
        block = bisect.bisect_right(starts, deal) - 1
        step = -1 if independent else (game.rotation - deal) % rotations
        groups.setdefault((block, step), []).append(item)
    keys = sorted(groups)
    plan = [
        Phase(
            index=index,
            block=block,
            step=None if step < 0 else step,
            games=tuple(sorted(groups[block, step], key=lambda item: item[1].index)),
            last_of_block=index + 1 == len(keys) or keys[index + 1][0] != block,
        )
        for index, (block, step) in enumerate(keys)
    ]
    return [
        replace(phase, upcoming=plan[phase.index + 1].entrants)
        if phase.index + 1 < len(plan)
        else phase
        for phase in plan
    ]


def shuffled(phase: Phase, rng: random.Random) -> Phase:
    """``phase`` with its games in an order drawn from ``rng`` (``runner.run`` draws one per
    run from the system's randomness): which game a process of the phase plays first, or
    which its first process is given, says nothing of the deal."""
    games = list(phase.games)
    rng.shuffle(games)
    return replace(phase, games=tuple(games))
