"""Which pending game each worker of a parallel run plays next.

Rotation r of every deal is played on an entrant's r-th process (``playing.process_key``), so a
worker needs a process per entrant for every rotation it plays. Handing each worker its own
share of the rotations keeps that number low: a worker takes the earliest pending game among
its share and the rotations it has already played, else (when those are done and enough are
left to pay for new processes) the earliest pending game of any rotation. "Earliest" is the
run's play order (``schedule.play_order``: repetition by repetition, so deals are completed
as the run goes).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Generic, TypeVar

from tournaments.schedule import PlannedGame, play_order

T = TypeVar("T")


#: What starting one bot process costs, roughly (seconds of a core): a worker takes over
#: another rotation only when the games it would take off the others are worth more.
START_S = 0.2


class Dispatcher(Generic[T]):
    """Hands out ``(key, planned game)`` items to ``workers`` workers, by rotation affinity.

    A worker whose own rotations are done takes games of another rotation only while enough
    of them are left to pay for starting that rotation's processes: half the rotation's
    pending games, at the mean game time so far (``played``), must outlast ``START_S`` per
    seat. Otherwise it gets None and stops, and the workers that hold those processes finish.
    """

    def __init__(self, pending: Iterable[tuple[T, PlannedGame]], workers: int) -> None:
        self._queues: dict[int, deque[tuple[T, PlannedGame]]] = {}
        for item in sorted(pending, key=lambda item: play_order(item[1])):
            self._queues.setdefault(item[1].rotation, deque()).append(item)
        rotations = sorted(self._queues)
        self._share = (
            {
                w: {r for i, r in enumerate(rotations) if i * workers // len(rotations) == w}
                for w in range(workers)
            }
            if rotations
            else {}
        )
        self._used: dict[int, set[int]] = {w: set() for w in range(workers)}
        self._games, self._seconds = 0, 0.0

    def share_of(self, worker: int) -> set[int]:
        """The rotations ``worker`` plays first (it may take over others later)."""
        return set(self._share.get(worker, set()))

    def __len__(self) -> int:
        return sum(len(queue) for queue in self._queues.values())

    def played(self, seconds: float) -> None:
        """A game took ``seconds``: the mean game time decides whether taking over pays."""
        self._games += 1
        self._seconds += seconds

    def next_for(self, worker: int) -> tuple[T, PlannedGame] | None:
        """The next game for ``worker`` (None when it has nothing worth playing left)."""
        own = self._used[worker] | self._share.get(worker, set())
        ready = [r for r in own if self._queues.get(r)]
        if not ready:
            ready = [r for r, queue in self._queues.items() if queue and self._pays(r, worker)]
        if not ready:
            return None
        rotation = min(ready, key=lambda r: play_order(self._queues[r][0][1]))
        self._used[worker].add(rotation)
        return self._queues[rotation].popleft()

    def _pays(self, rotation: int, worker: int) -> bool:
        queue = self._queues[rotation]
        others = [
            w
            for w, used in self._used.items()
            if w != worker and (rotation in used or rotation in self._share.get(w, ()))
        ]
        if not others or not self._games:
            return True  # nobody else will play them, or nothing measured yet
        mean = self._seconds / self._games
        return len(queue) / 2 * mean > START_S * len(queue[0][1].seating)
