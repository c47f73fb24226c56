"""Running a tournament: play its pending games, many at a time, and record each one.

Games are played by a ``TableRunner`` (``tournaments.playing``): in this process with
``jobs=1``, else one per worker process, or on a Dask cluster's workers (``tournaments.cluster``).

Rotation r of every deal goes to an entrant's r-th process (``playing.process_key``), so no process
plays a deal twice, however many games run at once; workers keep to their own share of the
rotations (``tournaments.dispatch``), and processes start ahead of the games that need them.
The parent is the only writer of the database: one finished game is one transaction, so a run
killed at any moment loses at most the games in flight, and running again finishes the rest.
Games are independent of each other and of the order they run in (bots are reseeded at every
``start``, and the SDK keeps each game's ``random`` apart), so the results are the same
whatever the number of jobs and games at once, and a resumed run gives the results an
uninterrupted one would. Workers send the parent each game's record without its event log:
the store keeps the actions, and replays rebuild the events with the engine.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import queue
import signal
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from arena.errors import RemoteError
from arena.procs.lifetime import die_with_parent
from arena.referee.record import GameRecord
from tournaments.dispatch import Dispatcher
from tournaments.playing import RunConfig, TableRunner
from tournaments.schedule import PlannedGame, play_order
from tournaments.store import Store

if TYPE_CHECKING:
    from tournaments.cluster import ClusterConfig

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


@dataclass(frozen=True, kw_only=True)
class RunSummary:
    played: int
    done: int
    total: int
    elapsed_s: float
    play_ms: float  # summed wall time of the games played
    processes_started: int
    failed: tuple[str, ...] = ()  # games that could not be played (they stay pending)


def _exit_on_signal(signum: int, frame: object) -> None:
    """SIGTERM from the parent: go at once (``os._exit``: no exception raised into whatever
    the worker was doing, a process start included). The bots die with their parent, and the
    pool's janitor kills and cleans up whatever is left."""
    os._exit(128 + signum)


#: Seconds the parent waits for a worker it told to stop before it kills it.
STOP_S = 5
#: Games handed to a worker beyond those it plays (it starts their processes meanwhile).
AHEAD = 2


def _worker(
    inbox: multiprocessing.Queue,
    results: multiprocessing.Queue,
    index: int,
    parent: int,
    config: RunConfig,
) -> None:
    die_with_parent(signal.SIGKILL, parent=parent)
    results.cancel_join_thread()  # exiting never waits on a parent that is gone
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    signal.signal(signal.SIGTERM, _exit_on_signal)
    runner = TableRunner(config)
    try:
        rotations = inbox.get()  # the worker's share: start those processes now
        runner.prepare_rotations(rotations)
        for done in runner.play_many(_inbox_games(inbox, runner), config.at_once):
            if done.error is None:
                results.put(("done", done.game_id, done.record, index, runner.started))
            else:
                results.put(("error", done.game_id, done.error, index, runner.started))
    finally:
        runner.close()


def _inbox_games(
    inbox: multiprocessing.Queue, runner: TableRunner
) -> Iterator[tuple[int, PlannedGame] | None]:
    """A worker's games as the parent hands them out; None when none is waiting while games
    are in flight (never block them), until the parent's None."""
    while True:
        try:
            task = inbox.get_nowait()
        except queue.Empty:
            if runner.in_flight:
                yield None
                continue
            task = inbox.get()
        if task is None:
            return
        yield task


def run(
    store: Store,
    tid: int,
    config: RunConfig,
    *,
    jobs: int = 1,
    progress: Callable[[Progress], None] | None = None,
    cluster: ClusterConfig | None = None,
) -> RunSummary:
    """Play every pending game of tournament ``tid`` as ``config`` says and record each as it
    finishes.

    ``jobs`` worker processes (1: this one) each drive ``config.at_once`` games at once; the
    stored results are the same whatever both are. Remote bots (``config.remote``) join one
    listening process: ``jobs`` 1 only. Raises KeyboardInterrupt after cleaning up if
    interrupted (finished games are already stored). With ``cluster`` the games are played on
    a Dask cluster's workers (``tournaments.cluster``), still recorded here.
    """
    if config.remote is not None and jobs > 1:
        raise RemoteError("remote bots join one listening arena process: use --jobs 1")
    info = store.tournament(tid)
    pending = sorted(store.pending_games(tid), key=lambda item: play_order(item[1]))
    total = info.games_total
    done = total - len(pending)
    tally = store.tally(tid)  # the store's tally, kept up to date as games finish
    started = time.monotonic()
    state = {"done": done, "played": 0, "play_ms": 0.0, "procs": 0, "workers": None}
    failed: list[str] = []

    def report() -> None:
        if progress:
            elapsed = time.monotonic() - started if state["played"] else 0.0
            leader = tally.crosstable().leader()
            progress(
                Progress(
                    done=state["done"],
                    total=total,
                    played=state["played"],
                    elapsed_s=elapsed,
                    leader=leader,
                    workers=state["workers"],
                )
            )

    def finished(game_id: int, planned: PlannedGame, record: GameRecord) -> None:
        if not store.record_game(game_id, record):
            return  # recorded already (a second answer for one game): counted once
        tally.add_game(planned.seating, record.places)
        state["done"] += 1
        state["played"] += 1
        state["play_ms"] += record.wall_ms
        report()

    report()
    # readers tell a running tournament from a stopped one by this beat
    with store.heartbeat(tid, games_at_once=None if cluster else config.at_once * max(1, jobs)):
        if pending and cluster is not None:
            from tournaments.cluster import play_on_cluster  # imports Dask: only when asked

            def workers(count: int) -> None:
                state["workers"] = count
                report()

            state["procs"] = play_on_cluster(cluster, config, pending, finished, failed, workers)
        elif pending and jobs <= 1:
            state["procs"] = _run_serial(pending, TableRunner(config), finished, failed)
        elif pending:
            state["procs"] = _run_parallel(
                pending, config, min(jobs, len(pending)), finished, failed
            )
    if state["played"]:
        store.rebuild_ratings(tid)
    return RunSummary(
        played=state["played"],
        done=state["done"],
        total=total,
        elapsed_s=time.monotonic() - started,
        play_ms=state["play_ms"],
        processes_started=state["procs"],
        failed=tuple(failed),
    )


