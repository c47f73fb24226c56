"""The worker side of tournaments on a Dask cluster: per-run bot pools, the game task and the
end of a phase.

The arena (``tournaments.run.cluster``) registers one ``RunPlugin`` per ``tournament run`` under a
fresh random run id. A worker opens the run on its first game: it unpacks the folder bots,
resolves the sandbox here (the mode comes from the arena), and starts a driver thread that
plays the run's games through one ``SessionRunner`` (``play_many``, N games at once), phase by
phase as the arena hands them out (``tournaments.run.phases``): within a phase its processes serve
game after game; when the arena ends the phase (``end_phase``, on every worker, once every game
of the phase is answered), the worker ends every bot process it holds, sees them gone, and
answers with their records. The arena starts the next phase only then: the barrier between
phases spans the cluster. While a phase plays, a worker makes the next phase's first processes
of the bundled bots ready as warm starts (``arena.procs.warm``, running none of a bot's code):
its first game of that phase releases them; the end of that phase, if it gave the worker no
game, ends them unused, as the run's close does.

- the pool belongs to ONE run: a resumed run (a new run id) always gets fresh processes, and a
  run is closed (its bots killed) when the arena unregisters it, when the arena has not been
  heard from for ``LEASE_S`` (killed, or cut off), or when a new run of the same tournament
  begins (``close_tournament_runs``);
- a game id is played at most once by a run on a worker: a second request for it (a game sent
  again after this worker was thought lost) is refused, and the arena plays it elsewhere.

Everything here runs inside a ``dask worker`` process; only ``tournaments.run.cluster`` imports it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import hashlib
import importlib.metadata
import importlib.util
import logging
import os
import queue
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from distributed import WorkerPlugin, get_worker, secede

from arena.errors import ArenaError
from arena.procs import sandbox as sandboxing
from arena.procs import seccomp
from arena.procs.sandbox import SandboxMode
from arena.referee.record import Played
from protocol import PROTOCOL_VERSION
from tournaments.catalogue.shipping import (
    ShippedBot,
    ShippingKind,
    missing_files,
    unpack,
    worker_spec,
)
from tournaments.errors import ClusterError
from tournaments.plans.schedule import PlannedGame
from tournaments.run.playing import RunConfig, SessionRunner
from tournaments.store.values import ProcessRecord

log = logging.getLogger(__name__)

#: Seconds without word from the arena after which a worker closes a run and kills its bots.
#: The arena waits this long (and ``LEASE_MARGIN_S``) for a worker it lost mid-phase before the
#: next phase starts: its bots may still run until then.
LEASE_S = 20.0
#: Seconds between the reaper's looks at the open runs.
REAP_EVERY_S = 1.0
#: The plugin name of a run: this prefix and the run id.
PLUGIN_PREFIX = "arena-run-"
#: Packages whose source files make up the arena's source hash (the version check).
SOURCE_PACKAGES = ("arena", "protocol", "tournaments", "bots")
#: Seconds a closing run waits for its games to end before it kills its bots.
CLOSE_WAIT_S = 2.0
#: Seconds, beyond ``LEASE_S``, by which a worker that lost the arena has closed its run.
LEASE_MARGIN_S = REAP_EVERY_S + 2 * CLOSE_WAIT_S + 1.0


@dataclass(frozen=True, kw_only=True)
class Versions:
    """What must match between the arena and each worker."""

    arena: str
    protocol: int
    source: str  # hash of the arena's installed source files

    def __str__(self) -> str:
        return f"arena {self.arena}, protocol {self.protocol}, source {self.source}"


@dataclass(frozen=True, kw_only=True)
class WorkerReport:
    """What a worker says about itself before a run: versions, sandbox, missing bot files."""

    address: str
    versions: Versions
    sandbox_problem: str | None  # None: bubblewrap and the system-call filter work here
    missing: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class ClusterRun:
    """Everything a worker needs for one run, sent as values: the run's configuration (whose
    bots, sandbox and logs folder each worker makes its own), each entrant's shipped bot and
    the sandbox mode the worker resolves."""

    run_id: str
    config: RunConfig
    bots: Mapping[str, ShippedBot]  # entrant label -> bot
    sandbox: SandboxMode
    tournament: str = ""  # names the tournament: a new run of it closes the earlier ones


@dataclass(frozen=True, kw_only=True)
class TaskResult:
    """What a game task gives back: the records of the processes started since the last one (each
    comes before the games it played), each game played, the games refused (already played or
    started here: to be played elsewhere), where, and the worker's process count."""

    worker: str
    started: int  # bot processes this run has started on that worker so far
    played: tuple[Played, ...]
    refused: tuple[int, ...] = ()
    records: tuple[ProcessRecord, ...] = ()


