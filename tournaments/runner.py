"""Running a tournament: play its pending games, many at a time, and record each one.

Games are played by a ``TableRunner``: a game session (``arena.session``) whose bot processes
serve game after game (a process is replaced only after a crash), in this process with
``jobs=1``, else one per worker process. Each drives up to K games at once
(``games_per_worker``, default ``auto_games_per_worker``) through one referee driver
(``arena.driver``); a game starts only when each of its processes has a free slot (a process
serves up to its hello's ``max_games`` games at once, one for bots that say nothing).

Rotation r of every deal goes to an entrant's r-th process (``process_key``), so no process
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
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.botproc import BotSpec
from arena.driver import Played
from arena.errors import ArenaError, RemoteError
from arena.games import get_game
from arena.games.base import Game
from arena.lifetime import die_with_parent
from arena.record import GameRecord, Limits
from arena.referee import Table
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


@dataclass(frozen=True)
class Finished:
    """A game a ``TableRunner`` finished: its record (without its event log), or the text of
    the arena error that kept it from being played (an arena bug, not a bot's fault)."""

    game_id: int
    record: GameRecord | None
    error: str | None


#: Most games a worker (or the serial run) drives at once when not told (``--games-per-worker``):
#: beyond this, more games in flight gained nothing in ``bench/bench_throughput.py``.
MAX_AUTO_GAMES = 64
#: Move time (ms) per game in flight for the automatic default. An answer waits to be read (and
#: its time stamped) while the referee handles the messages of the other games in flight, about
#: 70 µs each; one game per 16 ms of move time keeps that wait under about 0.5 % of a move.
MOVE_MS_PER_GAME = 16


def auto_games_per_worker(move_ms: int) -> int:
    """Games a worker drives at once by default, for moves of ``move_ms``."""
    return max(1, min(MAX_AUTO_GAMES, move_ms // MOVE_MS_PER_GAME))


#: Planned games looked at, beyond the ones in flight, for one whose processes have a free slot.
LOOKAHEAD = 64


class TableRunner:
    """Plays a tournament's planned games (tables) on one session, several at once, whose bot
    processes serve game after game: rotation r of every deal goes to each entrant's r-th
    process, and a process never has more games open than its ``max_games``."""

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
        self._open: dict[str, int] = {}  # process key -> games open on it
        self._keys: dict[int, list[str]] = {}  # game in flight -> its process keys
        self._failed: list[Finished] = []

    def entries(self, planned: PlannedGame) -> list[tuple[str, BotSpec]]:
        """The pool entries (process key, spec) of a game's seats."""
        return [
            (process_key(label, planned.rotation, self.specs[label]), self.specs[label])
            for label in planned.seating
        ]

    def prepare(self, planned: PlannedGame) -> None:
        """Start what ``planned`` will need while other games are played."""
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

    @property
    def in_flight(self) -> int:
        """Games being played now."""
        return len(self._keys)

    def play(self, game_id: int, planned: PlannedGame) -> GameRecord:
        """Play one planned game (raises ArenaError if the arena could not)."""
        for done in self.play_many([(game_id, planned)], at_once=1):
            if done.error is not None:
                raise ArenaError(done.error)
            return done.record
        raise ArenaError(f"game {game_id} was not played")

    def play_many(
        self, games: Iterable[tuple[int, PlannedGame] | None], at_once: int
    ) -> Iterator[Finished]:
        """Play ``games`` (consumed lazily), up to ``at_once`` in flight, and yield each as
        it finishes. A game starts only when each of its processes has a free slot (else a
        later one that can starts first: results do not depend on the order). Records come
        without their event log: the store keeps the actions, and replays rebuild the events.
        A game the arena could not play is a ``Finished`` with ``error``; the others go on.
        A None in ``games`` means "no game to hand out now" (asked again later)."""
        for played in self.session.play_many(self._tables(iter(games)), at_once):
            yield self._finished(played)
            yield from self._flush_failed()
        yield from self._flush_failed()

    def _finished(self, played: Played) -> Finished:
        for key in self._keys.pop(played.game_id, ()):
            self._open[key] -= 1
        if played.error is not None:
            error = f"{type(played.error).__name__}: {played.error}"
            return Finished(played.game_id, None, error)
        return Finished(played.game_id, replace(played.record, events=()), None)

    def _flush_failed(self) -> Iterator[Finished]:
        failed, self._failed = self._failed, []
        yield from failed

    def _tables(self, games: Iterator[tuple[int, PlannedGame] | None]) -> Iterator[Table | None]:
        """The tables to play, each as soon as its processes have a free slot (None: none
        can start now)."""
        backlog: list[tuple[int, PlannedGame]] = []
        exhausted = False
        while backlog or not exhausted:
            item = self._startable(backlog)
            while item is None and not exhausted and len(backlog) < LOOKAHEAD:
                pulled = next(games, _END)
                if pulled is _END:
                    exhausted = True
                elif pulled is None:
                    break
                else:
                    backlog.append(pulled)
                    self.prepare(pulled[1])
                    item = self._startable(backlog)
            if item is None:
                if exhausted and not backlog:
                    return
                yield None
                continue
            backlog.remove(item)
            table = self._table(*item)
            if table is not None:
                yield table

    def _startable(self, backlog: list[tuple[int, PlannedGame]]) -> tuple | None:
        """The first game of ``backlog`` whose every process has a free slot."""
        for item in backlog:
            keys = [key for key, _ in self.entries(item[1])]
            if all(self._open.get(key, 0) < self.session.capacity(key) for key in keys):
                return item
        return None

    def _table(self, game_id: int, planned: PlannedGame) -> Table | None:
        """The table of one game, its seats' processes started if need be (None: it could not
        be made; the error is reported with the finished games)."""
        try:
            entries = self.entries(planned)
            seats = self.session.seats(entries)
        except Exception as exc:  # noqa: BLE001 - one game's error never stops the others
            log.exception("game %d could not start", game_id)
            self._failed.append(Finished(game_id, None, f"{type(exc).__name__}: {exc}"))
            return None
        keys = [key for key, _ in entries]
        for key in keys:
            self._open[key] = self._open.get(key, 0) + 1
        self._keys[game_id] = keys
        return Table(
            self.game,
            seats,
            planned.deal_seed,
            self.options,
            game_id,
            planned.bot_seeds(),
            planned.seating,
        )

    def close(self) -> None:
        self.session.close()


#: The end of an iterator.
_END: Any = object()


def _exit_on_signal(signum: int, frame: object) -> None:
    """SIGTERM from the parent: go at once (``os._exit``: no exception raised into whatever
    the worker was doing, a process start included). The bots die with their parent, and the
    pool's janitor kills and cleans up whatever is left."""
    os._exit(128 + signum)


#: Seconds the parent waits for a worker it told to stop before it kills it.
STOP_S = 5
#: Games handed to a worker beyond those it plays (it starts their processes meanwhile).
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
    at_once: int,
) -> None:
    die_with_parent(signal.SIGKILL, parent=parent)
    results.cancel_join_thread()  # exiting never waits on a parent that is gone
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    signal.signal(signal.SIGTERM, _exit_on_signal)
    runner = TableRunner(game, options, specs, limits, log_dir, sandbox)
    try:
        rotations = inbox.get()  # the worker's share: start those processes now
        runner.prepare_rotations(rotations)
        for done in runner.play_many(_inbox_games(inbox, runner), at_once):
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
    *,
    specs: Mapping[str, BotSpec],
    jobs: int = 1,
    limits: Limits | None = None,
    progress: Callable[[Progress], None] | None = None,
    log_dir: Path | None = None,
    sandbox: Sandbox | None = None,
    remote: RemoteConfig | None = None,
    games_per_worker: int | None = None,
    cluster: ClusterConfig | None = None,
) -> RunSummary:
    """Play every pending game of tournament ``tid`` and record each as it finishes.

    ``specs`` maps each entrant label to how to run it; ``sandbox`` (None: unsandboxed; the
    command line resolves it) and ``limits`` say how bot processes run; ``remote`` lets remote
    bots join (with ``jobs=1`` only: one process listens). ``jobs`` worker processes (1: this
    one) each drive ``games_per_worker`` games at once (None: ``auto_games_per_worker``);
    the stored results are the same whatever both are. Raises KeyboardInterrupt after
    cleaning up if interrupted (finished games are already stored). With ``cluster`` the games
    are played on a Dask cluster's workers (``tournaments.cluster``), still recorded here.
    """
    if remote is not None and jobs > 1:
        raise RemoteError("remote bots join one listening arena process: use --jobs 1")
    info = store.tournament(tid)
    spec = info.spec
    game = get_game(spec.game)  # workers get the game itself (one registered here only too)
    limits = limits or Limits(move_ms=spec.move_ms)
    at_once = games_per_worker or auto_games_per_worker(limits.move_ms)
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
    with store.heartbeat(tid, games_at_once=None if cluster else at_once * max(1, jobs)):
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
            state["procs"] = _run_serial(pending, runner, at_once, finished, failed)
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
                at_once,
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
    at_once: int,
    finished: Callable[[int, PlannedGame, GameRecord], None],
    errors: list[str],
) -> int:
    """Play the pending games in this process, ``at_once`` at a time, the processes of the
    next games starting meanwhile; returns how many processes were started."""
    planned = dict(pending)
    try:
        runner.prepare_rotations(sorted({game.rotation for _, game in pending}))
        for done in runner.play_many(pending, at_once):
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
    game: Game,
    options: Mapping,
    specs: Mapping[str, BotSpec],
    limits: Limits,
    jobs: int,
    log_dir: Path | None,
    finished: Callable[[int, PlannedGame, GameRecord], None],
    errors: list[str],
    sandbox: Sandbox | None = None,
    at_once: int = 1,
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
                at_once,
            ),
        )
        for w in range(jobs)
    ]
    for worker in workers:
        worker.start()
    for w in range(jobs):
        inboxes[w].put(sorted(dispatcher.share_of(w)))
    for _ in range(at_once + AHEAD):
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
