"""Bot processes: spawning, the hello handshake, pooling and killing.

A bot process is started once and serves game after game; a process that died is replaced the
next time it is needed. Each process runs in its own session, under the process limits of
``arena.procs.limits`` (memory, CPU time, number of processes), inside the bubblewrap sandbox of
``arena.procs.sandbox`` when there is one, as a uid of its own when the arena runs as root
(``arena.procs.identity``), with a clean environment (``ARENA_ENDPOINT``,
``ARENA_TOKEN``, ``TMPDIR``, the locale, ``PATH``/``HOME`` and ``PYTHON*``/``PYENV*``
settings, and any ``ARENA_BOT_*`` variable: nothing else of the arena's environment), and with
its output drained into a bounded log (``arena.procs.logs``). Killing a bot kills everything it
started. Every spawned process gets the system-call filter of ``arena.procs.seccomp`` where it
works, sandboxed or not. A remote bot (``BotSpec.remote``) is not spawned: the pool waits for
it to connect.
"""

from __future__ import annotations

import logging
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from arena.errors import BotStartError, SandboxError
from arena.procs import identity, reach, seccomp
from arena.procs import limits as proclimits
from arena.procs import sandbox as sandboxing
from arena.procs.hub import Hub, Peer
from arena.procs.janitor import Janitor
from arena.procs.limits import Limits
from arena.procs.logs import CappedLog, log_path, tail
from arena.procs.sandbox import Sandbox
from protocol import messages
from protocol.transport import ipc_folder

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class BotSpec:
    """How to run a bot: a display name, the command line and an optional working folder
    (``tournaments.catalogue`` says what a bot's name means).

    A ``remote`` bot has no command: it is started by hand elsewhere and connects over TCP.
    """

    name: str
    argv: tuple[str, ...]
    cwd: str | None = None
    remote: bool = False


#: Environment variables passed on to bots (plus the prefixes below); nothing else is.
PASS_ENV = frozenset(
    {
        "PATH",
        "HOME",
        "LANG",
        "LANGUAGE",
        "TZ",
        "TERM",
        "USER",
        "LOGNAME",
        "VIRTUAL_ENV",
        "LD_LIBRARY_PATH",
    }
)
PASS_ENV_PREFIXES = ("LC_", "PYTHON", "PYENV", "CONDA", "ARENA_BOT_")
#: Seconds to wait for a killed bot's output to be drained before reading its log's tail.
DRAIN_S = 0.3


@dataclass
class BotProcess:
    """One running bot process (or connected remote bot) and its peer on the hub."""

    label: str
    spec: BotSpec
    popen: subprocess.Popen | None
    log_path: Path | None
    peer: Peer | None = None
    started_at: float = field(default_factory=time.monotonic)
    output: CappedLog | None = None
    cgroup: proclimits.BotCgroup | None = None
    memory_cgroup: proclimits.BotCgroup | None = None
    scratch: str | None = None
    user: int | None = None
    sandboxed: bool = False
    killed_because: str | None = None

    def running(self) -> bool:
        """The process has not exited (a remote bot: its connection is open)."""
        if self.popen is None:
            return self.peer is not None and not self.peer.closed
        return self.popen.poll() is None

    def alive(self) -> bool:
        """Running and reachable: a process whose connection the hub cut is as good as dead."""
        return self.running() and not (self.peer is not None and self.peer.closed)

    def exit_summary(self) -> str:
        if self.popen is None:
            return "remote bot disconnected" if not self.alive() else "remote bot connected"
        code = self.popen.poll()
        if code is not None and self.output is not None:
            self.output.wait(DRAIN_S)
        status = "still running" if code is None else describe_exit(code, sandboxed=self.sandboxed)
        if self.killed_because:
            status += f" (killed by the arena: {self.killed_because})"
        text = tail(self.log_path, 400) if self.log_path else ""
        return status + (f"; last output: {text}" if text else "")


def describe_exit(code: int, *, sandboxed: bool = False) -> str:
    """An exit status in words. Under bubblewrap a bot killed by signal N exits 128 + N."""
    if sandboxed and 128 < code < 128 + 65:
        code = -(code - 128)
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exited with status {code}"