@dataclass(frozen=True)
class _Game:
    """A game for the driver thread, with its phase (its entrants, and the next phase's:
    ``upcoming``, made ready as warm starts while it plays)."""

    phase: int
    entrants: tuple[str, ...]
    game_id: int
    planned: PlannedGame
    upcoming: tuple[str, ...] = ()


#: For the driver thread: the run closes.
_CLOSE: Any = "close"


@dataclass(frozen=True)
class _EndPhase:
    """For the driver thread: phase ``phase`` ends: end every bot process; the records go to
    ``future``."""

    future: concurrent.futures.Future[list[ProcessRecord]]
    phase: int


@functools.cache
def local_versions() -> Versions:
    """This machine's arena version, protocol version and source hash."""
    try:
        version = importlib.metadata.version("arena")
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    digest = hashlib.sha256()
    for package in SOURCE_PACKAGES:
        spec = importlib.util.find_spec(package)
        for folder in list(spec.submodule_search_locations or []) if spec else []:
            for root, dirs, files in os.walk(folder):
                dirs[:] = sorted(d for d in dirs if d != "__pycache__")
                for name in sorted(files):
                    if name.endswith((".py", ".toml")):
                        path = Path(root) / name
                        digest.update(f"{package}/{path.relative_to(folder)}\0".encode())
                        digest.update(path.read_bytes())
    return Versions(arena=version, protocol=PROTOCOL_VERSION, source=digest.hexdigest()[:12])


def inspect_worker(
    bots: Mapping[str, ShippedBot], sandbox: SandboxMode, dask_worker: Any = None
) -> WorkerReport:
    """Run on every worker before a run (``Client.run``): its versions, why it cannot sandbox
    (bubblewrap or the system-call filter; None: it can; not probed with ``--sandbox off``) and
    the command bots' missing files."""
    problem = None
    if SandboxMode(sandbox) is not SandboxMode.OFF:
        found = shutil.which("bwrap")
        problem = (
            "bubblewrap (bwrap) is not installed" if found is None else sandboxing.probe(found)
        ) or seccomp.problem()
    return WorkerReport(
        address=dask_worker.address if dask_worker is not None else "",
        versions=local_versions(),
        sandbox_problem=problem,
        missing=tuple(missing_files(bots)),
    )


