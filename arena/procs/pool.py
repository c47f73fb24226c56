"""The pool of bot processes: one process per pool key, kept alive across games.

A tournament's session asks its pool for the processes of a game's seats (``BotPool.get``); the
pool starts the missing ones together (``prestart`` starts them ahead, while a game plays),
waits for their hellos, replaces a process that died or whose key now names another bot, and
never lets one process sit at two seats. At a phase's end it ends every local process
(``end_local``), as the fair-play rules require. Bundled bots may be made ready for the next
phase (``prewarm``, a warm start: ``arena.procs.warm``) and are let run their bot only when
their key is asked for (``release``). One process's life (its launch, hello, stop and kill) is
``arena.procs.botproc``'s.
"""

from __future__ import annotations

import concurrent.futures
import itertools
import logging
import os
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

from arena.errors import BotStartError
from arena.procs import identity
from arena.procs import limits as proclimits
from arena.procs.botproc import (
    BotProcess,
    BotSpec,
    Launch,
    await_hellos,
    connect_remote,
    prepare,
    stop,
    wait_exits,
    warm_argv,
)
from arena.procs.hub import Hub
from arena.procs.janitor import Janitor
from arena.procs.limits import Limits
from arena.procs.sandbox import Sandbox
from arena.procs.warm import GO

log = logging.getLogger(__name__)

#: Seconds a bot whose hello was refused has to exit by itself before it is killed: it may
#: still be printing the arena's answer, which its author reads in its log.
REFUSED_EXIT_S = 1.0
#: Why a closed pool gives no process.
CLOSED = "the bot pool is closed"
#: Bot processes started at once by ``BotPool.prestart`` (their children prepare in parallel).
LAUNCH_AT_ONCE = 8


def _start_or_error(launch: Launch) -> subprocess.Popen | BotStartError:
    try:
        return launch.start()
    except BotStartError as exc:
        return exc


def default_log_dir() -> Path:
    return Path(tempfile.gettempdir()) / f"arena-logs-{os.getpid()}"


