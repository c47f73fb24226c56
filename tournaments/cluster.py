"""The arena's side of tournaments on a Dask cluster: connect, check, submit, collect.

``tournament run ID --cluster tcp://SCHEDULER:8786`` plays the pending games on the workers of a
Dask ``distributed`` cluster; this process stays the only writer of the database and records
each game as its answer arrives (``tournaments.runner``). Step by step:

1. refuse ``--sandbox auto`` or ``off`` unless the operator accepts that bots can run code on
   every worker (``check_sandbox``); connect to the scheduler (a clear error if it cannot be
   reached, or if Dask is missing);
2. check every worker (``cluster_worker.inspect_worker``): the same arena version, protocol
   and source hash as here, bubblewrap and the system-call filter working where ``--sandbox
   required``, every command
   bot's files present; a failed check names the worker and what is wrong;
3. register the run's configuration on the workers (``RunPlugin``, a fresh random run id:
   a resumed run never meets the processes of an earlier one) with limits, sandbox mode and
   the bots (folder bots as archives: ``tournaments.shipping``);
4. hand each worker batches of games (one task per batch, pinned to that worker, never retried
   by Dask; a batch lasts about ``BATCH_S``, so short games share the cost of a task and long
   ones go one by one), at most ``AHEAD + 1`` batches at a time, dealt by rotation affinity;
   renew the run's lease on the workers, and record each game once as its batch answers;
5. a worker that leaves (killed, cut off) takes its games with it: they are handed to another
   worker, never to one that already had them; the scheduler gone stops the run (ClusterLost):
   what was recorded stays, and running again finishes the rest;
6. at the end (or on any error) unregister the run: each worker kills its bots.

Dask is imported only here and in ``cluster_worker``, and only when a run asks for a cluster.
"""

from __future__ import annotations

import logging
import queue
import secrets
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from arena.procs.sandbox import SandboxMode
from arena.referee.record import GameRecord
from tournaments.dispatch import Dispatcher
from tournaments.errors import ClusterError, ClusterLost
from tournaments.playing import Finished, RunConfig
from tournaments.schedule import PlannedGame
from tournaments.shipping import ShippedBot

log = logging.getLogger(__name__)

#: Seconds to reach the scheduler, and to wait for a first worker.
CONNECT_S = 10.0
WORKERS_S = 30.0
#: Batches of games handed to a worker beyond the one it plays.
AHEAD = 1
#: Seconds of play a batch of games (one task) aims at, and the most games in one.
BATCH_S = 0.5
MAX_BATCH = 64
#: Seconds between looks at the finished games and the workers.
POLL_S = 0.5
#: Seconds between renewals of the run's lease on the workers (``cluster_worker.LEASE_S``).
RENEW_S = 5.0
#: Seconds the scheduler may stay unreachable before the run stops.
LOST_S = 10.0
#: The hint given whenever Dask is needed and missing.
INSTALL_HINT = "pip install 'arena[cluster]'"


#: The command line's words for running bots unsandboxed on a cluster (``check_sandbox``).
ACCEPT_UNSANDBOXED = "--i-accept-bots-can-run-code-on-every-worker"


@dataclass(frozen=True, kw_only=True)
class ClusterConfig:
    """How a run uses a cluster: the scheduler's address, the sandbox mode the workers resolve,
    each entrant label's bot as it is shipped to them, and whether the operator accepts that bots
    may run unsandboxed (``check_sandbox``)."""

    address: str
    sandbox: SandboxMode = SandboxMode.REQUIRED
    bots: Mapping[str, ShippedBot] = field(default_factory=dict)
    unsandboxed_accepted: bool = False