class WorkerRun:
    """One run on one worker: its bots' folders, its SessionRunner and the thread driving it."""

    def __init__(self, run: ClusterRun, base: Path, host: str = "") -> None:
        self.run = run
        self.heard = time.monotonic()
        self.closed = False  # no more games (closing, or the driver stopped)
        self.closing = False
        self.lock = threading.Lock()
        self.seen: set[int] = set()
        self.waiting: dict[int, concurrent.futures.Future[Played]] = {}
        self.records: list[ProcessRecord] = []  # not answered yet
        self.inbox: queue.Queue[Any] = queue.Queue()  # _Game, _EndPhase or _CLOSE
        self._held: Any = None
        self._begun: int | None = None  # the phase the runner plays
        base.mkdir(parents=True, exist_ok=True)
        os.chmod(base, 0o711)  # no bot lists the runs
        self.folder = Path(tempfile.mkdtemp(prefix=f"arena-{run.run_id}-", dir=base))
        os.chmod(self.folder, 0o711)  # bot users reach their own folder, and list nothing
        logs = self.folder / "logs"
        logs.mkdir(mode=0o700)
        try:
            specs, folders = self._specs()
            box = sandboxing.resolve(run.sandbox, hide=[str(logs), *folders], local=bool(run.bots))
        except BaseException:
            shutil.rmtree(self.folder, ignore_errors=True)
            raise
        self.config = replace(run.config, bots=specs, sandbox=box, log_dir=logs, code=None)
        self.runner = SessionRunner(self.config, run=run.run_id, host=host or "worker")
        self.thread = threading.Thread(target=self._drive, name=f"arena-run-{run.run_id}")
        self.thread.daemon = True
        self.thread.start()

    def _specs(self) -> tuple[dict, list[str]]:
        """Each entrant's BotSpec here, unpacking each folder bot once (in a folder of its
        own, hidden from the other bots); the folders made."""
        unpacked: dict[str, Path] = {}
        for bot in self.run.bots.values():
            if bot.kind is ShippingKind.FOLDER and bot.name not in unpacked:
                (self.folder / "bots").mkdir(exist_ok=True)
                target = Path(tempfile.mkdtemp(dir=self.folder / "bots"))  # a name no bot guesses
                unpacked[bot.name] = unpack(bot, target)
        if unpacked:
            os.chmod(self.folder / "bots", 0o711)
        specs = {
            label: worker_spec(bot, unpacked.get(bot.name)) for label, bot in self.run.bots.items()
        }
        return specs, [str(path) for path in unpacked.values()]

    def submit(
        self,
        phase: int,
        entrants: tuple[str, ...],
        game_id: int,
        planned: PlannedGame,
        upcoming: tuple[str, ...] = (),
    ) -> concurrent.futures.Future[Played] | None:
        """Hand one game of ``phase`` to the driver (``upcoming``: the next phase's entrants);
        its future, or None if this run has already seen ``game_id`` here (its processes may
        know that deal: it must go elsewhere)."""
        future: concurrent.futures.Future[Played] = concurrent.futures.Future()
        with self.lock:
            if self.closed:
                raise ClusterError(f"run {self.run.run_id} is closed on this worker")
            if game_id in self.seen:
                return None
            self.seen.add(game_id)
            self.waiting[game_id] = future
            self.heard = time.monotonic()
            game = _Game(phase, entrants, game_id, planned, upcoming)
            self.inbox.put(game)  # seen by _fail if closed
        return future

    def end_phase(self, phase: int) -> concurrent.futures.Future[list[ProcessRecord]]:
        """End every bot process of the run here, once the games handed out have ended (phase
        ``phase`` is over); the future gets their records."""
        future: concurrent.futures.Future[list[ProcessRecord]] = concurrent.futures.Future()
        with self.lock:
            self.heard = time.monotonic()
            if self.closed:
                future.set_result([])  # closed: its bots are killed already
            else:
                self.inbox.put(_EndPhase(future, phase))  # seen by _fail if the driver stops
        return future

    def take_records(self) -> tuple[ProcessRecord, ...]:
        """The process records not answered yet."""
        with self.lock:
            records, self.records = self.records, []
        return tuple(records)

    def _next(self, block: bool) -> Any:
        """The next item for the driver (kept until ``_take``): a ``_Game``, an ``_EndPhase``
        or ``_CLOSE``; None if none is waiting and ``block`` is False."""
        if self._held is None:
            try:
                self._held = self.inbox.get(block=block)
            except queue.Empty:
                return None
        return self._held

    def _take(self) -> None:
        self._held = None

    def _games(self, phase: int) -> Iterator[tuple[int, PlannedGame] | None]:
        """The games of ``phase`` handed out to the driver, as they come; None when none is
        waiting while games are in flight (never block them); ends at anything else."""
        while True:
            item = self._next(block=not self.runner.in_flight)
            if item is None:
                yield None
                continue
            if not isinstance(item, _Game) or item.phase != phase:
                return
            self._take()
            yield item.game_id, item.planned

    def _drive(self) -> None:
        """The driver thread: play the run's games phase by phase, up to ``at_once`` at once,
        and end each phase's processes when the arena says so. While a phase plays, the next
        one's first processes are made ready as warm starts (``SessionRunner.begin_phase``);
        its first game here releases them, and the end of a phase that gave this worker no
        game ends them unused."""
        try:
            while (item := self._next(block=True)) is not _CLOSE:
                if isinstance(item, _EndPhase):
                    self._take()
                    if item.phase != self._begun:  # no game of it here: its warm ones go
                        self.runner.end_warm()
                    item.future.set_result(self.runner.end_phase())
                    continue
                if item.phase != self._begun:
                    self._begun = item.phase
                    self.runner.begin_phase(item.phase, item.entrants, upcoming=item.upcoming)
                for out in self.runner.play_many(self._games(item.phase), self.config.at_once):
                    self._deliver(out)
        except BaseException as exc:  # noqa: BLE001 - every waiting game learns why
            log.exception("run %s: the driver stopped", self.run.run_id)
            self._fail(f"{type(exc).__name__}: {exc}")
        finally:
            with self.lock:
                self.closed = True  # no game waits for a driver that is gone
            self._fail("the run was closed on this worker")

    def _deliver(self, out: Played | ProcessRecord) -> None:
        with self.lock:
            if isinstance(out, ProcessRecord):
                self.records.append(out)
                return
            future = self.waiting.pop(out.game_id, None)
        if future is not None:
            future.set_result(out)

    def _fail(self, error: str) -> None:
        """(the driver, stopping) Every game waiting learns ``error``; every end of a phase
        asked is answered (the bots are killed by ``close``)."""
        with self.lock:
            waiting, self.waiting = self.waiting, {}
        for game_id, future in waiting.items():
            future.set_result(Played(game_id, None, error))
        items, self._held = [self._held], None
        while True:
            try:
                items.append(self.inbox.get_nowait())
            except queue.Empty:
                break
        for item in items:
            if isinstance(item, _EndPhase) and not item.future.done():
                item.future.set_result([])

    def close(self) -> None:
        """Stop taking games, let the driver end (else kill the bots), remove the bots'
        folders (the logs stay with the worker's files)."""
        with self.lock:
            if self.closing:
                return
            self.closing = self.closed = True
        self.inbox.put(_CLOSE)
        self.thread.join(CLOSE_WAIT_S)
        self.runner.close()  # kills the bots: a game still being played ends at once
        self.thread.join(CLOSE_WAIT_S)
        shutil.rmtree(self.folder / "bots", ignore_errors=True)
        log.info("run %s closed: %d bot process(es) started", self.run.run_id, self.started)

    @property
    def started(self) -> int:
        return self.runner.started


