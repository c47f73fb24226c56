"""Where a run's results go: the ``Sink`` every executor reports to (in the arena's process:
each game stored once, the tally, the progress bar, process records, failures and the games in
play), the ``Progress`` it reports for progress bars, and ``Executor``, how a run plays its
phases (in this process, on ``--jobs`` workers: ``tournaments.run.runner``; on a cluster:
``tournaments.run.cluster``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

from arena.referee.record import Played
from tournaments.errors import BarrierError
from tournaments.plans.schedule import PlannedGame, plan_size
from tournaments.run.phases import Phase
from tournaments.store.facts import Store
from tournaments.store.values import ProcessRecord

log = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class Progress:
    """Where a run stands, for progress bars."""

    done: int
    total: int
    played: int  # games played by this run
    elapsed_s: float
    leader: str | None
    workers: int | None = None  # cluster workers in use (None: a local run)

    @property
    def rate(self) -> float:
        return self.played / self.elapsed_s if self.elapsed_s > 0 else 0.0

    @property
    def eta_s(self) -> float | None:
        return (self.total - self.done) / self.rate if self.rate > 0 else None


class Sink:
    """Where a run's results go: each game into the store (once), the tally and the progress
    bar; each process record into the store; the games that could not be played into
    ``failed``. Every executor reports here, in this process."""

    def __init__(
        self,
        store: Store,
        tid: int,
        progress: Callable[[Progress], None] | None,
    ) -> None:
        self.store, self.tid, self.progress = store, tid, progress
        info = store.tournament(tid)
        # a tournament played in rounds: all its rounds', the later ones not planned yet
        self.total = plan_size(info.spec) if info.spec.kind.in_rounds else info.games_total
        self.done = info.games_done
        self.tally = store.results.tally(tid)  # the store's tally, kept up to date as games finish
        self.started = time.monotonic()
        self.played = 0
        self.play_ms = 0.0
        self.processes = 0
        self.workers: int | None = None
        self.failed: list[str] = []
        self.in_play: dict[int, float] = {}  # game id -> when it started (time.time)

    def began(self, game_ids: Iterable[int]) -> None:
        """Games handed to be played (their results are to come)."""
        now = time.time()
        for game_id in game_ids:
            self.in_play[game_id] = now

    def returned(self, game_ids: Iterable[int]) -> None:
        """Games that are no longer being played (given back, or the phase is over)."""
        for game_id in game_ids:
            self.in_play.pop(game_id, None)

    def playing(self) -> dict[int, float]:
        """The games in play and when each started (a copy: read by the heartbeat's thread)."""
        return self.in_play.copy()

    def fail(self, game_id: int, why: str) -> None:
        """Game ``game_id`` could not be played (it stays pending): ``why`` is listed."""
        self.in_play.pop(game_id, None)
        self.failed.append(why)

    def report(self) -> None:
        if self.progress:
            elapsed = time.monotonic() - self.started if self.played else 0.0
            self.progress(
                Progress(
                    done=self.done,
                    total=self.total,
                    played=self.played,
                    elapsed_s=elapsed,
                    leader=self.tally.crosstable().leader(),
                    workers=self.workers,
                )
            )

    def take(self, item: Played | ProcessRecord, planned: Mapping[int, PlannedGame]) -> None:
        """One item of a SessionRunner's stream: a game, or a process record."""
        if isinstance(item, ProcessRecord):
            self.record([item])
        else:
            self.game(item, planned[item.game_id])

    def game(self, played: Played, planned: PlannedGame) -> None:
        """A finished game: recorded once (a second answer for one game counts once), or
        listed among the failed (it stays pending)."""
        self.in_play.pop(played.game_id, None)
        if played.record is None:
            self.fail(played.game_id, f"game {played.game_id}: {played.error}")
            log.error("game %d could not be played: %s", played.game_id, played.error)
            return
        if not self.store.record_game(played.game_id, played.record, processes=played.processes):
            return
        self.tally.add_game(planned.seating, played.record.places)
        self.done += 1
        self.played += 1
        self.play_ms += played.record.wall_ms
        self.report()

    def record(self, records: Iterable[ProcessRecord]) -> None:
        """Process records (a process starting, or ended at the end of the run): kept."""
        self.store.processes.record(self.tid, records)

    def ended(self, records: Iterable[ProcessRecord], where: str = "") -> None:
        """The records of the processes a phase's end (a barrier) ended: kept; raises
        BarrierError if one of them could not be seen gone (the next phase must not start)."""
        records = list(records)
        self.store.processes.record(self.tid, records)
        left = [r for r in records if not r.confirmed and not r.remote]
        if left:
            raise BarrierError(
                f"{len(left)} bot process(es) of {', '.join(sorted({r.entrant for r in left}))}"
                f"{where} could not be seen gone after being killed: the run stops here"
            )


class Executor(Protocol):
    """How a run plays its phases: here, on ``--jobs`` worker processes, or on a cluster."""

    def play(self, phase: Phase, sink: Sink) -> None:
        """Play the phase's games and end (and see gone) every bot process it started."""

    def close(self, sink: Sink) -> int:
        """End everything; the number of bot processes started."""