def bot_environment(endpoint: str, token: str, scratch: str) -> dict[str, str]:
    """The environment of a bot process: what it needs, and none of the arena's secrets."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key in PASS_ENV or key.startswith(PASS_ENV_PREFIXES)
    }
    env.update(
        ARENA_ENDPOINT=endpoint,
        ARENA_TOKEN=token,
        PYTHONUNBUFFERED="1",
        TMPDIR=scratch,
        MALLOC_ARENA_MAX="2",
    )
    return env


def spawn(
    spec: BotSpec,
    hub: Hub,
    label: str,
    *,
    log_dir: Path,
    limits: Limits = Limits(),
    sandbox: Sandbox | None = None,
    watchdog: proclimits.Watchdog | None = None,
    janitor: Janitor | None = None,
) -> BotProcess:
    """Start the process for ``label`` with its endpoint, a fresh token and its limits.

    As root the process runs as a uid of its own (``arena.procs.identity``), sandboxed or not. The
    ``janitor`` learns what it holds (cgroups before it starts), to kill it if this process
    dies without stopping it.
    """
    if spec.remote:
        raise BotStartError(f"bot {spec.name!r} is remote: it is not started by the arena")
    token = hub.issue_token(label)
    endpoint = hub.endpoint_of(label)  # this process's own door
    cwd = spec.cwd or os.getcwd()
    output = CappedLog(log_path(log_dir, spec.name, label), cap=limits.log_bytes)
    try:
        argv, folder = _command(spec, endpoint, cwd, sandbox)
        plan = _plan(spec, cwd, folder, limits, sandbox)
    except (BotStartError, OSError) as exc:
        output.abandon()
        hub.revoke(label)
        if isinstance(exc, BotStartError):
            raise
        raise BotStartError(f"bot {spec.name!r} could not be prepared: {exc}") from None
    cgroups: tuple[proclimits.BotCgroup | None, proclimits.BotCgroup | None] = (None, None)
    try:
        cgroups = proclimits.bot_cgroups(max_procs=limits.max_procs, memory_mb=limits.memory_mb)
        plan = replace(plan, cgroups=tuple(g for g in cgroups if g is not None))
        if janitor is not None:
            janitor.register(
                label, cgroups=[group.path for group in plan.cgroups], scratch=plan.scratch
            )
        popen = subprocess.Popen(
            argv,
            env=bot_environment(endpoint, token, plan.scratch or "/tmp"),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=output.write_fd,
            stderr=output.write_fd,
            start_new_session=True,
            preexec_fn=proclimits.child_setup(plan),
        )
    except (OSError, subprocess.SubprocessError) as exc:
        output.abandon()
        for group in plan.cgroups:
            group.kill()
        if plan.scratch:
            shutil.rmtree(plan.scratch, ignore_errors=True)
        hub.revoke(label)
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise BotStartError(
            f"bot {spec.name!r} could not be started: {why}: "
            f"{spec.argv[0] if spec.argv else '(no command)'}"
        ) from None
    output.start()
    user = identity.uid_of(popen.pid) if plan.user else None
    if janitor is not None:
        janitor.register(label, pgid=popen.pid, uid=user)
    proc = BotProcess(
        label=label,
        spec=spec,
        popen=popen,
        log_path=output.path,
        output=output,
        cgroup=cgroups[0],
        memory_cgroup=cgroups[1],
        scratch=plan.scratch,
        sandboxed=sandbox is not None,
        user=user,
    )
    if limits.max_procs > 0 and cgroups[0] is None and watchdog is not None:
        watchdog.watch(
            popen.pid,
            limits.max_procs,
            lambda reason: setattr(proc, "killed_because", reason),
            user=user,
        )
    return proc


def _command(
    spec: BotSpec, endpoint: str, cwd: str, sandbox: Sandbox | None
) -> tuple[list[str], str | None]:
    """The command line to run (wrapped in the sandbox, if any) and the folder of the bot's own
    hub socket (raises BotStartError). The child gives that folder to the bot's uid."""
    folder = ipc_folder(endpoint)
    if sandbox is not None and folder is None:
        raise BotStartError(f"sandboxed bots reach the arena over ipc://, not {endpoint}")
    if sandbox is None:
        return list(spec.argv), folder
    try:
        return sandbox.wrap(spec.argv, cwd=cwd, ipc_dir=folder, own=spec.cwd), folder
    except SandboxError as exc:
        raise BotStartError(f"bot {spec.name!r} was not started: {exc}") from None