def check_sandbox(config: ClusterConfig) -> None:
    """Raise ClusterError unless the workers sandbox every bot (``--sandbox required``) or the
    operator has accepted in so many words what an unsandboxed bot can do on a cluster: reach
    the Dask scheduler and, through it, run code on every worker as the worker's user."""
    if config.sandbox is SandboxMode.REQUIRED or config.unsandboxed_accepted:
        return
    when = (
        "never sandboxes bots"
        if config.sandbox is SandboxMode.OFF
        else "runs bots unsandboxed on any worker where bubblewrap does not work"
    )
    raise ClusterError(
        f"--sandbox {config.sandbox} {when}, and an unsandboxed bot can reach the Dask "
        "scheduler and through it run code on every worker, as the worker's user; use "
        f"--sandbox required (the default with --cluster), or confirm with {ACCEPT_UNSANDBOXED}"
    )


def distributed_module() -> Any:
    """The ``distributed`` package, or a ClusterError saying how to install it."""
    try:
        import distributed
    except ImportError:
        raise ClusterError(f"--cluster needs Dask distributed: {INSTALL_HINT}") from None
    return distributed


def connect(address: str) -> Any:
    """A Dask client of the scheduler at ``address``. Raises ClusterError."""
    distributed = distributed_module()
    if not log.isEnabledFor(logging.DEBUG):  # Dask's own (traceback-laden) lines: -vv only
        for name in list(logging.root.manager.loggerDict):
            if name.split(".")[0] in ("distributed", "tornado"):
                logging.getLogger(name).setLevel(logging.CRITICAL)
    if "://" not in address:
        raise ClusterError(f"{address!r} is not a scheduler address: give tcp://HOST:PORT")
    try:
        return distributed.Client(address, timeout=CONNECT_S)
    except (OSError, TimeoutError, ValueError) as exc:
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: {exc}") from None


def live_workers(client: Any, address: str) -> set[str]:
    """The workers the scheduler knows now. Raises ClusterLost if it cannot be asked."""
    if client.status != "running":
        raise ClusterLost(f"lost the Dask scheduler at {address} (client {client.status})")
    try:
        info = client.scheduler_info(n_workers=-1)
    except (OSError, TimeoutError) as exc:
        raise ClusterLost(f"lost the Dask scheduler at {address}: {exc}") from None
    return set(info.get("workers", {}))


def check_workers(
    client: Any, config: ClusterConfig, workers: list[str] | None = None
) -> list[str]:
    """Check ``workers`` (default: all) before they get a game; returns those checked. Raises
    ClusterError listing every worker with a problem; warns of workers that run bots
    unsandboxed (``auto``)."""
    from tournaments.cluster_worker import inspect_worker, local_versions

    try:
        reports = client.run(
            inspect_worker, dict(config.bots), config.sandbox, workers=workers, on_error="return"
        )
    except (OSError, TimeoutError) as exc:
        raise ClusterLost(f"lost the Dask scheduler at {config.address}: {exc}") from None
    here = local_versions()
    problems = []
    for address, report in sorted(reports.items()):
        if isinstance(report, BaseException):
            problems.append(
                f"worker {address} cannot run the arena's check "
                f"({type(report).__name__}: {report}); install the same version: "
                f"pip install 'arena[cluster]=={here.arena}'"
            )
            continue
        if report.versions != here:
            problems.append(f"worker {address} runs {report.versions}; this arena is {here}")
        if report.missing:
            problems.append(f"worker {address} lacks {', '.join(report.missing)}")
        if report.sandbox_problem and config.sandbox is SandboxMode.REQUIRED:
            problems.append(
                f"worker {address} cannot sandbox bots ({report.sandbox_problem}) and "
                "--sandbox required was given"
            )
        elif report.sandbox_problem and config.sandbox is SandboxMode.AUTO:
            log.warning(
                "worker %s runs bots UNSANDBOXED: %s (see docs/cluster.md)",
                address,
                report.sandbox_problem,
            )
    if problems:
        raise ClusterError("the cluster cannot run this tournament: " + "; ".join(problems))
    return sorted(reports)


