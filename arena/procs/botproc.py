"""One bot process's life: its spec, its launch, the hello handshake, its stop and its kill.

A bot process is started once and serves game after game until its pool
(``arena.procs.pool.BotPool``) ends it (a tournament ends every local process at each phase's
end); a process that died is replaced the next time it is needed. Processes start from
``prepare`` (a ``Launch``: the child prepares, then runs the bot), several at once; several are
stopped at once (``stop``: one wait for all their exits, ``wait_exits``), killed, seen gone and
cleaned up (``kill_all``). Each
process runs in its own session, under the process limits of ``arena.procs.limits`` (memory,
CPU time, number of processes), inside the bubblewrap sandbox of ``arena.procs.sandbox`` when
there is one, as a uid of its own when the arena runs as root (``arena.procs.identity``), with
a clean environment
(``ARENA_ENDPOINT``, ``ARENA_TOKEN``, ``TMPDIR``, the locale, ``PATH``/``HOME`` and
``PYTHON*``/``PYENV*`` settings, and any ``ARENA_BOT_*`` variable: nothing else of the arena's
environment), and with its output drained into a bounded log (``arena.procs.logs``). Killing a
bot kills everything it started. Every spawned process gets the system-call filter of
``arena.procs.seccomp`` where it works, sandboxed or not. A remote bot (``BotSpec.remote``) is
not spawned: the pool waits for it to connect.

A bundled bot (``BotSpec.warm``) may be started ahead of its turn (``BotPool.prewarm``, a
**warm start**, ``arena.procs.warm``): its process prepares what the arena provides (the
interpreter, ZeroMQ, the SDK) and waits; the pool releases it when the process may run, and only
then does the bot's code start. A warm process has a hub label of its own (``hub_label``) while
another process of its pool key still runs.
"""

from __future__ import annotations