def _plan(
    spec: BotSpec, cwd: str, folder: str | None, limits: Limits, sandbox: Sandbox | None
) -> proclimits.ChildPlan:
    """What the child does before it runs the bot (see ``arena.procs.limits.child_setup``)."""
    separate = identity.separate_users()
    scratch = None if sandbox is not None else tempfile.mkdtemp(prefix="arena-bot-")
    needed = [
        *sandboxing.needed_paths(),
        cwd,
        *([spec.cwd] if spec.cwd else []),
        *([folder] if folder else []),
    ]
    view = reach.plan(needed) if separate else reach.View()
    if view and reach.problem() is not None:
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)
        raise BotStartError(
            f"bot {spec.name!r} would run as a user of its own, which cannot "
            f"reach {', '.join(view.binds)} under {', '.join(view.covers)}: "
            f"{reach.problem()}; make those folders searchable by others"
        )
    return proclimits.ChildPlan(
        memory_mb=limits.memory_mb,
        cpu_s=limits.cpu_s,
        file_bytes=sandboxing.SCRATCH_BYTES if sandbox is None else 0,
        view=view,
        user=separate,
        scratch=scratch,
        own_ipc=folder if separate else None,
        syscall_filter=seccomp.bot_filter(),
    )


def connect_remote(spec: BotSpec, hub: Hub, label: str, *, wait_ms: int) -> BotProcess:
    """Wait for remote bot ``spec`` to connect and claim its connection for ``label``."""
    if hub.remote is None:
        raise BotStartError(
            f"bot {spec.name!r} is remote: run the arena with --listen "
            "tcp://HOST:PORT and start the bot with a token from "
            f"`arena bot token {spec.name}`"
        )
    deadline = time.monotonic() + wait_ms / 1000.0
    while True:
        peer = hub.claim_remote(label, spec.name)
        if peer is not None:
            return BotProcess(label=label, spec=spec, popen=None, log_path=None, peer=peer)
        if time.monotonic() > deadline:
            raise BotStartError(
                f"remote bot {spec.name!r} did not connect to "
                f"{hub.remote.endpoint} within {wait_ms} ms (give it a token "
                f"with `arena bot token {spec.name}`)"
            )
        hub.admit(50)


def await_hellos(hub: Hub, procs: Iterable[BotProcess], *, timeout_ms: int) -> None:
    """Wait until every process has said hello; raise BotStartError naming the first failure."""
    waiting = {proc.label: proc for proc in procs if proc.peer is None}
    deadline = time.monotonic() + timeout_ms / 1000.0
    while waiting:
        for label, proc in list(waiting.items()):
            peer = hub.by_label.get(label)
            if peer is not None:
                proc.peer = peer
                del waiting[label]
                continue
            reason = hub.rejection(label)
            if reason is not None:
                raise _start_error(proc, f"bot {proc.spec.name!r} was refused: {reason}")
            if not proc.alive():
                time.sleep(0.02)
                if hub.by_label.get(label) is None:
                    hub.admit(0)
                if hub.by_label.get(label) is None:
                    raise _start_error(
                        proc,
                        f"bot {proc.spec.name!r} stopped before saying "
                        f"hello ({proc.exit_summary()})",
                    )
        if not waiting:
            return
        if time.monotonic() > deadline:
            proc = next(iter(waiting.values()))
            raise _start_error(
                proc, f"bot {proc.spec.name!r} did not say hello within {timeout_ms} ms"
            )
        hub.admit(20)  # hellos are handled inside; peer messages are kept for the referee


def _start_error(proc: BotProcess, message: str) -> BotStartError:
    """A BotStartError that names the label of the process that failed (``.label``)."""
    return BotStartError(message, label=proc.label)


def stop(
    procs: Iterable[BotProcess],
    hub: Hub | None = None,
    *,
    grace_s: float = 0.5,
    watchdog: proclimits.Watchdog | None = None,
) -> None:
    """Say bye, give the processes a moment, then kill each with everything it started."""
    procs = list(procs)
    for proc in procs:
        if hub is not None and proc.peer is not None and proc.alive():
            hub.send(proc.peer, messages.bye())
    deadline = time.monotonic() + grace_s
    for proc in procs:
        if proc.popen is not None:
            remaining = deadline - time.monotonic()
            try:
                proc.popen.wait(timeout=max(0.0, remaining))
            except subprocess.TimeoutExpired:
                pass
            if watchdog is not None:
                watchdog.forget(proc.popen.pid)
            kill(proc)
        elif proc.peer is not None:
            proc.peer.closed = True
        if hub is not None:
            hub.revoke(proc.label)


