"""The arena's side of tournaments on a Dask cluster: connect, check, submit, collect, and the
barrier between phases.

``tournament run ID --cluster tcp://SCHEDULER:8786`` plays the pending games on the workers of a
Dask ``distributed`` cluster; this process stays the only writer of the database and records
each game as its answer arrives (``tournaments.run.runner``). Step by step:

1. refuse ``--sandbox auto`` or ``off`` unless the operator accepts that bots can run code on
   every worker (``check_sandbox``); connect to the scheduler (a clear error if it cannot be
   reached, or if Dask is missing);
2. check every worker (``cluster_worker.inspect_worker``): the same arena version, protocol
   and source hash as here, bubblewrap and the system-call filter working where ``--sandbox
   required``, every command
   bot's files present; a failed check names the worker and what is wrong;
3. close, on every worker, any earlier run of this tournament (a killed arena's, whose bots
   would otherwise live until its lease runs out), then register this run's configuration
   (``RunPlugin``, a fresh random run id: a resumed run never meets the processes of an
   earlier one) with limits, sandbox mode and the bots (folder bots as archives:
   ``tournaments.catalogue.shipping``);
4. play the run's phases (``tournaments.run.phases``) one after the other. For each, hand each
   worker tasks of the phase's games (pinned to that worker, never retried by Dask; a task
   lasts about ``TASK_S``, so short games share the cost of a task and long ones go one by
   one), at most ``AHEAD + 1`` tasks at a time; renew the run's lease on the workers, and
   record each game once as its task answers. When every game of the
   phase is answered, end the phase on every worker (``cluster_worker.end_phase``): each ends
   every bot process it holds and answers once they are gone. Only then does the next phase
   begin: the barrier spans the cluster;
5. a worker that leaves (killed, cut off) takes its games with it: they are handed to another
   worker, never to one that already had them; its bots may live on until its lease on the
   run runs out (``cluster_worker.LEASE_S``), so the next phase waits for that. The scheduler
   gone stops the run (ClusterLost): what was recorded stays, and running again finishes the
   rest;
6. at the end (or on any error) unregister the run: each worker kills its bots.

Dask is imported only here and in ``cluster_worker``, and only when a run asks for a cluster.
"""

from __future__ import annotations

import logging
import queue
import secrets
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from arena.procs.sandbox import SandboxMode
from arena.referee.record import Played
from tournaments.catalogue.shipping import ShippedBot
from tournaments.errors import ClusterError, ClusterLost
from tournaments.plans.schedule import PlannedGame
from tournaments.run.phases import Phase
from tournaments.run.playing import RunConfig
from tournaments.store.values import ProcessRecord

if TYPE_CHECKING:
    from tournaments.run.sink import Sink

log = logging.getLogger(__name__)

#: Seconds to reach the scheduler, and to wait for a first worker.
CONNECT_S = 10.0
WORKERS_S = 30.0
#: Tasks of games handed to a worker beyond the one it plays.
AHEAD = 1
#: Seconds of play a task of games aims at, and the most games in one.
TASK_S = 0.5
MAX_TASK_GAMES = 64
#: Seconds between looks at the finished games and the workers.
POLL_S = 0.5
#: Seconds between renewals of the run's lease on the workers (``cluster_worker.LEASE_S``).
RENEW_S = 2.0
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
    tournament: str = ""  # names the tournament on the workers (its key's public id)
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
    from tournaments.run.cluster_worker import inspect_worker, local_versions

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