import logging
import math
import os
import secrets
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from arena.errors import BotRefused, BotStartError, SandboxError
from arena.procs import identity, ipc_namespaces, memview, reach, seccomp
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
    (``tournaments.catalogue.lookup`` says what a bot's name means).

    A ``remote`` bot has no command: it is started by hand elsewhere and connects over TCP.
    A ``warm`` bot is a Python module run by this interpreter (``sys.executable -m MODULE``, as
    the bundled bots are) whose process the pool may start ahead of its turn (``warm_argv``).
    A ``sandboxed_only`` bot (code a participant uploaded) never starts without a sandbox.
    """

    name: str
    argv: tuple[str, ...]
    cwd: str | None = None
    remote: bool = False
    warm: bool = False
    sandboxed_only: bool = False


def warm_argv(spec: BotSpec) -> list[str] | None:
    """The command of a warm start of ``spec`` (``arena.procs.warm``), or None if it has none:
    only a ``warm`` spec run as ``sys.executable -m MODULE ARGS``."""
    argv = spec.argv
    if not spec.warm or len(argv) < 3 or argv[0] != sys.executable or argv[1] != "-m":
        return None
    return [argv[0], "-m", "arena.procs.warm", *argv[2:]]


#: The names by which a bot's command runs the arena's own Python (``sys.executable``, with
#: the SDK importable), whatever the server's ``PATH`` holds, sandboxed or not.
PYTHON_NAMES = frozenset({"python", "python3"})


def with_interpreter(argv: tuple[str, ...] | list[str]) -> list[str]:
    """``argv`` with a first word of ``PYTHON_NAMES`` replaced by the arena's own interpreter."""
    words = list(argv)
    if words and words[0] in PYTHON_NAMES:
        words[0] = sys.executable
    return words


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
#: Seconds ``kill_all`` waits, in all, for the output of processes seen gone to reach their
#: logs (their pipes are closed: the wait ends as soon as the last bytes are written; a worker
#: process that exits right after must not cut a log short).
DRAIN_ALL_S = 10.0
#: Seconds ``kill_all`` waits, in all, for the processes it killed to be reaped.
KILLED_S = 2.0


@dataclass
class BotProcess:
    """One running bot process (or connected remote bot) and its peer on the hub.

    ``token`` names it in the arena's process records (random: unique across runs and
    machines); ``started_wall`` is when it started, on the wall clock (seconds since the epoch):
    for a warm start, when it was released. ``label`` is its pool key; ``hub_label`` names its
    door and peer on the hub (the same, but for a warm start made while another process of the
    key ran).
    """

    label: str
    spec: BotSpec
    popen: subprocess.Popen | None
    log_path: Path | None
    hub_label: str = ""
    peer: Peer | None = None
    started_at: float = field(default_factory=time.monotonic)
    started_wall: float = field(default_factory=time.time)
    token: str = field(default_factory=lambda: secrets.token_hex(8))
    output: CappedLog | None = None
    cgroup: proclimits.BotCgroup | None = None
    memory_cgroup: proclimits.BotCgroup | None = None
    scratch: str | None = None
    user: int | None = None
    sandboxed: bool = False
    view: str | None = None  # the memory-backed view it was started from, held until it is gone
    killed_because: str | None = None

    def __post_init__(self) -> None:
        self.hub_label = self.hub_label or self.label

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


@dataclass
class Launch:
    """A bot process being started: what ``prepare`` made in the arena's thread (a token and
    door on the hub, the log, the command, the child's plan and cgroups), then the ``Popen``
    (which may run in a thread of its own: the child's preparation before ``exec`` takes a
    while), then the ``BotProcess``. As root the process runs as a uid of its own
    (``arena.procs.identity``), sandboxed or not."""

    spec: BotSpec
    hub: Hub
    label: str
    limits: Limits
    sandbox: Sandbox | None
    output: CappedLog
    argv: list[str]
    env: dict[str, str]
    cwd: str
    plan: proclimits.ChildPlan
    cgroups: tuple[proclimits.BotCgroup | None, proclimits.BotCgroup | None]
    key: str = ""
    warm: bool = False
    view: str | None = None

    def start(self) -> subprocess.Popen:
        """Start the child (raises BotStartError, having released what was prepared)."""
        try:
            return subprocess.Popen(
                self.argv,
                env=self.env,
                cwd=self.cwd,
                stdin=subprocess.PIPE if self.warm else subprocess.DEVNULL,
                stdout=self.output.write_fd,
                stderr=self.output.write_fd,
                start_new_session=True,
                preexec_fn=proclimits.child_setup(self.plan),
            )
        except (OSError, subprocess.SubprocessError) as exc:
            self.abandon()
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise BotStartError(
                f"bot {self.spec.name!r} could not be started: {why}: "
                f"{self.spec.argv[0] if self.spec.argv else '(no command)'}"
            ) from None

    def abandon(self) -> None:
        """Release what was prepared for a child that did not start."""
        _release_view(self.view)
        self.output.abandon()
        for group in self.plan.cgroups:
            group.kill()
        if self.plan.scratch:
            shutil.rmtree(self.plan.scratch, ignore_errors=True)
        self.hub.revoke(self.label)

    def finish(
        self,
        popen: subprocess.Popen,
        watchdog: proclimits.Watchdog | None,
        janitor: Janitor | None,
    ) -> BotProcess:
        """The started child as a BotProcess (its log drained, its uid known, watched). A warm
        start's log starts when it is released (``BotPool.release``)."""
        if not self.warm:
            self.output.start()
        user = identity.uid_of(popen.pid) if self.plan.user else None
        if janitor is not None:
            janitor.register(self.label, pgid=popen.pid, uid=user)
        proc = BotProcess(
            label=self.key or self.label,
            hub_label=self.label,
            spec=self.spec,
            popen=popen,
            log_path=self.output.path,
            output=self.output,
            cgroup=self.cgroups[0],
            memory_cgroup=self.cgroups[1],
            scratch=self.plan.scratch,
            sandboxed=self.sandbox is not None,
            view=self.view,
            user=user,
        )
        if self.limits.max_procs > 0 and self.cgroups[0] is None and watchdog is not None:
            watchdog.watch(
                popen.pid,
                self.limits.max_procs,
                lambda reason: setattr(proc, "killed_because", reason),
                user=user,
            )
        return proc


def prepare(
    spec: BotSpec,
    hub: Hub,
    label: str,
    *,
    log_dir: Path,
    limits: Limits = Limits(),
    sandbox: Sandbox | None = None,
    key: str | None = None,
    warm: bool = False,
) -> Launch:
    """Everything that comes before a bot's child starts: a fresh token and the process's own
    door (under hub ``label``), its log (named by its pool ``key``, by default ``label``), its
    command (``warm``: a warm start's, ``warm_argv``) and the child's plan with its cgroups. The
    pool then tells its janitor what the child will hold (to kill it if the arena dies without
    stopping it), starts it and finishes it (``Launch``). Raises BotStartError (having
    released what it made)."""
    if spec.remote:
        raise BotStartError(f"bot {spec.name!r} is remote: it is not started by the arena")
    if spec.sandboxed_only and sandbox is None:
        raise BotStartError(
            f"bot {spec.name!r} was uploaded by a participant: it runs only in the sandbox"
        )
    token = hub.issue_token(label)
    endpoint = hub.endpoint_of(label)  # this process's own door
    cwd = spec.cwd or os.getcwd()
    key = key or label
    output = CappedLog(log_path(log_dir, spec.name, key), cap=limits.log_bytes)
    view = None
    try:
        argv, folder, view = _command(spec, endpoint, cwd, sandbox, warm=warm)
        plan = _plan(spec, cwd, folder, limits, sandbox)
    except (BotStartError, OSError) as exc:
        _release_view(view)
        output.abandon()
        hub.revoke(label)
        if isinstance(exc, BotStartError):
            raise
        raise BotStartError(f"bot {spec.name!r} could not be prepared: {exc}") from None
    cgroups: tuple[proclimits.BotCgroup | None, proclimits.BotCgroup | None] = (None, None)
    try:
        cgroups = proclimits.bot_cgroups(max_procs=limits.max_procs, memory_mb=limits.memory_mb)
    except OSError as exc:
        _release_view(view)
        output.abandon()
        if plan.scratch:
            shutil.rmtree(plan.scratch, ignore_errors=True)
        hub.revoke(label)
        raise BotStartError(f"bot {spec.name!r} could not be started: {exc}") from None
    plan = replace(plan, cgroups=tuple(g for g in cgroups if g is not None))
    env = bot_environment(endpoint, token, plan.scratch or "/tmp")
    return Launch(
        spec=spec,
        hub=hub,
        label=label,
        limits=limits,
        sandbox=sandbox,
        output=output,
        argv=argv,
        env=env if sandbox is None else sandbox.environment(env),
        cwd=cwd,
        plan=plan,
        cgroups=cgroups,
        key=key,
        warm=warm,
        view=view,
    )


def _release_view(view: str | None) -> None:
    """Let go of a view held for a bot that is gone (or never started)."""
    if view is not None:
        memview.store().release(view)


def _command(
    spec: BotSpec, endpoint: str, cwd: str, sandbox: Sandbox | None, *, warm: bool = False
) -> tuple[list[str], str | None, str | None]:
    """The command line to run (``warm``: its warm start's; wrapped in the sandbox, if any),
    the folder of the bot's own hub socket (the child gives it to the bot's uid) and the view
    the sandbox shows it, held (raises BotStartError)."""
    folder = ipc_folder(endpoint)
    if sandbox is not None and folder is None:
        raise BotStartError(f"sandboxed bots reach the arena over ipc://, not {endpoint}")
    argv = (warm_argv(spec) if warm else None) or with_interpreter(spec.argv)
    if sandbox is None:
        return argv, folder, None
    try:
        wrapped = sandbox.wrap(argv, cwd=cwd, ipc_dir=folder, own=spec.cwd)
    except SandboxError as exc:
        raise BotStartError(f"bot {spec.name!r} was not started: {exc}") from None
    return wrapped.argv, folder, wrapped.view


def _plan(
    spec: BotSpec, cwd: str, folder: str | None, limits: Limits, sandbox: Sandbox | None
) -> proclimits.ChildPlan:
    """What the child does before it runs the bot (see ``arena.procs.limits.child_setup``)."""
    separate = identity.separate_users()
    named = sandboxing.named_paths(spec.argv, cwd)
    if separate:
        identity.user_mask()  # read here: the child takes its uid without reading a file
        unreadable = reach.unreadable(named)
        if unreadable is not None:
            raise BotStartError(
                f"bot {spec.name!r} runs as a user of its own (the arena runs as root), which "
                f"cannot read {unreadable}; make the bot's files readable by others and its "
                "folders searchable (chmod -R o+rX FOLDER), or run the arena as an ordinary user"
            )
    scratch = None if sandbox is not None else tempfile.mkdtemp(prefix="arena-bot-")
    if sandbox is not None:  # bubblewrap binds the bot's view and its socket's folder
        needed = [memview.store().trees, *([folder] if folder else [])]
    else:
        needed = [
            *sandboxing.needed_paths(),
            cwd,
            *([spec.cwd] if spec.cwd else []),
            *([folder] if folder else []),
            *(path if os.path.isdir(path) else os.path.dirname(path) for path in named),
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
        ipc_namespace=separate and sandbox is None and ipc_namespaces.available(),
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
    """Wait until every process has said hello; raise BotStartError naming the first failure
    (with the hub's answer to its hello when the hub refused one)."""
    waiting = {proc.hub_label: proc for proc in procs if proc.peer is None}
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
                raise _start_error(
                    proc, f"bot {proc.spec.name!r} was refused: {reason}", refused=True
                )
            if not proc.alive():
                time.sleep(0.02)
                if hub.by_label.get(label) is None:
                    hub.admit(0)
                if hub.by_label.get(label) is None:
                    raise _start_error(proc, _no_hello(hub, proc, None))
        if not waiting:
            return
        if time.monotonic() > deadline:
            proc = next(iter(waiting.values()))
            raise _start_error(proc, _no_hello(hub, proc, timeout_ms))
        hub.admit(20)  # hellos are handled inside; peer messages are kept for the referee


def _no_hello(hub: Hub, proc: BotProcess, timeout_ms: int | None) -> str:
    """Why a process was not welcomed, in words: it stopped (``timeout_ms`` None) or was
    silent too long, and first of all the hub's answer to its hello if the hub refused one
    (the real cause)."""
    name = proc.spec.name
    refused = hub.refusal(proc.hub_label)
    if timeout_ms is None:
        status = proc.exit_summary()
        if refused is None and proc.sandboxed:  # maybe it missed a file it needs
            return (
                f"bot {name!r} stopped before saying hello ({status}); in the sandbox it sees "
                f"only its runtime, its folder and the arena's packages: name the folders of "
                f"what else it loads in ${sandboxing.SHOW_ENV} (docs/security.md)"
            )
        if refused is None:
            return f"bot {name!r} stopped before saying hello ({status})"
        return f"bot {name!r} said a hello the arena refused ({refused}), then stopped ({status})"
    if refused is None:
        return f"bot {name!r} did not say hello within {timeout_ms} ms"
    return (
        f"bot {name!r} said a hello the arena refused ({refused}) and no valid one within "
        f"{timeout_ms} ms"
    )


def _start_error(proc: BotProcess, message: str, *, refused: bool = False) -> BotStartError:
    """A BotStartError (``refused``: a BotRefused) that names the label of the process that
    failed (``.label``)."""
    return (BotRefused if refused else BotStartError)(message, label=proc.label)


def stop(
    procs: Iterable[BotProcess],
    hub: Hub | None = None,
    *,
    grace_s: float = 0.5,
    watchdog: proclimits.Watchdog | None = None,
) -> list[BotProcess]:
    """Say bye, give the processes a moment, then kill them with everything they started.
    Returns those of which something may still run (``kill_all``)."""
    procs = list(procs)
    for proc in procs:
        if hub is not None and proc.peer is not None and proc.alive():
            hub.send(proc.peer, messages.bye())
    wait_exits([proc.popen for proc in procs if proc.popen is not None], grace_s)
    for proc in procs:
        if proc.popen is not None:
            if watchdog is not None:
                watchdog.forget(proc.popen.pid)
        elif proc.peer is not None:
            proc.peer.closed = True
    left = kill_all(procs)
    if hub is not None:
        for proc in procs:
            hub.revoke(proc.hub_label)
    return left


def wait_exits(popens: Sequence[subprocess.Popen], timeout_s: float) -> None:
    """Wait up to ``timeout_s`` for the processes to exit (reaped as they do), all at once:
    woken by each exit (a pidfd per process), where ``Popen.wait`` would poll each in turn
    with sleeps of up to 50 ms."""
    deadline = time.monotonic() + timeout_s
    waiting: dict[int, subprocess.Popen] = {}
    poller = select.poll()
    try:
        for popen in popens:
            if popen.poll() is not None:
                continue
            try:  # not reaped yet: the pid is still this child's
                fd = os.pidfd_open(popen.pid)
            except (AttributeError, OSError):  # no pidfds here: one at a time
                try:
                    popen.wait(timeout=max(0.0, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    pass
                continue
            waiting[fd] = popen
            poller.register(fd, select.POLLIN)
        while waiting:
            left_ms = (deadline - time.monotonic()) * 1000.0
            if left_ms <= 0:
                return
            for fd, _ in poller.poll(math.ceil(left_ms)):
                poller.unregister(fd)
                os.close(fd)
                waiting.pop(fd).poll()
    finally:
        for fd in waiting:
            os.close(fd)


def kill(proc: BotProcess) -> bool:
    """``kill_all`` for one process: whether nothing of it is seen running any more."""
    return not kill_all([proc])


def kill_all(procs: Iterable[BotProcess]) -> list[BotProcess]:
    """Kill bot processes with every process they started, and release what they held: their
    cgroups, their scratch folders and (unsandboxed, as uids of their own) every file they
    left in the world-writable places and their System V IPC objects (sandboxed, their IPC
    namespaces go). Their uids are swept together: one pass over ``/proc`` per round.

    Returns those of which something may still run: a process not reaped, a cgroup not
    removed (it can be only once empty) or, as a uid of its own, a process of that uid left.
    Without cgroups or a uid of its own (an ordinary user's unsandboxed bot), a process it
    detached from its group cannot be seen: the answer covers what can."""
    procs = [proc for proc in procs if proc.popen is not None]
    for proc in procs:
        proclimits.kill_tree(proc.popen.pid, proc.cgroup, user=None)  # the uids: below
        if proc.memory_cgroup is not None and proc.memory_cgroup is not proc.cgroup:
            proc.memory_cgroup.kill()
    survivors = identity.kill_users({proc.user for proc in procs if proc.user is not None})
    left = []
    wait_exits([proc.popen for proc in procs], KILLED_S)
    for proc in procs:
        if proc.popen.poll() is None:
            log.warning("process %s did not die after SIGKILL", proc.popen.pid)
            left.append(proc)
        if proc.user in survivors or any(
            group is not None and group.path.exists() for group in (proc.cgroup, proc.memory_cgroup)
        ):
            left.append(proc)
    drained_by = time.monotonic() + DRAIN_ALL_S
    for proc in procs:
        if proc.output is not None:  # something left may hold the pipe: do not wait long
            wait = DRAIN_S if proc in left else max(DRAIN_S, drained_by - time.monotonic())
            proc.output.wait(wait)
    for proc in procs:
        if proc not in left:  # nothing of it runs: its view may go
            _release_view(proc.view)
            proc.view = None
    done = [p for p in procs if p.user is not None and not p.sandboxed and p.user not in survivors]
    if done:  # only once nothing of them can race the removal
        identity.remove_files_of_users({proc.user for proc in done})
        identity.remove_ipc_of_users({proc.user for proc in done})
        for proc in done:
            proc.user = None
    for proc in procs:
        if proc.scratch:
            shutil.rmtree(proc.scratch, ignore_errors=True)
            proc.scratch = None
    return list(dict.fromkeys(left))
