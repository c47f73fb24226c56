"""Running a tournament: play its pending games, N at a time, and record each one.

Games are played by a ``TableRunner``: a game session (``arena.session``) whose bot processes
serve game after game (a process is replaced only after a crash), in this process with
``jobs=1``, else one per worker process. Rotation r of every deal goes to an entrant's r-th
process (``process_key``), so no process plays a deal twice; workers keep to their own share of
the rotations (``tournaments.dispatch``), and processes start ahead of the games that need
them. The parent is the only writer of the database: one finished game is one transaction, so a
run killed at any moment loses at most the games in flight, and running again finishes the
rest. Games are independent of each other and of the order they run in (bots are reseeded at
every ``start``), so a resumed run gives the results an uninterrupted one would. Workers send
the parent each game's record without its event log: the store keeps the actions, and replays
rebuild the events with the engine.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import queue
import signal
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from arena.botproc import BotSpec
from arena.errors import RemoteError
from arena.games import get_game
from arena.games.base import Game
from arena.lifetime import die_with_parent
from arena.record import GameRecord, Limits
from arena.remote import RemoteConfig
from arena.sandbox import Sandbox
from arena.session import Session
from tournaments.dispatch import Dispatcher
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


def process_key(label: str, rotation: int, spec: BotSpec) -> str:
    """The pool key of the process that plays ``label``'s games in seat rotation ``rotation``.

    Every rotation of a deal is played on the same deal, so a process that played one rotation
    would know, in the next, the hands it saw. Rotation r of every deal therefore goes to the
    entrant's r-th process: each process sees each deal at most once, in every mode (one job
    or many, resumed runs, replaced processes). A remote bot is one connection whose owner's
    program the arena cannot isolate: it keeps one key (``tournament create`` warns).

    Keys never collide: a local key ends in ``.rot`` and digits, a remote one in ``.remote``,
    so no entrant's name (``x.rot1``, say) can make its key another entrant's.
    """
    return f"{label}.remote" if spec.remote else f"{label}.rot{rotation}"


class TableRunner:
    """Plays a tournament's planned games (tables) on one session, whose bot processes serve
    game after game: rotation r of every deal goes to each entrant's r-th process."""

    def __init__(
        self,
        game: Game,
        options: Mapping,
        specs: Mapping[str, BotSpec],
        limits: Limits,
        log_dir: Path | None,
        sandbox: Sandbox | None = None,
        remote: RemoteConfig | None = None,
    ) -> None:
        self.game = game
        self.options = dict(options)
        self.specs = dict(specs)
        self.session = Session(limits, log_dir=log_dir, sandbox=sandbox, remote=remote)

    def entries(self, planned: PlannedGame) -> list[tuple[str, BotSpec]]:
        """The pool entries (process key, spec) of a game's seats."""
        return [
            (process_key(label, planned.rotation, self.specs[label]), self.specs[label])
            for label in planned.seating
        ]

    def prepare(self, planned: PlannedGame) -> None:
        """Start what ``planned`` will need while another game is played."""
        self.session.prestart(self.entries(planned))

    def prepare_rotations(self, rotations: Iterable[int]) -> None:
        """At the start of a run or a worker: start every entrant's processes for ``rotations``
        (in that order), up to ``PREPARE_PROCS`` of them, all at once, so that their start-up
        overlaps the first games."""
        wanted = [
            (process_key(label, rotation, spec), spec)
            for rotation in rotations
            for label, spec in self.specs.items()
        ]
        self.session.prestart(list(dict(wanted).items())[:PREPARE_PROCS])

    @property
    def started(self) -> int:
        """Bot processes started so far."""
        return self.session.started

    def play(self, game_id: int, planned: PlannedGame) -> GameRecord:
        """Play one planned game. Its event log is left out: the store keeps the actions, and
        replays rebuild the events from the seed and the actions."""
        seats = self.session.seats(self.entries(planned))
        record = self.session.play(
            self.game,
            seats,
            seed=planned.deal_seed,
            options=self.options,
            game_id=game_id,
            bot_seeds=planned.bot_seeds(),
            names=planned.seating,
        )
        return replace(record, events=())

    def close(self) -> None:
        self.session.close()

    # Stand-in for issue 15 (branch many-games), which replaces it with the real one: one game
    # at a time through ``play``, with the interface the cluster workers are written against.
    def play_many(
        self, games: Iterable[tuple[int, PlannedGame]], at_once: int
    ) -> Iterator[Finished]:
        """Play ``games`` (consumed lazily), up to ``at_once`` at a time, yielding each as it
        finishes (its record without the event log, or why the arena could not play it)."""
        for game_id, planned in games:
            try:
                record = self.play(game_id, planned)
            except Exception as exc:  # noqa: BLE001 - reported with the game, never lost
                log.exception("game %d failed", game_id)
                yield Finished(game_id=game_id, record=None, error=f"{type(exc).__name__}: {exc}")
            else:
                yield Finished(game_id=game_id, record=record, error=None)


@dataclass(frozen=True)
class Finished:
    """A game ``TableRunner.play_many`` finished: its record, or the error that stopped it."""

    game_id: int
    record: GameRecord | None
    error: str | None


def _exit_on_signal(signum: int, frame: object) -> None:
    """SIGTERM from the parent: go at once (``os._exit``: no exception raised into whatever
    the worker was doing, a process start included). The bots die with their parent, and the
    pool's janitor kills and cleans up whatever is left."""
    os._exit(128 + signum)