class ClusterExecutor:
    """A run on a cluster (``tournaments.run.sink.Executor``): connected and checked, earlier
    runs of the tournament closed, this run's configuration registered on the workers; then
    phase by phase; ``close`` unregisters it. Raises ClusterError (ClusterLost if the scheduler
    went away)."""

    def __init__(
        self,
        config: ClusterConfig,
        run_config: RunConfig,
        workers_in_use: Callable[[int], None] | None = None,
    ) -> None:
        self.config = config
        check_sandbox(config)
        self.client = connect(config.address)  # first: a missing Dask is a clear error
        from tournaments.run.cluster_worker import (
            PLUGIN_PREFIX,
            ClusterRun,
            RunPlugin,
            close_tournament_runs,
        )

        self.name: str | None = None
        self.collector: _Collector | None = None
        try:
            try:
                self.client.wait_for_workers(1, timeout=WORKERS_S)
            except TimeoutError:
                raise ClusterError(
                    f"no Dask worker joined the scheduler at {config.address} in {WORKERS_S:.0f} s"
                ) from None
            checked = check_workers(self.client, config)
            run = ClusterRun(
                run_id=secrets.token_hex(8),
                config=replace(run_config, code=None),  # the arena's side checks its files
                bots=dict(config.bots),
                sandbox=config.sandbox,
                tournament=config.tournament,
            )
            try:
                self.client.run(close_tournament_runs, config.tournament, run.run_id)
            except (OSError, TimeoutError) as exc:
                raise ClusterLost(f"lost the Dask scheduler at {config.address}: {exc}") from None
            self.name = PLUGIN_PREFIX + run.run_id
            self.client.register_plugin(RunPlugin(run), name=self.name)
            log.info("run %s on %s", run.run_id, config.address)
            self.collector = _Collector(
                self.client, config, run_config.at_once, run.run_id, workers_in_use
            )
            self.collector.checked.update(dict.fromkeys(checked, True))
        except BaseException:
            self.close(None)
            raise

    def play(self, phase: Phase, sink: Sink) -> None:
        assert self.collector is not None
        self.collector.play(phase, sink)

    def close(self, sink: Sink | None) -> int:
        """Close the run on the workers (they kill its bots); a scheduler already gone cannot
        be told, and each worker closes the run itself when its lease runs out. Returns how
        many bot processes the workers started."""
        try:
            if self.name is not None and self.client.status == "running":
                self.client.unregister_worker_plugin(self.name)
        except Exception as exc:  # noqa: BLE001 - the run is over either way
            log.warning("could not close run %s on the workers: %s", self.name, exc)
        finally:
            self.client.close(timeout=CONNECT_S)
        return sum(self.collector.flight.started.values()) if self.collector else 0