@dataclass
class _Flight:
    """The games handed out and not answered yet, and where each has been."""

    futures: dict[Any, tuple[list[int], str]] = field(default_factory=dict)  # -> games, worker
    per_worker: Counter[str] = field(default_factory=Counter)
    tried: dict[int, set[str]] = field(default_factory=dict)
    started: dict[str, int] = field(default_factory=dict)  # worker -> bot processes started

    def take_back(self, future: Any) -> tuple[list[int], str]:
        game_ids, worker = self.futures.pop(future)
        self.per_worker[worker] -= 1
        return game_ids, worker


def play_on_cluster(
    config: ClusterConfig,
    run_config: RunConfig,
    pending: list[tuple[int, PlannedGame]],
    finished: Callable[[int, PlannedGame, GameRecord], None],
    errors: list[str],
    workers_in_use: Callable[[int], None] | None = None,
) -> int:
    """Play ``pending`` on the cluster as ``run_config`` says (each worker driving its
    ``at_once`` games at once), calling ``finished`` once per game as its record
    arrives; games that could not be played are listed in ``errors`` (they stay pending).
    Returns how many bot processes the workers started. Raises ClusterError (ClusterLost if
    the scheduler went away)."""
    check_sandbox(config)
    client = connect(config.address)  # first: a missing Dask is a clear error
    from tournaments.cluster_worker import PLUGIN_PREFIX, ClusterRun, RunPlugin

    try:
        try:
            client.wait_for_workers(1, timeout=WORKERS_S)
        except TimeoutError:
            raise ClusterError(
                f"no Dask worker joined the scheduler at {config.address} in {WORKERS_S:.0f} s"
            ) from None
        checked = check_workers(client, config)
        run = ClusterRun(
            run_id=secrets.token_hex(8),
            config=run_config,
            bots=dict(config.bots),
            sandbox=config.sandbox,
        )
        name = PLUGIN_PREFIX + run.run_id
        client.register_plugin(RunPlugin(run), name=name)
        log.info("run %s on %s", run.run_id, config.address)
        try:
            collector = _Collector(
                client, config, run_config.at_once, run.run_id, finished, errors, workers_in_use
            )
            collector.checked.update(dict.fromkeys(checked, True))
            return collector.run(pending)
        finally:
            _unregister(client, name)
    finally:
        client.close(timeout=CONNECT_S)


def _unregister(client: Any, name: str) -> None:
    """Close the run on the workers (they kill its bots); a scheduler already gone cannot
    be told, and each worker closes the run itself when its lease runs out."""
    try:
        if client.status == "running":
            client.unregister_worker_plugin(name)
    except Exception as exc:  # noqa: BLE001 - the run is over either way
        log.warning("could not close run %s on the workers: %s", name, exc)


