"""The worker side of tournaments on a Dask cluster: per-run bot pools and the game task.

The arena (``tournaments.cluster``) registers one ``RunPlugin`` per ``tournament run`` under a
fresh random run id. A worker opens the run on its first game: it unpacks the folder bots,
resolves the sandbox here (the mode comes from the arena), and starts a driver thread that
plays the run's games through one ``TableRunner`` (``play_many``, N games at once). Its bot
processes are pooled by ``process_key`` as in a local run, so rotation r of every deal goes to
the rotation-r process of each entrant, and no process sees a deal twice:

- the pool belongs to ONE run: a resumed run (a new run id) always gets fresh processes, and a
  run is closed (its bots killed) when the arena unregisters it, or when the arena has not
  been heard from for ``LEASE_S`` (killed, or cut off);
- a game id is played at most once by a run on a worker: a second request for it (a game sent
  again after this worker was thought lost) is refused, and the arena plays it elsewhere.

Everything here runs inside a ``dask worker`` process; only ``tournaments.cluster`` imports it.
"""

from __future__ import annotations

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
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from distributed import WorkerPlugin, get_worker, secede

from arena.errors import ArenaError
from arena.procs import sandbox as sandboxing
from arena.procs import seccomp
from arena.procs.sandbox import SandboxMode
from protocol import PROTOCOL_VERSION
from tournaments.errors import ClusterError
from tournaments.playing import Finished, RunConfig, TableRunner
from tournaments.schedule import PlannedGame
from tournaments.shipping import BotKind, ShippedBot, missing_files, unpack, worker_spec

log = logging.getLogger(__name__)

#: Seconds without word from the arena after which a worker closes a run and kills its bots.
LEASE_S = 60.0
#: Seconds between the reaper's looks at the open runs.
REAP_EVERY_S = 5.0
#: The plugin name of a run: this prefix and the run id.
PLUGIN_PREFIX = "arena-run-"
#: Packages whose source files make up the arena's source hash (the version check).
SOURCE_PACKAGES = ("arena", "protocol", "tournaments", "bots")
#: Seconds a closing run waits for its games to end before it kills its bots.
CLOSE_WAIT_S = 2.0


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


@dataclass(frozen=True, kw_only=True)
class Played:
    """A game task's answer: how the game finished, where, and the worker's process count."""

    finished: Finished
    worker: str
    started: int  # bot processes this run has started on that worker so far
    refused: bool = False  # the game was already played (or started) here: play it elsewhere


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
    """One run on one worker: its bots' folders, its TableRunner and the thread driving it."""

    def __init__(self, run: ClusterRun, base: Path) -> None:
        self.run = run
        self.heard = time.monotonic()
        self.closed = False  # no more games (closing, or the driver stopped)
        self.closing = False
        self.lock = threading.Lock()
        self.seen: set[int] = set()
        self.waiting: dict[int, concurrent.futures.Future[Finished]] = {}
        self.inbox: queue.Queue[tuple[int, PlannedGame] | None] = queue.Queue()
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
        self.config = replace(run.config, bots=specs, sandbox=box, log_dir=logs)
        self.runner = TableRunner(self.config)
        self.thread = threading.Thread(target=self._drive, name=f"arena-run-{run.run_id}")
        self.thread.daemon = True
        self.thread.start()

    def _specs(self) -> tuple[dict, list[str]]:
        """Each entrant's BotSpec here, unpacking each folder bot once (in a folder of its
        own, hidden from the other bots); the folders made."""
        unpacked: dict[str, Path] = {}
        for bot in self.run.bots.values():
            if bot.kind is BotKind.FOLDER and bot.name not in unpacked:
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
        self, game_id: int, planned: PlannedGame
    ) -> concurrent.futures.Future[Finished] | None:
        """Hand one game to the driver; its future, or None if this run has already seen
        ``game_id`` here (its processes may know that deal: it must go elsewhere)."""
        future: concurrent.futures.Future[Finished] = concurrent.futures.Future()
        with self.lock:
            if self.closed:
                raise ClusterError(f"run {self.run.run_id} is closed on this worker")
            if game_id in self.seen:
                return None
            self.seen.add(game_id)
            self.waiting[game_id] = future
            self.heard = time.monotonic()
        self.inbox.put((game_id, planned))
        return future

    def _batch(self) -> list[tuple[int, PlannedGame]] | None:
        """The games handed to the driver since it last looked (waiting for one if there
        are none); None once the run closes."""
        first = self.inbox.get()
        if first is None:
            return None
        games = [first]
        while True:
            try:
                item = self.inbox.get_nowait()
            except queue.Empty:
                return games
            if item is None:
                self.inbox.put(None)  # the close is seen after this batch
                return games
            games.append(item)

    def _drive(self) -> None:
        """The driver thread: play the run's games, up to ``at_once`` of them at once.

        ``play_many`` gets a list of the games at hand, never an iterator that could block
        while games are in flight; the next call gets those that came meanwhile."""
        try:
            batch = self._batch()
            while batch is not None:
                for finished in self.runner.play_many(batch, self.config.at_once):
                    with self.lock:
                        future = self.waiting.pop(finished.game_id, None)
                    if future is not None:
                        future.set_result(finished)
                batch = self._batch()
        except BaseException as exc:  # noqa: BLE001 - every waiting game learns why
            log.exception("run %s: the driver stopped", self.run.run_id)
            self._fail(f"{type(exc).__name__}: {exc}")
        finally:
            with self.lock:
                self.closed = True  # no game waits for a driver that is gone
            self._fail("the run was closed on this worker")

    def _fail(self, error: str) -> None:
        with self.lock:
            waiting, self.waiting = self.waiting, {}
        for game_id, future in waiting.items():
            future.set_result(Finished(game_id=game_id, record=None, error=error))

    def close(self) -> None:
        """Stop taking games, let the driver end (else kill the bots), remove the bots'
        folders (the logs stay with the worker's files)."""
        with self.lock:
            if self.closing:
                return
            self.closing = self.closed = True
        self.inbox.put(None)
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


def _open(run_id: str) -> WorkerRun:
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
            run = WorkerRun(config, base)
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


def play_games(run_id: str, games: list[tuple[int, PlannedGame]]) -> list[Played]:
    """The game task: play a batch of games on this worker's processes of run ``run_id``
    (up to the run's ``at_once`` at a time), and answer for each.

    The task leaves the worker's thread pool while its games wait for the driver, so the
    worker takes its next batch meanwhile (the arena decides how many games each holds)."""
    worker = get_worker()
    run = _open(run_id)
    secede()
    waiting = [(game_id, run.submit(game_id, planned)) for game_id, planned in games]
    answers = []
    for game_id, future in waiting:
        if future is None:
            refused = Finished(game_id=game_id, record=None, error="already played here")
            answers.append(Played(finished=refused, worker=worker.address, started=0, refused=True))
        else:
            answers.append(Played(finished=future.result(), worker=worker.address, started=0))
    return [replace(answer, started=run.started) for answer in answers]