class _Collector:
    """Hands out each phase's games, collects the answers, renews the lease, copes with lost
    workers, and ends each phase on every worker."""

    def __init__(
        self,
        client: Any,
        config: ClusterConfig,
        at_once: int,
        run_id: str,
        workers_in_use: Callable[[int], None] | None,
    ) -> None:
        self.client = client
        self.config = config
        self.at_once = at_once
        self.run_id = run_id
        self.workers_in_use = workers_in_use
        self.flight = _Flight()
        self.checked: dict[str, bool] = {}
        self.recorded: set[int] = set()
        self.renewed = 0.0
        self.unreachable_since: float | None = None
        self.submitted = 0
        self.answers: queue.Queue[Any] = queue.Queue()
        self.played_games, self.played_s = 0, 0.0
        self.shown = -1
        self.seen: dict[str, float] = {}  # usable worker -> when last seen live (monotonic)
        self.open: dict[str, dict[str, ProcessRecord]] = {}  # worker -> its processes not ended

    def play(self, phase: Phase, sink: Sink) -> None:
        """Play ``phase`` on the workers, then end it on each (the barrier)."""
        planned = dict(phase.games)
        games = _Games(phase.games)
        looked = 0.0
        workers: set[str] = set()
        while games or self.flight.futures:
            if time.monotonic() - looked >= POLL_S or not workers:
                workers, looked = self._workers(), time.monotonic()
            for future, (game_ids, worker) in list(self.flight.futures.items()):
                if worker not in workers:  # its worker left: its games go elsewhere
                    future.cancel()
                    self.flight.take_back(future)
                    sink.returned(game_ids)
                    for game_id in game_ids:
                        games.give_back(game_id, planned[game_id])
                    log.warning("worker %s left; its games go to other workers", worker)
            usable = sorted(w for w in workers if self._usable(w))
            if len(usable) != self.shown and self.workers_in_use:
                self.workers_in_use(len(usable))
            self.shown = len(usable)
            self._hand_out(phase, games, usable, sink)
            self._renew()
            if not self.flight.futures:
                if games and not usable:
                    time.sleep(POLL_S)  # waiting for a worker (the scheduler may get one)
                elif games:
                    self._unplayable(games, usable, sink)
                continue
            try:
                future = self.answers.get(timeout=POLL_S)
            except queue.Empty:
                continue
            while future is not None:
                if future in self.flight.futures:  # else: taken back already
                    self._answer(future, planned, games, sink)
                try:
                    future = self.answers.get_nowait()
                except queue.Empty:
                    future = None
        self._end_phase(phase, sink)

    def _end_phase(self, phase: Phase, sink: Sink) -> None:
        """The barrier: every worker ends every bot process of the run and answers once they
        are gone. A worker lost since it was first seen (left, or cannot answer) may hold
        processes until its lease on the run runs out: the next phase waits for that."""
        from tournaments.run.cluster_worker import LEASE_MARGIN_S, LEASE_S, end_phase

        try:
            answers = self.client.run(end_phase, self.run_id, phase.index, on_error="return")
        except (OSError, TimeoutError) as exc:
            raise ClusterLost(f"lost the Dask scheduler at {self.config.address}: {exc}") from None
        lost = {worker for worker in self.seen if worker not in answers}
        for worker, answer in sorted(answers.items()):
            if isinstance(answer, BaseException):
                log.warning("worker %s could not end phase %d: %s", worker, phase.index, answer)
                lost.add(worker)
            else:
                for record in answer:
                    self.open.get(record.host, {}).pop(record.token, None)
                sink.ended(answer, f" (worker {worker})")
        for worker in sorted(lost):
            until = self.seen.get(worker, time.monotonic()) + LEASE_S + LEASE_MARGIN_S
            log.warning(
                "worker %s was lost: the next phase waits %.0f s, until its lease on the run "
                "has run out (its bots may live until then)",
                worker,
                max(0.0, until - time.monotonic()),
            )
            while time.monotonic() < until:
                self._renew()
                time.sleep(min(POLL_S, max(0.0, until - time.monotonic())))
            self.seen.pop(worker, None)
            self.checked.pop(worker, None)  # checked again if it comes back
            gone = self.open.pop(worker, {}).values()  # ended by then, not seen ending
            sink.record([replace(r, ended_at=time.time(), confirmed=False) for r in gone])

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
        now = time.monotonic()
        for worker in workers & set(self.seen):
            self.seen[worker] = now
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
        if self.checked[worker]:
            self.seen.setdefault(worker, time.monotonic())
        return self.checked[worker]

    def _hand_out(self, phase: Phase, games: _Games, usable: list[str], sink: Sink) -> None:
        """Give each usable worker tasks of the phase's games, up to ``AHEAD + 1`` tasks
        in hand, none it already had (in play from now, for the ``sink``: Dask tells of a
        task only once it is done)."""
        size = self._task_size()
        for worker in usable:
            while self.flight.per_worker[worker] <= AHEAD:
                task_games = []
                while len(task_games) < size:
                    item = games.next_for(worker, self.flight.tried)
                    if item is None:
                        break
                    task_games.append(item)
                if not task_games:
                    break
                self._submit(phase, task_games, worker)
                sink.began(game_id for game_id, _ in task_games)

    def _task_size(self) -> int:
        """Games per task: a task lasts about ``TASK_S`` at the mean game time so far
        (short games share the cost of a task; long ones go one by one, at_once at a time)."""
        at_once = self.at_once
        if not self.played_games:
            return at_once
        mean_s = self.played_s / self.played_games
        return max(at_once, min(MAX_TASK_GAMES, int(TASK_S * at_once / max(mean_s, 1e-3))))

    def _unplayable(self, games: _Games, usable: list[str], sink: Sink) -> None:
        """Nothing in flight and games left that no usable worker may have: they stay
        pending."""
        for game_id in games.had_by(usable, self.flight.tried):
            sink.fail(game_id, f"game {game_id}: every worker has already had it")

    def _submit(self, phase: Phase, task_games: list[tuple[int, PlannedGame]], worker: str) -> None:
        """One task of games, pinned to ``worker``, never retried by Dask."""
        from tournaments.run.cluster_worker import play_games

        self.submitted += 1
        future = self.client.submit(
            play_games,
            self.run_id,
            phase.index,
            phase.entrants,
            task_games,
            phase.upcoming,
            key=f"arena-{self.run_id}-{self.submitted}",
            workers=[worker],
            allow_other_workers=False,
            retries=0,
            pure=False,
        )
        self.flight.futures[future] = ([game_id for game_id, _ in task_games], worker)
        future.add_done_callback(self.answers.put)  # answers arrive without polling
        self.flight.per_worker[worker] += 1
        for game_id, _ in task_games:
            self.flight.tried.setdefault(game_id, set()).add(worker)

    def _renew(self) -> None:
        """Tell the workers the arena is still here (their lease on the run)."""
        from tournaments.run.cluster_worker import renew

        now = time.monotonic()
        if now - self.renewed >= RENEW_S:
            self.renewed = now
            try:
                self.client.run(renew, self.run_id, on_error="ignore", wait=False)
            except (OSError, TimeoutError) as exc:
                log.warning("could not renew the run's lease: %s", exc)

    def _answer(
        self, future: Any, planned: Mapping[int, PlannedGame], games: _Games, sink: Sink
    ) -> None:
        """One answered task: record its processes, then each of its games (once), or hand
        them out again, or note why they could not be played."""
        game_ids, worker = self.flight.take_back(future)
        if future.status == "finished":
            try:
                answer = future.result()  # fetched from the worker: the scheduler may be gone
            except OSError as exc:  # distributed's CommClosedError among them
                raise ClusterLost(
                    f"lost the Dask scheduler at {self.config.address}: {exc}"
                ) from None
            self.flight.started[answer.worker] = answer.started
            for record in answer.records:
                self.open.setdefault(record.host, {})[record.token] = record
            sink.record(answer.records)
            sink.returned(answer.refused)
            for game_id in answer.refused:
                games.give_back(game_id, planned[game_id])
            for played in answer.played:
                self._one(played, worker, planned, sink)
            return
        if future.status == "cancelled" and self.client.status != "running":
            raise ClusterLost(f"lost the Dask scheduler at {self.config.address}")
        exc = future.exception() if future.status == "error" else None
        if isinstance(exc, ClusterError):
            raise ClusterError(f"worker {worker}: {exc}")
        log.warning("worker %s: %s; its %d game(s) go elsewhere", worker, exc, len(game_ids))
        sink.returned(game_ids)
        for game_id in game_ids:
            games.give_back(game_id, planned[game_id])

    def _one(
        self, result: Played, worker: str, planned: Mapping[int, PlannedGame], sink: Sink
    ) -> None:
        game_id = result.game_id
        if result.record is None:
            sink.fail(game_id, f"game {game_id} (worker {worker}): {result.error}")
            log.error("game %d could not be played on %s: %s", game_id, worker, result.error)
        elif game_id not in self.recorded:
            self.recorded.add(game_id)
            self.played_games += 1
            self.played_s += result.record.wall_ms / 1000
            sink.game(result, planned[game_id])


class _Games:
    """A phase's games not handed out yet, in plan order; a game given back goes to a worker
    that has not had it."""

    def __init__(self, pending: Iterable[tuple[int, PlannedGame]]) -> None:
        self.left = dict(pending)

    def __len__(self) -> int:
        return len(self.left)

    def next_for(
        self, worker: str, tried: Mapping[int, set[str]]
    ) -> tuple[int, PlannedGame] | None:
        """The next game for ``worker``, never one it already had (None: none for it now)."""
        for game_id, planned in self.left.items():
            if worker not in tried.get(game_id, ()):
                del self.left[game_id]
                return game_id, planned
        return None

    def give_back(self, game_id: int, planned: PlannedGame) -> None:
        self.left[game_id] = planned
        self.left = dict(sorted(self.left.items(), key=lambda item: item[1].index))

    def had_by(self, usable: list[str], tried: Mapping[int, set[str]]) -> list[int]:
        """Remove and return the games every one of ``usable`` has had."""
        had = [g for g in self.left if usable and all(w in tried.get(g, ()) for w in usable)]
        for game_id in had:
            del self.left[game_id]
        return had
