"""Running a tournament: play its pending games, many at a time, phase by phase, and record each.

Games are played by a ``SessionRunner`` (``tournaments.run.playing``): in this process with
``jobs=1``, else one per worker process, or on a Dask cluster's workers
(``tournaments.run.cluster``). The run goes through its **phases** (``tournaments.run.phases``: a
block of deals in one seat rotation) one after the other; a phase ends only when every worker has
played its games and ended every bot process it held, seen gone (a barrier: ``--jobs`` workers
report to this process, Dask workers to the arena's collector), and only then does the next phase
start a process. So no two processes of an entrant that play rotations of one deal are ever alive at
once, and no process plays a deal twice. Every bot process is recorded (``ProcessRecord``) with
the games it played: ``ProcessRecords.shared_deal_overlaps`` audits it.

The parent is the only writer of the database: one finished game is one transaction, so a run
killed at any moment loses at most the games in flight, and running again finishes the rest
(with fresh processes, from its earliest incomplete phase). Games are independent of each other
and of the order they run in (bots are reseeded at every ``start``, and the SDK keeps each
game's ``random`` apart), so the results are the same whatever the number of jobs and games at
once, and a resumed run gives the results an uninterrupted one would. Workers send the parent
each game's record without its event log: the store keeps the actions, and replays rebuild
the events with the engine.

Every executor tells the ``Sink`` (``tournaments.run.sink``) which games are in play: the serial run
and each ``--jobs`` worker as each game starts (``SessionRunner``'s ``on_start``; a worker sends
the parent a ``_Started``), the cluster as it hands a task's games to a worker (Dask answers a
task only once it is done, so a task's games count as in play from then). A game leaves the list
when its result (or its failure) comes back, and every phase ends with none; the run's heartbeat
writes the list at each beat (``tournaments.store.heartbeat``), so readers see which games are being
played.

``until`` (``arena match``'s SPRT) is asked between blocks, once their deals are complete; a
True stops the run there.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import queue
import random
import secrets
import signal
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from arena.errors import RemoteError
from arena.procs.lifetime import die_with_parent
from tournaments.errors import BarrierError, BotChanged
from tournaments.plans.schedule import (
    DealMode,
    PlannedGame,
    deals_in_plan,
    seatings_per_deal,
    tables_per_repetition,
)
from tournaments.run.phases import Phase, deals_per_block, phases, shuffled
from tournaments.run.playing import RunConfig, SessionRunner
from tournaments.run.sink import Executor, Progress, Sink
from tournaments.store.facts import Store
from tournaments.store.values import ProcessRecord

if TYPE_CHECKING:
    from tournaments.run.cluster import ClusterConfig

log = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class RunSummary:
    played: int
    done: int
    total: int
    elapsed_s: float
    play_ms: float  # summed wall time of the games played
    processes_started: int
    phases: int = 0  # phases played (each ended with every bot process of the run)
    failed: tuple[str, ...] = ()  # games that could not be played (they stay pending)


def run(
    store: Store,
    tid: int,
    config: RunConfig,
    *,
    jobs: int = 1,
    progress: Callable[[Progress], None] | None = None,
    cluster: ClusterConfig | None = None,
    until: Callable[[], bool] | None = None,
    workers: Workers | None = None,
) -> RunSummary:
    """Play every pending game of tournament ``tid`` as ``config`` says, phase by phase, and
    record each as it finishes.

    ``jobs`` worker processes (1: this one) each drive ``config.at_once`` games at once; the
    stored results are the same whatever both are. Remote bots (``config.remote``) join one
    listening process: ``jobs`` 1 only. With ``cluster`` the games are played on a Dask
    cluster's workers (``tournaments.run.cluster``), still recorded here. ``until`` is asked after
    each block of deals is complete: True stops the run. ``workers`` (``jobs`` > 1, no
    ``cluster``) keeps the worker processes for the next run (a ladder's next batch) rather
    than ending them. ``config.code`` (the code the entrants were planned with) is checked
    again here before each phase (and by each process start, in the executors: a game whose
    process would run changed code fails to start and stays pending). Raises
    KeyboardInterrupt after cleaning up if interrupted, BarrierError if a bot process could
    not be seen gone at a phase's end, BotChanged if a bot's code changed during the run (the
    run stops there; finished games are already stored either way, the games it could not
    start stay pending).
    """
    if config.remote is not None and jobs > 1:
        raise RemoteError("remote bots join one listening arena process: use --jobs 1")
    info = store.tournament(tid)
    pending = store.pending_games(tid)
    tables = tables_per_repetition(info.spec)
    deals = deals_in_plan(info.spec)
    per_block = deals_per_block(deals, max(1, jobs) * config.at_once)
    plan = phases(
        pending,
        tables=tables,
        per_block=per_block,
        rotations=seatings_per_deal(info.spec),
        deals=deals,
        growing=until is not None,
        independent=info.spec.deals is DealMode.INDEPENDENT,
    )
    order = random.SystemRandom()
    sink = Sink(store, tid, progress)
    sink.report()
    played_phases = 0
    # readers tell a running tournament from a stopped one by this beat
    with store.runs.heartbeat(
        tid,
        games_at_once=None if cluster else config.at_once * max(1, jobs),
        playing=sink.playing,
    ):
        if plan:
            store.processes.close_lost(tid)  # a killed run's: dead before any of this one starts
            kept = workers if cluster is None and jobs > 1 else None
            executor = (
                kept.take(config, jobs)
                if kept is not None
                else _executor(config, jobs, cluster, sink)
            )
            try:
                for phase in plan:
                    if until is not None and phase.index and plan[phase.index - 1].last_of_block:
                        if until():
                            break
                    _check_code(config, phase.entrants, sink, f"before its phase {phase.index + 1}")
                    try:
                        executor.play(shuffled(phase, order), sink)
                    finally:
                        sink.returned(list(sink.in_play))  # between phases none is in play
                    played_phases += 1
                if sink.failed:  # some failed to start: was it a bot changed in the last phase?
                    _check_code(config, config.bots, sink, "at its end")
            finally:
                sink.processes = kept.release() if kept is not None else executor.close(sink)
    if sink.played:
        store.results.rebuild_ratings(tid)
    return RunSummary(
        played=sink.played,
        done=sink.done,
        total=sink.total,
        elapsed_s=time.monotonic() - sink.started,
        play_ms=sink.play_ms,
        processes_started=sink.processes,
        phases=played_phases,
        failed=tuple(sink.failed),
    )


def _check_code(config: RunConfig, entrants: Iterable[str], sink: Sink, when: str) -> None:
    """Hash the code of ``entrants`` again (``config.code``), between phases (no game in
    flight): a bot changed during the run stops it here, ``when`` says where."""
    if config.code is None:
        return
    try:
        config.code.check(entrants)
    except BotChanged as exc:
        raise BotChanged(
            f"{exc}; it changed during the run, which stops {when}: {sink.done} of "
            f"{sink.total} games are recorded, the rest stay pending (put the files back and "
            "run again, or plan a new tournament with the new version)"
        ) from None


def _executor(config: RunConfig, jobs: int, cluster: ClusterConfig | None, sink: Sink) -> Executor:
    run_id = secrets.token_hex(6)
    if cluster is not None:
        from tournaments.run.cluster import ClusterExecutor  # imports Dask: only when asked

        def workers(count: int) -> None:
            sink.workers = count
            sink.report()

        return ClusterExecutor(cluster, config, workers)
    if jobs <= 1:
        return _Serial(config, run_id, sink)
    return _Workers(config, jobs, run_id)


class _Serial:
    """A run in this process: one SessionRunner."""

    def __init__(self, config: RunConfig, run_id: str, sink: Sink) -> None:
        self.runner = SessionRunner(
            config, run=run_id, on_start=lambda game_id: sink.began((game_id,))
        )

    def play(self, phase: Phase, sink: Sink) -> None:
        planned = dict(phase.games)
        self.runner.begin_phase(phase.index, phase.entrants, upcoming=phase.upcoming)
        for item in self.runner.play_many(phase.games, self.runner.config.at_once):
            sink.take(item, planned)
        sink.ended(self.runner.end_phase())

    def close(self, sink: Sink) -> int:
        started = self.runner.started
        sink.record(self.runner.close())
        return started


# -- worker processes (--jobs N) ---------------------------------------------------------------


@dataclass(frozen=True)
class _Begin:
    """To a worker: phase ``index`` begins, with these entrants; ``renew`` (the first phase of
    a run on kept workers): the run's config and id, to play it on a new ``SessionRunner``."""

    index: int
    entrants: tuple[str, ...]
    renew: tuple[RunConfig, str] | None = None
    upcoming: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Ended:
    """From a worker: it ended every bot process of its phase (their records), and has
    started ``started`` processes so far."""

    records: tuple[ProcessRecord, ...]
    started: int


@dataclass(frozen=True)
class _Started:
    """From a worker: it started game ``game_id``."""

    game_id: int


#: To a worker: no more games in this phase.
_PHASE_END: Any = "phase-end"


def _exit_on_signal(signum: int, frame: object) -> None:
    """SIGTERM from the parent: go at once (``os._exit``: no exception raised into whatever
    the worker was doing, a process start included). The bots die with their parent, and the
    pool's janitor kills and cleans up whatever is left."""
    os._exit(128 + signum)


#: Seconds the parent waits for a worker it told to stop before it kills it.
STOP_S = 5
#: Games handed to a worker beyond those it plays.
AHEAD = 2


def _worker(
    inbox: multiprocessing.Queue,
    results: multiprocessing.Queue,
    index: int,
    parent: int,
    config: RunConfig,
    run_id: str,
) -> None:
    die_with_parent(signal.SIGKILL, parent=parent)
    results.cancel_join_thread()  # exiting never waits on a parent that is gone
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    signal.signal(signal.SIGTERM, _exit_on_signal)

    def started(game_id: int) -> None:
        results.put((index, _Started(game_id)))

    runner = SessionRunner(config, run=run_id, host=f"job {index + 1}", on_start=started)
    try:
        begin = inbox.get()
        while begin is not None:
            if begin.renew is not None:
                runner.close()
                runner = SessionRunner(
                    begin.renew[0], run=begin.renew[1], host=runner.host, on_start=started
                )
            runner.begin_phase(begin.index, begin.entrants, upcoming=begin.upcoming)
            for item in runner.play_many(_inbox_games(inbox, runner), runner.config.at_once):
                results.put((index, item))
            results.put((index, _Ended(tuple(runner.end_phase()), runner.started)))
            begin = inbox.get()
    finally:
        runner.close()


def _inbox_games(
    inbox: multiprocessing.Queue, runner: SessionRunner
) -> Iterator[tuple[int, PlannedGame] | None]:
    """A worker's games of one phase as the parent hands them out; None when none is waiting
    while games are in flight (never block them), until the parent's end of the phase."""
    while True:
        try:
            task = inbox.get_nowait()
        except queue.Empty:
            if runner.in_flight:
                yield None
                continue
            task = inbox.get()
        if task == _PHASE_END:
            return
        yield task


class _Workers:
    """``jobs`` worker processes, each driving ``at_once`` games at once (and holding ``AHEAD``
    more); the parent hands out each phase's games and waits for every worker's end of it."""

    def __init__(self, config: RunConfig, jobs: int, run_id: str) -> None:
        self.config = config
        context = multiprocessing.get_context("spawn")
        self.results: multiprocessing.Queue = context.Queue()
        self.inboxes: list[multiprocessing.Queue] = [context.Queue() for _ in range(jobs)]
        for inbox in self.inboxes:
            inbox.cancel_join_thread()  # exiting never waits on a worker that is gone
        self.workers = [
            context.Process(
                target=_worker,
                daemon=True,
                args=(self.inboxes[w], self.results, w, os.getpid(), config, run_id),
            )
            for w in range(jobs)
        ]
        for worker in self.workers:
            worker.start()
        self.started = [0] * jobs
        self.lost: set[int] = set()
        self.between = True  # between phases: the workers wait for the next one
        self.renew: tuple[RunConfig, str] | None = None  # to send with the next phase

    def reuse(self, config: RunConfig, run_id: str) -> None:
        """Play the next run (``config``, ``run_id``) on these workers: each starts it on a
        new ``SessionRunner`` with the run's first phase."""
        self.config, self.renew = config, (config, run_id)
        self.started = [0] * len(self.workers)

    @property
    def usable(self) -> bool:
        """Whether another run can be played on these workers: between phases, all alive."""
        return self.between and not self.lost and all(w.is_alive() for w in self.workers)

    def play(self, phase: Phase, sink: Sink) -> None:
        planned = dict(phase.games)
        games = deque(phase.games)
        live = [w for w in range(len(self.workers)) if w not in self.lost]
        in_flight: dict[int, set[int]] = {w: set() for w in live}
        told: set[int] = set()
        ended: set[int] = set()

        def hand_out(w: int) -> None:
            if games:
                item = games.popleft()
                in_flight[w].add(item[0])
                self.inboxes[w].put(item)
            elif w not in told:
                told.add(w)
                self.inboxes[w].put(_PHASE_END)

        self.between = False
        for w in live:
            self.inboxes[w].put(_Begin(phase.index, phase.entrants, self.renew, phase.upcoming))
        self.renew = None
        for _ in range(self.config.at_once + AHEAD):
            for w in live:
                hand_out(w)
        while len(ended) < len(live):
            try:
                w, item = self.results.get(timeout=0.5)
            except queue.Empty:
                self._give_up_on_dead(live, in_flight, ended, sink)
                continue
            if isinstance(item, _Ended):
                self.started[w] = item.started
                ended.add(w)
                sink.ended(item.records, f" (job {w + 1})")
            elif isinstance(item, _Started):
                sink.began((item.game_id,))
            elif isinstance(item, ProcessRecord):
                sink.record([item])
            else:
                in_flight[w].discard(item.game_id)
                sink.game(item, planned[item.game_id])
                hand_out(w)
        self.between = True
        if self.lost:
            raise BarrierError(
                f"worker process(es) {', '.join(str(w + 1) for w in sorted(self.lost))} "
                "stopped: the bot processes they held could not be seen gone, so the run "
                "stops here"
            )

    def _give_up_on_dead(
        self, live: list[int], in_flight: dict[int, set[int]], ended: set[int], sink: Sink
    ) -> None:
        """Games handed to a worker that died stay pending (a later run plays them); the
        phase goes on without it, and the run stops at its end."""
        for w in live:
            worker = self.workers[w]
            if w not in ended and not worker.is_alive():
                for game_id in sorted(in_flight[w]):
                    sink.fail(game_id, f"game {game_id}: its worker stopped ({worker.exitcode})")
                log.error(
                    "worker %d stopped (exit code %s) with %d game(s) in hand",
                    w,
                    worker.exitcode,
                    len(in_flight[w]),
                )
                in_flight[w].clear()
                ended.add(w)
                self.lost.add(w)

    def close(self, sink: Sink | None) -> int:
        """Stop the workers: told to, between phases (they end their bots); at once, in the
        middle of one (interrupted: their bots die with them, the janitors clean up)."""
        for w, worker in enumerate(self.workers):
            if worker.is_alive() and self.between:
                self.inboxes[w].put(None)
            elif worker.is_alive():
                worker.terminate()
        deadline = time.monotonic() + STOP_S
        for worker in self.workers:
            worker.join(timeout=max(0.0, deadline - time.monotonic()))
            if worker.is_alive():
                worker.terminate()
        for worker in self.workers:
            worker.join(timeout=STOP_S + 1)
            if worker.is_alive():
                worker.kill()
        return sum(self.started)


class Workers:
    """``--jobs`` worker processes kept from one run to the next (``run(..., workers=...)``: a
    ladder plays each batch as a run of its own), so that each run does not start them (and
    import the arena in them) again. The first run that needs them starts them; each later run
    sends its config and id with its first phase, and each worker plays it on a new
    ``SessionRunner``. Between phases a worker holds no bot process (every phase ends them
    all), so keeping workers changes nothing of the phases' barrier. A run that stops in the
    middle of a phase (interrupted, a worker lost) ends them, as a run without ``workers``
    does; ``close`` ends them between runs."""

    def __init__(self) -> None:
        self._pool: _Workers | None = None

    def take(self, config: RunConfig, jobs: int) -> _Workers:
        """The workers for a run of ``config`` on ``jobs`` workers: the kept ones if they can
        play it, else new ones."""
        run_id = secrets.token_hex(6)
        pool = self._pool
        if pool is not None and (len(pool.workers) != jobs or not pool.usable):
            self.close()
            pool = None
        if pool is None:
            pool = self._pool = _Workers(config, jobs, run_id)
        else:
            pool.reuse(config, run_id)
        return pool

    @property
    def pids(self) -> tuple[int, ...]:
        """The worker processes' ids (none before the first run, or after ``close``)."""
        return tuple(w.pid or 0 for w in self._pool.workers) if self._pool is not None else ()

    def release(self) -> int:
        """The end of a run: its workers are kept if they are between phases and all alive,
        else ended. The number of bot processes the run started."""
        pool = self._pool
        if pool is None:
            return 0
        started = sum(pool.started)
        if not pool.usable:
            self.close()
        return started

    def close(self) -> None:
        """End the workers (told to, between phases; at once in the middle of one)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.close(None)

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
