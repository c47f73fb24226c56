"""Running a tournament: play its pending games, N at a time, and record each one.

With ``jobs=1`` games are played in this process; with more, each worker process owns a hub and
a pool of bot processes that it reuses from game to game (a process is replaced only after a
crash). The parent is the only writer of the database: one finished game is one transaction, so
a run killed at any moment loses at most the games in flight, and running again finishes the
rest. Games are independent of each other and of the order they run in (bots are reseeded at
every ``start``), so a resumed run gives the results an uninterrupted one would.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import queue
import signal
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from arena.botproc import BotPool, BotProcess, BotSpec
from arena.errors import BotStartError, RemoteError
from arena.games import get_game
from arena.hub import Hub
from arena.lifetime import die_with_parent
from arena.record import GameRecord, Limits
from arena.referee import Referee
from arena.remote import RemoteConfig
from arena.sandbox import Sandbox, SandboxMode
from tournaments.ratings import PairCounts
from tournaments.schedule import PlannedGame
from tournaments.store import Store

log = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class Progress:
    """Where a run stands, for progress bars."""

    done: int
    total: int
    played: int            # games played by this run
    elapsed_s: float
    leader: str | None

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
    play_ms: float          # summed wall time of the games played
    processes_started: int
    failed: tuple[str, ...] = ()   # games that could not be played (they stay pending)


def _leader(counts: PairCounts) -> str | None:
    """The entrant with the best pairwise score so far (None before any game)."""
    table = counts.crosstable()
    scored = [(score, entrant) for entrant in table.entrants
              if (score := table.total(entrant).score) is not None]
    return max(scored)[1] if scored else None


class _Player:
    """Plays planned games on one hub with a pool of reused bot processes."""

    def __init__(self, game_name: str, options: Mapping, specs: Mapping[str, BotSpec],
                 limits: Limits, log_dir: Path | None,
                 sandbox: Sandbox | SandboxMode | None = SandboxMode.AUTO,
                 remote: RemoteConfig | None = None) -> None:
        self.game = get_game(game_name)
        self.options = dict(options)
        self.specs = dict(specs)
        self.limits = limits
        self.hub = Hub(remote=remote)
        self.pool = BotPool(self.hub, log_dir=log_dir, limits=limits, sandbox=sandbox)
        self.referee = Referee(self.hub, limits)

    def processes(self, seating: tuple[str, ...]) -> tuple[list[BotProcess | None],
                                                            dict[int, str]]:
        """The processes of a table, and why each seat without one has none."""
        entries = [(label, self.specs[label]) for label in seating]
        try:
            return list(self.pool.get(entries)), {}
        except BotStartError as exc:
            failed = {exc.label: str(exc)}
        procs: list[BotProcess | None] = []
        absent: dict[int, str] = {}
        for seat, entry in enumerate(entries):  # find which one failed; it plays with none
            try:
                if entry[0] in failed:
                    raise BotStartError(failed[entry[0]])
                procs.append(self.pool.get([entry])[0])
            except BotStartError as exc:
                log.warning("entrant %s did not start: %s", entry[0], exc)
                procs.append(None)
                absent[seat] = str(exc)
        return procs, absent

    def play(self, game_id: int, planned: PlannedGame) -> GameRecord:
        procs, absent = self.processes(planned.seating)
        return self.referee.play(self.game, procs, seed=planned.deal_seed, options=self.options,
                                 game_id=game_id, bot_seeds=planned.bot_seeds(),
                                 names=planned.seating, absent=absent)

    def close(self) -> None:
        self.pool.close()
        self.hub.close()


def _exit_on_signal(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def _worker(tasks: multiprocessing.Queue, results: multiprocessing.Queue, game_name: str,
            options: dict, specs: dict, limits: Limits, log_dir: Path | None,
            sandbox: Sandbox | None) -> None:
    die_with_parent(signal.SIGTERM)
    signal.signal(signal.SIGINT, signal.SIG_IGN)     # the parent decides when to stop
    signal.signal(signal.SIGTERM, _exit_on_signal)
    player = _Player(game_name, options, specs, limits, log_dir, sandbox)
    try:
        while True:
            task = tasks.get()
            if task is None:
                break
            game_id, planned = task
            try:
                record = player.play(game_id, planned)
                results.put(("done", game_id, record, os.getpid(), player.pool.started))
            except Exception as exc:  # noqa: BLE001 - reported to the parent, never lost
                log.exception("game %d failed", game_id)
                results.put(("error", game_id, f"{type(exc).__name__}: {exc}", os.getpid(),
                             player.pool.started))
    finally:
        player.close()


def run(store: Store, tid: int, *, specs: Mapping[str, BotSpec], jobs: int = 1,
        limits: Limits | None = None, progress: Callable[[Progress], None] | None = None,
        log_dir: Path | None = None, sandbox: Sandbox | SandboxMode | None = SandboxMode.AUTO,
        remote: RemoteConfig | None = None) -> RunSummary:
    """Play every pending game of tournament ``tid`` and record each as it finishes.

    ``specs`` maps each entrant label to how to run it; ``sandbox`` and ``limits`` say how bot
    processes run; ``remote`` lets remote bots join (with ``jobs=1`` only: one process
    listens). Raises KeyboardInterrupt after cleaning up if interrupted (finished games are
    already stored).
    """
    if remote is not None and jobs > 1:
        raise RemoteError("remote bots join one listening arena process: use --jobs 1")
    if isinstance(sandbox, (SandboxMode, str)):
        from arena.sandbox import resolve

        sandbox = resolve(sandbox, hide=[log_dir] if log_dir else [])
    info = store.tournament(tid)
    spec = info.spec
    limits = limits or Limits(move_ms=spec.move_ms)
    pending = store.pending_games(tid)
    total = info.games_total
    done = total - len(pending)
    tally = PairCounts(info.spec.labels)
    for result in store.game_results(tid):
        tally.add_game(result.seating, result.places)
    started = time.monotonic()
    state = {"done": done, "played": 0, "play_ms": 0.0, "procs": 0}
    failed: list[str] = []

    def finished(game_id: int, planned: PlannedGame, record: GameRecord) -> None:
        store.record_game(game_id, record)
        tally.add_game(planned.seating, record.places)
        state["done"] += 1
        state["played"] += 1
        state["play_ms"] += record.wall_ms
        if progress:
            progress(Progress(done=state["done"], total=total, played=state["played"],
                              elapsed_s=time.monotonic() - started, leader=_leader(tally)))

    if progress:
        progress(Progress(done=done, total=total, played=0, elapsed_s=0.0,
                          leader=_leader(tally)))
    if pending:
        if jobs <= 1:
            player = _Player(spec.game, spec.options, specs, limits, log_dir, sandbox, remote)
            try:
                for game_id, planned in pending:
                    finished(game_id, planned, player.play(game_id, planned))
            finally:
                state["procs"] = player.pool.started
                player.close()
        else:
            state["procs"] = _run_parallel(pending, spec.game, spec.options, specs, limits,
                                           min(jobs, len(pending)), log_dir, finished, failed,
                                           sandbox)
    if state["played"]:
        store.rebuild_ratings(tid)
    return RunSummary(played=state["played"], done=state["done"], total=total,
                      elapsed_s=time.monotonic() - started, play_ms=state["play_ms"],
                      processes_started=state["procs"], failed=tuple(failed))


def _run_parallel(pending: list[tuple[int, PlannedGame]], game_name: str, options: Mapping,
                  specs: Mapping[str, BotSpec], limits: Limits, jobs: int,
                  log_dir: Path | None,
                  finished: Callable[[int, PlannedGame, GameRecord], None],
                  errors: list[str], sandbox: Sandbox | None = None) -> int:
    context = multiprocessing.get_context("spawn")
    tasks: multiprocessing.Queue = context.Queue()
    results: multiprocessing.Queue = context.Queue()
    planned_by_id = dict(pending)
    for item in pending:
        tasks.put(item)
    for _ in range(jobs):
        tasks.put(None)
    workers = [context.Process(target=_worker, daemon=True,
                               args=(tasks, results, game_name, dict(options), dict(specs),
                                     limits, log_dir, sandbox))
               for _ in range(jobs)]
    for worker in workers:
        worker.start()
    started_procs: dict[int, int] = {}
    remaining = set(planned_by_id)
    try:
        while remaining:
            try:
                kind, game_id, payload, pid, procs = results.get(timeout=0.5)
            except queue.Empty:
                if not any(w.is_alive() for w in workers):
                    raise RuntimeError("every worker stopped before the run was done")
                continue
            remaining.discard(game_id)
            started_procs[pid] = procs
            if kind == "done":
                finished(game_id, planned_by_id[game_id], payload)
            else:
                errors.append(f"game {game_id}: {payload}")
                log.error("game %d could not be played: %s", game_id, payload)
    finally:
        for worker in workers:
            if remaining and worker.is_alive():
                os.kill(worker.pid, signal.SIGTERM)
        for worker in workers:
            worker.join(timeout=5)
            if worker.is_alive():
                worker.kill()
    return sum(started_procs.values())