class BotPool:
    """Keeps one process per label alive across games; replaces dead ones on demand.

    ``sandbox`` wraps every bot process (None: no sandbox; the command line resolves
    ``--sandbox`` with ``arena.procs.sandbox.resolve``, hiding the logs folder among the arena's
    private paths). ``limits`` gives the startup time and the process limits.
    """

    def __init__(
        self,
        hub: Hub,
        *,
        startup_ms: int | None = None,
        log_dir: Path | None = None,
        limits: Limits | None = None,
        sandbox: Sandbox | None = None,
    ) -> None:
        self.hub = hub
        self.limits = limits or Limits()
        self.startup_ms = self.limits.startup_ms if startup_ms is None else startup_ms
        self.log_dir = log_dir or default_log_dir()
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.sandbox = sandbox
        self.remote_wait_ms = hub.remote.config.wait_ms if hub.remote is not None else 0
        self.watchdog = proclimits.Watchdog()
        self.janitor: Janitor | None = None
        self.procs: dict[str, BotProcess] = {}
        self.warm: dict[str, BotProcess] = {}  # pool key -> a warm start not yet released
        self.started = 0
        self.closed = False
        #: Held while processes start and while the pool closes: a pool closed from another
        #: thread (a run closed while its driver plays) starts nothing after its close.
        self._starting = threading.Lock()
        self._launcher: concurrent.futures.ThreadPoolExecutor | None = None
        bases = [
            proclimits.cgroup_base() if self.limits.max_procs > 0 else None,
            proclimits.memory_base() if self.limits.memory_mb > 0 else None,
        ]
        for base in dict.fromkeys(b for b in bases if b is not None):
            proclimits.sweep_stale_cgroups(base)

    def get(self, entries: Sequence[tuple[str, BotSpec]]) -> list[BotProcess]:
        """Live processes for ``(label, spec)`` entries, starting or replacing as needed.

        Every entry must have a label of its own: one process never sits at two seats (it
        would see both seats' hands). Raises BotStartError otherwise, and once the pool is
        closed (no process, a remote bot's connection neither)."""
        if self.closed:
            raise BotStartError(CLOSED)
        labels = [label for label, _ in entries]
        if len(set(labels)) != len(labels):
            twice = sorted({label for label in labels if labels.count(label) > 1})
            raise BotStartError(f"one process would play two seats: {', '.join(twice)}")
        stale = [
            proc
            for label, spec in entries
            if (proc := self.procs.get(label)) is not None
            and (not proc.alive() or proc.spec != spec)
        ]
        for proc in stale:
            del self.procs[proc.label]
        if stale:
            self._stop(stale, grace_s=0)
        failed = self._launch(entries)  # the missing local processes start together
        fresh: list[BotProcess] = []
        for label, spec in entries:
            proc = self.procs.get(label)
            if proc is None and spec.remote:
                proc = connect_remote(spec, self.hub, label, wait_ms=self.remote_wait_ms)
                self.procs[label] = proc
            elif proc is None:
                raise failed[label]
            if proc.peer is None:
                fresh.append(proc)
        if fresh:
            try:
                await_hellos(self.hub, fresh, timeout_ms=self.startup_ms)
            except BotStartError:
                refused = [
                    proc.popen
                    for proc in fresh
                    if proc.popen is not None and self.hub.refusal(proc.hub_label) is not None
                ]
                wait_exits(refused, REFUSED_EXIT_S)
                for proc in fresh:
                    self.procs.pop(proc.label, None)
                self._stop(fresh, grace_s=0)
                raise
        return [self.procs[label] for label, _ in entries]

    def prestart(self, entries: Sequence[tuple[str, BotSpec]]) -> None:
        """Start the processes ``get(entries)`` will need, without waiting for their hellos,
        up to ``LAUNCH_AT_ONCE`` children at a time (each child prepares itself a while before
        it runs the bot: joins its cgroups, enters its own view of the files, becomes its uid).
        They start from threads that live as long as the pool: a child's parent-death signal
        comes when the *thread* that started it ends.

        Their start-up then overlaps the game being played; ``get`` waits for what is left.
        A process that cannot start is left for ``get`` to report.
        """
        for label, exc in self._launch(entries).items():
            log.debug("prestart of %s failed (get will report it): %s", label, exc)

    def prewarm(self, entries: Sequence[tuple[str, BotSpec]]) -> None:
        """Start warm processes (``arena.procs.warm``) for the ``warm`` specs among ``entries``
        (pool key, spec) that have none yet, even where a process of the key runs now: each
        does the arena's part of its start-up and waits, running none of the bot's code until
        ``get`` or ``prestart`` needs its key and releases it (``release``). Only where a bot
        cannot reach another bot's processes (a sandbox, or a uid of its own): unsandboxed as
        an ordinary user, one could write into a waiting one. One that cannot start is left
        for ``get`` to start the usual way."""
        if self.sandbox is None and not identity.separate_users():
            return
        wanted = [
            (key, spec)
            for key, spec in dict(entries).items()
            if key not in self.warm and warm_argv(spec) is not None
        ]
        for key, exc in self._launch(wanted, warm=True).items():
            log.debug("warm start of %s failed (it will start when needed): %s", key, exc)

    def release(self, key: str, spec: BotSpec) -> BotProcess | None:
        """Let the warm process of ``key`` run its bot, as the pool's process of ``key`` (its
        start is now); None if it has none, or none of ``spec``, or it is gone (then ended)."""
        proc = self.warm.pop(key, None)
        if proc is None or proc.popen is None:
            return None
        assert proc.output is not None
        proc.output.start()  # the process before it that wrote this log is gone
        if proc.spec != spec:
            self._end_unreleased([proc])
            return None
        proc.started_at, proc.started_wall = time.monotonic(), time.time()
        try:
            stdin = proc.popen.stdin
            assert stdin is not None
            stdin.write(GO)
            stdin.close()
        except OSError:
            self._stop([proc], grace_s=0)
            return None
        return self._add(proc)

    def _hub_label(self, key: str) -> str:
        """A hub label for a new process of pool key ``key``: the key, or while a process of
        it holds that label, ``KEY~N`` (never a key: keys end in digits or ``remote``)."""
        held = {proc.hub_label for proc in (*self.procs.values(), *self.warm.values())}
        labels = itertools.chain([key], (f"{key}~{n}" for n in itertools.count(1)))
        return next(label for label in labels if label not in held)

    def _launch(
        self, entries: Sequence[tuple[str, BotSpec]], *, warm: bool = False
    ) -> dict[str, BotStartError]:
        """Start the local processes of ``entries`` that are not running (see ``prestart``;
        ``warm``: warm starts, kept apart until released); the errors of those that could not
        start, by pool key. A key with a warm process has it released instead. A closed pool
        starts none."""
        with self._starting:
            if self.closed:
                return {key: BotStartError(CLOSED) for key, _ in entries}
            return self._launch_open(entries, warm=warm)

    def _launch_open(
        self, entries: Sequence[tuple[str, BotSpec]], *, warm: bool
    ) -> dict[str, BotStartError]:
        launches = []
        failed: dict[str, BotStartError] = {}
        for key, spec in dict(entries).items():
            if spec.remote or (not warm and (key in self.procs or self.release(key, spec))):
                continue
            try:
                launches.append(self._prepare(key, spec, warm=warm))
            except BotStartError as exc:
                failed[key] = exc
        if len(launches) > 1:
            if self._launcher is None:  # threads that live as long as the pool (see close)
                self._launcher = concurrent.futures.ThreadPoolExecutor(
                    LAUNCH_AT_ONCE, thread_name_prefix="arena-launch"
                )
            started = list(self._launcher.map(_start_or_error, launches))
        else:
            started = [_start_or_error(launch) for launch in launches]
        for launch, popen in zip(launches, started, strict=True):
            if isinstance(popen, BotStartError):
                failed[launch.key] = popen
            elif warm:
                self.warm[launch.key] = launch.finish(popen, self.watchdog, self.janitor)
            else:
                self._add(launch.finish(popen, self.watchdog, self.janitor))
        return failed

    def _prepare(self, key: str, spec: BotSpec, *, warm: bool = False) -> Launch:
        if self.janitor is None:
            self.janitor = Janitor.start()
        launch = prepare(
            spec,
            self.hub,
            self._hub_label(key),
            log_dir=self.log_dir,
            limits=self.limits,
            sandbox=self.sandbox,
            key=key,
            warm=warm,
        )
        if self.janitor is not None:
            self.janitor.register(
                launch.label,
                cgroups=[group.path for group in launch.plan.cgroups],
                scratch=launch.plan.scratch,
            )
        return launch

    def _add(self, proc: BotProcess) -> BotProcess:
        self.procs[proc.label] = proc
        self.started += 1
        return proc

    def _stop(self, procs: Iterable[BotProcess], *, grace_s: float) -> list[BotProcess]:
        procs = list(procs)
        left = stop(procs, self.hub, grace_s=grace_s, watchdog=self.watchdog)
        if self.janitor is not None:
            for proc in procs:
                if proc not in left:  # the janitor keeps what may still run
                    self.janitor.forget(proc.hub_label)
        return left

    def end_local(self, *, grace_s: float = 0.2) -> tuple[list[BotProcess], list[BotProcess]]:
        """End every local bot process now (bye, up to ``grace_s`` to exit, then killed with
        all it started: ``stop``); remote bots keep their connections. Returns the processes
        ended, and those of which something may still run (``kill``)."""
        local = [proc for proc in self.procs.values() if proc.popen is not None]
        for proc in local:
            del self.procs[proc.label]
        left = self._stop(local, grace_s=grace_s)
        return local, left

    def discard(self, label: str) -> None:
        proc = self.procs.pop(label, None)
        if proc is not None:
            self._stop([proc], grace_s=0)

    def _end_unreleased(self, procs: Sequence[BotProcess]) -> None:
        """End warm processes that were never released: the end of their input ends each
        without running its bot, and the rest of ``stop`` follows."""
        for proc in procs:
            if proc.popen is not None and proc.popen.stdin is not None:
                proc.popen.stdin.close()
            if proc.output is not None and proc.output.write_fd >= 0:
                proc.output.start()
        self._stop(procs, grace_s=0.5)

    def end_warm(self) -> None:
        """End every warm process not released, unused: none of its bot's code runs (the
        phase it was made for plays none of its games here)."""
        unused = list(self.warm.values())
        self.warm.clear()
        self._end_unreleased(unused)

    def close(self) -> None:
        """End every process, warm ones unused; from then on the pool starts none (``get``
        raises BotStartError). Another thread may be starting processes: they are ended too."""
        with self._starting:
            self.closed = True
        self._stop(self.procs.values(), grace_s=0.5)
        self.procs.clear()
        self.end_warm()
        if self._launcher is not None:
            self._launcher.shutdown()
            self._launcher = None
        self.watchdog.close()
        if self.janitor is not None:
            self.janitor.close()
            self.janitor = None

    def __enter__(self) -> BotPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