#: Seconds the parent waits for a worker it told to stop before it kills it.
STOP_S = 5
#: Games handed to a worker ahead of the one it plays (it starts their processes meanwhile).
AHEAD = 2
#: Bot processes started at once when a run begins (the rest start a game ahead).
PREPARE_PROCS = 32


def _worker(
    inbox: multiprocessing.Queue,
    results: multiprocessing.Queue,
    index: int,
    parent: int,
    game: Game,
    options: dict,
    specs: dict,
    limits: Limits,
    log_dir: Path | None,
    sandbox: Sandbox | None,
) -> None:
    die_with_parent(signal.SIGKILL, parent=parent)
    results.cancel_join_thread()  # exiting never waits on a parent that is gone
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    signal.signal(signal.SIGTERM, _exit_on_signal)
    runner = TableRunner(game, options, specs, limits, log_dir, sandbox)
    try:
        rotations = inbox.get()  # the worker's share: start those processes now
        runner.prepare_rotations(rotations)
        task = inbox.get()
        while task is not None:
            try:
                upcoming = inbox.get_nowait()
            except queue.Empty:
                upcoming = False
            if upcoming:
                runner.prepare(upcoming[1])
            game_id, planned = task
            try:
                record = runner.play(game_id, planned)
                results.put(("done", game_id, record, index, runner.started))
            except Exception as exc:  # noqa: BLE001 - reported to the parent, never lost
                log.exception("game %d failed", game_id)
                results.put(
                    ("error", game_id, f"{type(exc).__name__}: {exc}", index, runner.started)
                )
            task = inbox.get() if upcoming is False else upcoming
    finally:
        runner.close()


def run(
    store: Store,
    tid: int,
    *,
    specs: Mapping[str, BotSpec],
    jobs: int = 1,
    limits: Limits | None = None,
    progress: Callable[[Progress], None] | None = None,
    log_dir: Path | None = None,
    sandbox: Sandbox | None = None,
    remote: RemoteConfig | None = None,
    cluster: ClusterConfig | None = None,
) -> RunSummary:
    """Play every pending game of tournament ``tid`` and record each as it finishes.

    ``specs`` maps each entrant label to how to run it; ``sandbox`` (None: unsandboxed; the
    command line resolves it) and ``limits`` say how bot processes run; ``remote`` lets remote
    bots join (with ``jobs=1`` only: one process listens). With ``cluster`` the games are
    played on a Dask cluster's workers (``tournaments.cluster``), still recorded here. Raises
    KeyboardInterrupt after cleaning up if interrupted (finished games are already stored).
    """
    if remote is not None and jobs > 1:
        raise RemoteError("remote bots join one listening arena process: use --jobs 1")
    info = store.tournament(tid)
    spec = info.spec
    game = get_game(spec.game)  # workers get the game itself (one registered here only too)
    limits = limits or Limits(move_ms=spec.move_ms)
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
    if pending and cluster is not None:
        from tournaments.cluster import play_on_cluster  # imports Dask: only when asked

        def workers(count: int) -> None:
            state["workers"] = count
            report()

        state["procs"] = play_on_cluster(
            cluster, pending, game.name, spec.options, limits, finished, failed, workers
        )
    elif pending and jobs <= 1:
        runner = TableRunner(game, spec.options, specs, limits, log_dir, sandbox, remote)
        state["procs"] = _run_serial(pending, runner, finished)
    elif pending:
        state["procs"] = _run_parallel(
            pending,
            game,
            spec.options,
            specs,
            limits,
            min(jobs, len(pending)),
            log_dir,
            finished,
            failed,
            sandbox,
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
) -> int:
    """Play the pending games in this process, each next game's processes starting while the
    current one plays; returns how many processes were started."""
    try:
        runner.prepare_rotations(sorted({planned.rotation for _, planned in pending}))
        for (game_id, planned), upcoming in zip(pending, [*pending[1:], None]):
            if upcoming is not None:
                runner.prepare(upcoming[1])
            finished(game_id, planned, runner.play(game_id, planned))
    finally:
        runner.close()
    return runner.started


def _run_parallel(
    pending: list[tuple[int, PlannedGame]],
    game: Game,
    options: Mapping,
    specs: Mapping[str, BotSpec],
    limits: Limits,
    jobs: int,
    log_dir: Path | None,
    finished: Callable[[int, PlannedGame, GameRecord], None],
    errors: list[str],
    sandbox: Sandbox | None = None,
) -> int:
    """Play ``pending`` on ``jobs`` worker processes; return how many bot processes started."""
    context = multiprocessing.get_context("spawn")
    results: multiprocessing.Queue = context.Queue()
    inboxes: list[multiprocessing.Queue] = [context.Queue() for _ in range(jobs)]
    for inbox in inboxes:
        inbox.cancel_join_thread()  # exiting never waits on a worker that is gone
    dispatcher = Dispatcher(pending, jobs)
    in_flight: list[dict[int, PlannedGame]] = [{} for _ in range(jobs)]

    def hand_out(worker: int) -> None:
        item = dispatcher.next_for(worker)
        if item is not None:
            in_flight[worker][item[0]] = item[1]
        inboxes[worker].put(item)

    workers = [
        context.Process(
            target=_worker,
            daemon=True,
            args=(
                inboxes[w],
                results,
                w,
                os.getpid(),
                game,
                dict(options),
                dict(specs),
                limits,
                log_dir,
                sandbox,
            ),
        )
        for w in range(jobs)
    ]
    for worker in workers:
        worker.start()
    for w in range(jobs):
        inboxes[w].put(sorted(dispatcher.share_of(w)))
    for _ in range(AHEAD):
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