@dataclass
class _Registry:
    """The runs this worker process knows: their configurations, and those opened."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    configs: dict[str, tuple[ClusterRun, Path, float]] = field(default_factory=dict)
    runs: dict[str, WorkerRun] = field(default_factory=dict)
    reaper: threading.Thread | None = None


_registry = _Registry()


def _open(run_id: str, host: str = "") -> WorkerRun:
    """The open run ``run_id`` here, opened on first need. Raises ClusterError."""
    with _registry.lock:
        run = _registry.runs.get(run_id)
        if run is not None:
            return run
        entry = _registry.configs.get(run_id)
        if entry is None:
            raise ClusterError(f"run {run_id} is not open on this worker (ended, or timed out)")
        config, base, _ = entry
        try:
            run = WorkerRun(config, base, host)
        except ArenaError as exc:  # a bot that cannot be unpacked, a sandbox that fails...
            raise ClusterError(f"run {run_id} cannot start here: {exc}") from None
        _registry.runs[run_id] = run
        return run


async def renew(run_id: str) -> bool:
    """The arena is still there (``Client.run`` every few seconds, not awaited: a coroutine,
    run on the worker's event loop): keep the run open."""
    with _registry.lock:
        entry = _registry.configs.get(run_id)
        if entry is not None:
            _registry.configs[run_id] = (entry[0], entry[1], time.monotonic())
        run = _registry.runs.get(run_id)
    if run is not None:
        run.heard = time.monotonic()
    return entry is not None


def forget_run(run_id: str) -> WorkerRun | None:
    """Forget run ``run_id`` (no game of it starts here any more); the open run, if any."""
    with _registry.lock:
        _registry.configs.pop(run_id, None)
        return _registry.runs.pop(run_id, None)


def close_run(run_id: str) -> None:
    """Forget run ``run_id`` and close it if it was opened (its bot processes are killed)."""
    run = forget_run(run_id)
    if run is not None:
        run.close()


def reap(now: float | None = None) -> list[str]:
    """Close the runs the arena has not renewed for ``LEASE_S`` (it was killed or cut off);
    returns their ids."""
    now = time.monotonic() if now is None else now
    with _registry.lock:
        stale = [
            run_id
            for run_id, (_, _, heard) in _registry.configs.items()
            if now - max(heard, getattr(_registry.runs.get(run_id), "heard", 0.0)) > LEASE_S
        ]
    for run_id in stale:
        log.warning("run %s: no word from the arena for %.0f s; closing it", run_id, LEASE_S)
        close_run(run_id)
    return stale


def _reap() -> None:
    """The reaper thread: ``reap`` every ``REAP_EVERY_S``."""
    while True:
        time.sleep(REAP_EVERY_S)
        reap()


class RunPlugin(WorkerPlugin):
    """One run's configuration, installed on every worker (those that join later included)
    while the arena runs it; unregistering it closes the run on each worker."""

    def __init__(self, run: ClusterRun) -> None:
        self.run = run
        self.name = PLUGIN_PREFIX + run.run_id

    def setup(self, worker: Any) -> None:
        # Dask's sampling profiler walks every thread's stack 100 times a second: on a busy
        # worker it costs a few ms of a core per game. The arena's workers go without it.
        for name in ("profile", "profile-cycle"):
            callback = getattr(worker, "periodic_callbacks", {}).get(name)
            if callback is not None:
                callback.stop()
        base = Path(worker.local_directory) / "arena-runs"
        with _registry.lock:
            _registry.configs[self.run.run_id] = (self.run, base, time.monotonic())
            if _registry.reaper is None:
                _registry.reaper = threading.Thread(target=_reap, name="arena-reaper", daemon=True)
                _registry.reaper.start()

    def teardown(self, worker: Any) -> None:
        run = forget_run(self.run.run_id)
        if run is not None:  # closing waits for the bots to stop: not on the event loop
            threading.Thread(target=run.close, daemon=True).start()


def play_games(
    run_id: str,
    phase: int,
    entrants: tuple[str, ...],
    games: list[tuple[int, PlannedGame]],
    upcoming: tuple[str, ...] = (),
) -> TaskResult:
    """The game task: play a task's games of ``phase`` on this worker's processes of run
    ``run_id`` (up to the run's ``at_once`` at a time), and answer for each; ``upcoming``, the
    next phase's entrants, are made ready as warm starts meanwhile.

    The task leaves the worker's thread pool while its games wait for the driver, so the
    worker takes its next task meanwhile (the arena decides how many games each holds)."""
    worker = get_worker()
    run = _open(run_id, worker.address)
    secede()
    waiting = [(game_id, run.submit(phase, entrants, game_id, g, upcoming)) for game_id, g in games]
    refused = tuple(game_id for game_id, future in waiting if future is None)
    played = tuple(future.result() for _, future in waiting if future is not None)
    return TaskResult(
        worker=worker.address,
        started=run.started,
        played=played,
        refused=refused,
        records=run.take_records(),
    )


async def end_phase(run_id: str, phase: int) -> list[ProcessRecord]:
    """End phase ``phase`` of run ``run_id`` here (``Client.run`` on every worker, once every
    game of the phase is answered): every bot process of the run is ended and seen gone (a
    warm one made for this phase, where it gave this worker no game, ended unused); their
    records (none where the run never opened)."""
    with _registry.lock:
        run = _registry.runs.get(run_id)
    if run is None:
        return []
    records = await asyncio.wrap_future(run.end_phase(phase))
    return [*run.take_records(), *records]


async def close_tournament_runs(tournament: str, keep: str) -> int:
    """Close every run of ``tournament`` here but ``keep`` (a new run of it begins: a killed
    arena's run may still hold processes until its lease ends); returns how many. Their bots
    are gone when it returns."""
    with _registry.lock:
        old = [
            run_id
            for run_id, (config, _, _) in _registry.configs.items()
            if tournament and config.tournament == tournament and run_id != keep
        ]
    loop = asyncio.get_running_loop()
    for run_id in old:
        await loop.run_in_executor(None, close_run, run_id)
    return len(old)