class _Collector:
    """Hands out the games, collects the answers, renews the lease, copes with lost workers."""

    def __init__(
        self,
        client: Any,
        config: ClusterConfig,
        at_once: int,
        run_id: str,
        finished: Callable[[int, PlannedGame, GameRecord], None],
        errors: list[str],
        workers_in_use: Callable[[int], None] | None,
    ) -> None:
        self.client = client
        self.config = config
        self.at_once = at_once
        self.run_id = run_id
        self.finished = finished
        self.errors = errors
        self.workers_in_use = workers_in_use
        self.flight = _Flight()
        self.checked: dict[str, bool] = {}
        self.recorded: set[int] = set()
        self.renewed = 0.0
        self.unreachable_since: float | None = None
        self.submitted = 0
        self.answers: queue.Queue[Any] = queue.Queue()
        self.played_games, self.played_s = 0, 0.0

    def run(self, pending: list[tuple[int, PlannedGame]]) -> int:
        planned = dict(pending)
        games = _Games(pending)
        shown = -1
        workers: set[str] = set()
        looked = 0.0
        while games or self.flight.futures:
            if time.monotonic() - looked >= POLL_S or not workers:
                workers, looked = self._workers(), time.monotonic()
            for future, (game_ids, worker) in list(self.flight.futures.items()):
                if worker not in workers:  # its worker left: its games go elsewhere
                    future.cancel()
                    self.flight.take_back(future)
                    for game_id in game_ids:
                        games.give_back(game_id, planned[game_id])
                    log.warning("worker %s left; its games go to other workers", worker)
            usable = sorted(w for w in workers if self._usable(w))
            if len(usable) != shown and self.workers_in_use:
                self.workers_in_use(len(usable))
            shown = len(usable)
            self._hand_out(games, usable)
            self._renew()
            if not self.flight.futures:
                if games and not usable:
                    time.sleep(POLL_S)  # waiting for a worker (the scheduler may get one)
                elif games:
                    self._unplayable(games, usable)
                continue
            try:
                future = self.answers.get(timeout=POLL_S)
            except queue.Empty:
                continue
            while future is not None:
                if future in self.flight.futures:  # else: taken back already
                    self._answer(future, planned, games)
                try:
                    future = self.answers.get_nowait()
                except queue.Empty:
                    future = None
        return sum(self.flight.started.values())

    def _workers(self) -> set[str]:
        """The live workers; the scheduler unreachable for ``LOST_S`` raises ClusterLost."""
        try:
            workers = live_workers(self.client, self.config.address)
        except ClusterLost:
            now = time.monotonic()
            self.unreachable_since = self.unreachable_since or now
            if now - self.unreachable_since > LOST_S or self.client.status in ("closed", "failed"):
                raise
            return {worker for _, worker in self.flight.futures.values()}
        self.unreachable_since = None
        return workers

    def _usable(self, worker: str) -> bool:
        """Whether ``worker`` may get games: checked once, when first seen (a worker that
        joins later and fails its check is left out, with a warning)."""
        if worker not in self.checked:
            try:
                check_workers(self.client, self.config, [worker])
                self.checked[worker] = True
            except ClusterLost:
                raise
            except ClusterError as exc:
                if not self.checked:
                    raise
                log.warning("%s; it gets no games", exc)
                self.checked[worker] = False
        return self.checked[worker]

    def _hand_out(self, games: _Games, usable: list[str]) -> None:
        """Give each usable worker batches of games, up to ``AHEAD + 1`` batches in hand,
        none it already had."""
        size = self._batch_size()
        for worker in usable:
            while self.flight.per_worker[worker] <= AHEAD:
                batch = []
                while len(batch) < size:
                    item = games.next_for(worker, usable, self.flight.tried)
                    if item is None:
                        break
                    batch.append(item)
                if not batch:
                    break
                self._submit(batch, worker)

    def _batch_size(self) -> int:
        """Games per task: a batch lasts about ``BATCH_S`` at the mean game time so far
        (short games share the cost of a task; long ones go one by one, at_once at a time)."""
        at_once = self.at_once
        if not self.played_games:
            return at_once
        mean_s = self.played_s / self.played_games
        return max(at_once, min(MAX_BATCH, int(BATCH_S * at_once / max(mean_s, 1e-3))))

    def _unplayable(self, games: _Games, usable: list[str]) -> None:
        """Nothing in flight and games left: drop those every worker has had (they stay
        pending), and deal the rest afresh."""
        for game_id in games.had_by(usable, self.flight.tried):
            self.errors.append(f"game {game_id}: every worker has already had it")
        games.reset()

    def _submit(self, batch: list[tuple[int, PlannedGame]], worker: str) -> None:
        """One task of games, pinned to ``worker``, never retried by Dask."""
        from tournaments.cluster_worker import play_games

        self.submitted += 1
        future = self.client.submit(
            play_games,
            self.run_id,
            batch,
            key=f"arena-{self.run_id}-{self.submitted}",
            workers=[worker],
            allow_other_workers=False,
            retries=0,
            pure=False,
        )
        self.flight.futures[future] = ([game_id for game_id, _ in batch], worker)
        future.add_done_callback(self.answers.put)  # answers arrive without polling
        self.flight.per_worker[worker] += 1
        for game_id, _ in batch:
            self.flight.tried.setdefault(game_id, set()).add(worker)

    def _renew(self) -> None:
        """Tell the workers the arena is still here (their lease on the run)."""
        from tournaments.cluster_worker import renew

        now = time.monotonic()
        if now - self.renewed >= RENEW_S:
            self.renewed = now
            try:
                self.client.run(renew, self.run_id, on_error="ignore", wait=False)
            except (OSError, TimeoutError) as exc:
                log.warning("could not renew the run's lease: %s", exc)

    def _answer(self, future: Any, planned: Mapping[int, PlannedGame], games: _Games) -> None:
        """One answered task: record each of its games (once), or hand it out again, or note
        why it could not be played."""
        game_ids, worker = self.flight.take_back(future)
        if future.status == "finished":
            for played in future.result():
                self.flight.started[played.worker] = played.started
                self._one(played.finished, played.refused, worker, planned, games)
            return
        if future.status == "cancelled" and self.client.status != "running":
            raise ClusterLost(f"lost the Dask scheduler at {self.config.address}")
        exc = future.exception() if future.status == "error" else None
        if isinstance(exc, ClusterError):
            raise ClusterError(f"worker {worker}: {exc}")
        log.warning("worker %s: %s; its %d game(s) go elsewhere", worker, exc, len(game_ids))
        for game_id in game_ids:
            games.give_back(game_id, planned[game_id])

    def _one(
        self,
        result: Finished,
        refused: bool,
        worker: str,
        planned: Mapping[int, PlannedGame],
        games: _Games,
    ) -> None:
        game_id = result.game_id
        if refused:
            games.give_back(game_id, planned[game_id])
        elif result.record is None:
            self.errors.append(f"game {game_id} (worker {worker}): {result.error}")
            log.error("game %d could not be played on %s: %s", game_id, worker, result.error)
        elif game_id not in self.recorded:
            self.recorded.add(game_id)
            self.played_games += 1
            self.played_s += result.record.wall_ms / 1000
            games.played(result.record.wall_ms / 1000)
            self.finished(game_id, planned[game_id], result.record)


