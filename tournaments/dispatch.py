"""Which pending game each worker of a parallel run plays next.

Rotation r of every deal is played on an entrant's r-th process (``runner.process_key``), so a
worker needs a process per entrant for every rotation it plays. Handing each worker its own
share of the rotations keeps that number low: a worker takes the earliest pending game among
its share and the rotations it has already played, else (when those are done) the earliest
pending game of any rotation. Games come in plan order within those choices, so deals are
completed as the run goes.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Generic, TypeVar

from tournaments.schedule import PlannedGame

T = TypeVar("T")


class Dispatcher(Generic[T]):
    """Hands out ``(key, planned game)`` items to ``workers`` workers, by rotation affinity."""

    def __init__(self, pending: Iterable[tuple[T, PlannedGame]], workers: int) -> None:
        self._queues: dict[int, deque[tuple[T, PlannedGame]]] = {}
        for item in sorted(pending, key=lambda item: item[1].index):
            self._queues.setdefault(item[1].rotation, deque()).append(item)
        rotations = sorted(self._queues)
        self._share = {w: {r for i, r in enumerate(rotations) if i * workers // len(rotations) == w}
                       for w in range(workers)} if rotations else {}
        self._used: dict[int, set[int]] = {w: set() for w in range(workers)}

    def __len__(self) -> int:
        return sum(len(queue) for queue in self._queues.values())

    def next_for(self, worker: int) -> tuple[T, PlannedGame] | None:
        """The next game for ``worker`` (None when no game is left)."""
        own = self._used[worker] | self._share.get(worker, set())
        for rotations in (own, self._queues):
            ready = [r for r in rotations if self._queues.get(r)]
            if ready:
                rotation = min(ready, key=lambda r: self._queues[r][0][1].index)
                self._used[worker].add(rotation)
                return self._queues[rotation].popleft()
        return None