def kill(proc: BotProcess) -> None:
    """Kill a bot process with every process it started, and release what it held: its
    cgroups, its scratch folder and (unsandboxed, as its own uid) every file it left in the
    world-writable places and its System V IPC objects (sandboxed, its IPC namespace goes)."""
    if proc.popen is not None:
        proclimits.kill_tree(proc.popen.pid, proc.cgroup, user=proc.user)
        if proc.memory_cgroup is not None and proc.memory_cgroup is not proc.cgroup:
            proc.memory_cgroup.kill()
        try:
            proc.popen.wait(timeout=2)
        except subprocess.TimeoutExpired:
            log.warning("process %s did not die after SIGKILL", proc.popen.pid)
    if proc.output is not None:
        proc.output.wait(DRAIN_S)
    if proc.user is not None and not proc.sandboxed and not identity.processes_of(proc.user):
        identity.remove_files_of(proc.user)  # only once nothing of it can race the removal
        identity.remove_ipc_of(proc.user)
        proc.user = None
    if proc.scratch:
        shutil.rmtree(proc.scratch, ignore_errors=True)
        proc.scratch = None


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
        self.started = 0
        bases = [
            proclimits.cgroup_base() if self.limits.max_procs > 0 else None,
            proclimits.memory_base() if self.limits.memory_mb > 0 else None,
        ]
        for base in dict.fromkeys(b for b in bases if b is not None):
            proclimits.sweep_stale_cgroups(base)

    def get(self, entries: Sequence[tuple[str, BotSpec]]) -> list[BotProcess]:
        """Live processes for ``(label, spec)`` entries, starting or replacing as needed.

        Every entry must have a label of its own: one process never sits at two seats (it
        would see both seats' hands). Raises BotStartError otherwise."""
        labels = [label for label, _ in entries]
        if len(set(labels)) != len(labels):
            twice = sorted({label for label in labels if labels.count(label) > 1})
            raise BotStartError(f"one process would play two seats: {', '.join(twice)}")
        fresh: list[BotProcess] = []
        for label, spec in entries:
            proc = self.procs.get(label)
            if proc is not None and (not proc.alive() or proc.spec != spec):
                self._stop([proc], grace_s=0)
                proc = None
            if proc is None and spec.remote:
                proc = connect_remote(spec, self.hub, label, wait_ms=self.remote_wait_ms)
                self.procs[label] = proc
            elif proc is None:
                proc = self._spawn(label, spec)
            if proc.peer is None:
                fresh.append(proc)
        if fresh:
            try:
                await_hellos(self.hub, fresh, timeout_ms=self.startup_ms)
            except BotStartError:
                for proc in fresh:
                    self.procs.pop(proc.label, None)
                self._stop(fresh, grace_s=0)
                raise
        return [self.procs[label] for label, _ in entries]

    def prestart(self, entries: Sequence[tuple[str, BotSpec]]) -> None:
        """Start the processes ``get(entries)`` will need, without waiting for their hellos.

        Their start-up then overlaps the game being played; ``get`` waits for what is left.
        A process that cannot start is left for ``get`` to report.
        """
        for label, spec in entries:
            if spec.remote or label in self.procs:
                continue
            try:
                self._spawn(label, spec)
            except BotStartError as exc:
                log.debug("prestart of %s failed (get will report it): %s", label, exc)

    def _spawn(self, label: str, spec: BotSpec) -> BotProcess:
        if self.janitor is None:
            self.janitor = Janitor.start()
        proc = spawn(
            spec,
            self.hub,
            label,
            log_dir=self.log_dir,
            limits=self.limits,
            sandbox=self.sandbox,
            watchdog=self.watchdog,
            janitor=self.janitor,
        )
        self.procs[label] = proc
        self.started += 1
        return proc

    def _stop(self, procs: Iterable[BotProcess], *, grace_s: float) -> None:
        procs = list(procs)
        stop(procs, self.hub, grace_s=grace_s, watchdog=self.watchdog)
        if self.janitor is not None:
            for proc in procs:
                self.janitor.forget(proc.label)

    def discard(self, label: str) -> None:
        proc = self.procs.pop(label, None)
        if proc is not None:
            self._stop([proc], grace_s=0)

    def close(self) -> None:
        self._stop(self.procs.values(), grace_s=0.5)
        self.procs.clear()
        self.watchdog.close()
        if self.janitor is not None:
            self.janitor.close()
            self.janitor = None

    def __enter__(self) -> BotPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