class _Games:
    """The games not handed out yet, dealt to the workers by rotation affinity
    (``tournaments.dispatch``: each worker starts processes for its share of the rotations
    only). The dealer is made afresh when the workers change or a game comes back."""

    def __init__(self, pending: list[tuple[int, PlannedGame]]) -> None:
        self.left = dict(pending)
        self.dispatcher: Dispatcher[int] | None = None
        self.workers: tuple[str, ...] = ()
        self.passed: list[tuple[int, PlannedGame]] = []  # out of the dealer, not handed out

    def __len__(self) -> int:
        return len(self.left)

    def next_for(
        self, worker: str, usable: list[str], tried: Mapping[int, set[str]]
    ) -> tuple[int, PlannedGame] | None:
        """The next game for ``worker``, never one it already had (None: none for it now)."""
        if self.dispatcher is None or self.workers != tuple(usable):
            self.dispatcher = Dispatcher(list(self.left.items()), len(usable))
            self.workers = tuple(usable)
            self.passed = []
        for item in self.passed:  # games another worker has had: this one, if it has not
            if worker not in tried.get(item[0], ()):
                self.passed.remove(item)
                del self.left[item[0]]
                return item
        index = self.workers.index(worker)
        item = self.dispatcher.next_for(index)
        while item is not None and worker in tried.get(item[0], ()):
            self.passed.append(item)
            item = self.dispatcher.next_for(index)
        if item is not None:
            del self.left[item[0]]
        return item

    def give_back(self, game_id: int, planned: PlannedGame) -> None:
        self.left[game_id] = planned
        self.dispatcher = None

    def played(self, seconds: float) -> None:
        if self.dispatcher is not None:
            self.dispatcher.played(seconds)

    def had_by(self, usable: list[str], tried: Mapping[int, set[str]]) -> list[int]:
        """Remove and return the games every one of ``usable`` has had."""
        had = [g for g in self.left if usable and all(w in tried.get(g, ()) for w in usable)]
        for game_id in had:
            del self.left[game_id]
        self.reset()
        return had

    def reset(self) -> None:
        self.dispatcher = None