def _run_serial(
    pending: list[tuple[int, PlannedGame]],
    runner: TableRunner,
    finished: Callable[[int, PlannedGame, GameRecord], None],
    errors: list[str],
) -> int:
    """Play the pending games in this process, ``at_once`` at a time, the processes of the
    next games starting meanwhile; returns how many processes were started."""
    planned = dict(pending)
    try:
        runner.prepare_rotations(sorted({game.rotation for _, game in pending}))
        for done in runner.play_many(pending, runner.config.at_once):
            if done.error is None:
                finished(done.game_id, planned[done.game_id], done.record)
            else:
                errors.append(f"game {done.game_id}: {done.error}")
                log.error("game %d could not be played: %s", done.game_id, done.error)
    finally:
        runner.close()
    return runner.started


def _run_parallel(
    pending: list[tuple[int, PlannedGame]],
    config: RunConfig,
    jobs: int,
    finished: Callable[[int, PlannedGame, GameRecord], None],
    errors: list[str],
) -> int:
    """Play ``pending`` on ``jobs`` worker processes, each driving ``at_once`` games (and
    holding ``AHEAD`` more); return how many bot processes started."""
    context = multiprocessing.get_context("spawn")
    results: multiprocessing.Queue = context.Queue()
    inboxes: list[multiprocessing.Queue] = [context.Queue() for _ in range(jobs)]
    for inbox in inboxes:
        inbox.cancel_join_thread()  # exiting never waits on a worker that is gone
    dispatcher = Dispatcher(pending, jobs)
    in_flight: list[dict[int, PlannedGame]] = [{} for _ in range(jobs)]
    stopped = [False] * jobs

    def hand_out(worker: int) -> None:
        if stopped[worker]:
            return
        item = dispatcher.next_for(worker)
        if item is not None:
            in_flight[worker][item[0]] = item[1]
        else:
            stopped[worker] = True
        inboxes[worker].put(item)

    workers = [
        context.Process(
            target=_worker,
            daemon=True,
            args=(inboxes[w], results, w, os.getpid(), config),
        )
        for w in range(jobs)
    ]
    for worker in workers:
        worker.start()
    for w in range(jobs):
        inboxes[w].put(sorted(dispatcher.share_of(w)))
    for _ in range(config.at_once + AHEAD):
        for w in range(jobs):
            hand_out(w)
    started_procs: dict[int, int] = {}
    try:
        while any(in_flight):
            try:
                kind, game_id, payload, w, procs = results.get(timeout=0.5)
            except queue.Empty:
                _give_up_on_dead(workers, in_flight, errors)
                continue
            planned = in_flight[w].pop(game_id)
            started_procs[w] = procs
            if kind == "done":
                dispatcher.played(payload.wall_ms / 1000)
                finished(game_id, planned, payload)
            else:
                errors.append(f"game {game_id}: {payload}")
                log.error("game %d could not be played: %s", game_id, payload)
            hand_out(w)
    finally:
        for worker in workers:
            if any(in_flight) and worker.is_alive():
                worker.terminate()
        for worker in workers:
            worker.join(timeout=STOP_S + 1)
            if worker.is_alive():
                worker.kill()
    return sum(started_procs.values())


def _give_up_on_dead(
    workers: list[multiprocessing.Process],
    in_flight: list[dict[int, PlannedGame]],
    errors: list[str],
) -> None:
    """Games handed to a worker that died stay pending (a later run plays them)."""
    for w, worker in enumerate(workers):
        if in_flight[w] and not worker.is_alive():
            for game_id in in_flight[w]:
                errors.append(f"game {game_id}: its worker stopped ({worker.exitcode})")
            log.error("worker %d stopped with %d game(s) in hand", w, len(in_flight[w]))
            in_flight[w].clear()
