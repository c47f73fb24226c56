"""Limits of bot processes (the ``Limits`` value a bot plays under) and how they hold: rlimits,
cgroups, a watchdog, and killing a bot with everything it started.

- **Memory**: where a memory cgroup can be made (cgroup v2 ``memory.max`` or the v1 memory
  hierarchy's ``memory.limit_in_bytes``), each bot gets one with ``--memory`` as the limit of
  its whole process tree, kernel memory included (tmpfs files and inodes, page tables); over it,
  the kernel kills a process of the bot. ``RLIMIT_AS`` (``--memory`` per process) holds
  everywhere as well.
- **CPU time** (``RLIMIT_CPU``), **file size** (``RLIMIT_FSIZE``, unsandboxed) and no core dumps
  are rlimits set in the child before it runs the bot; they hold for each process.
- **Number of processes**: ``RLIMIT_NPROC`` counts per user and does not apply to root, so the
  arena puts each bot in its own **pids cgroup** (cgroup v2 with the pids controller delegated,
  or the cgroup v1 pids hierarchy) with ``pids.max``: a fork over the limit fails with EAGAIN.
  Where no cgroup can be made, a **watchdog** thread counts the bot's descendants a few times a
  second and kills the bot when they are too many.
- **Killing**: a bot runs in its own session; killing it kills its process group, every
  process left in its cgroups, every process of its own uid (as root: ``arena.procs.identity``),
  and, without either, every process still descending from it. In the bubblewrap sandbox the bot
  also runs in its own pid namespace, which dies with it.

The child joins its cgroups and sets its rlimits while still root, then becomes its own uid
(``ChildPlan``, ``child_setup``): a bot cannot write to the root-owned cgroup files to leave.
Its last step before ``exec`` is the system-call filter of ``arena.procs.seccomp`` (no locks, no
file notifications, no page-cache probes...), which then holds for the bot and all it runs.
"""

from __future__ import annotations

import functools
import logging
import os
import resource
import signal
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from arena.procs import identity, ipc_namespaces, reach
from arena.procs.lifetime import die_with_parent, no_new_privileges
from arena.procs.procfs import each_process
from arena.procs.reach import View
from arena.procs.seccomp import Filter

log = logging.getLogger(__name__)

#: Open files a bot process may hold (soft and hard): it also bounds how many connections one
#: process can open to its hub socket before the hub cuts it off.
BOT_FILES = 1024
#: How often (s) the watchdog counts each bot's processes when there is no cgroup.
WATCH_INTERVAL_S = 0.2


@dataclass(frozen=True, kw_only=True)
class Limits:
    """Time, fault and process limits.

    ``move_ms`` is the per-decision deadline; ``time_bank_ms`` (0 = none) is extra time a seat
    may spend over the game once a move's own deadline is used up; after ``max_faults`` faults a
    seat forfeits. ``startup_ms`` bounds how long a bot process may take to say hello.

    Each bot process is limited too (0 = no limit; see docs/security.md): ``memory_mb`` of
    address space per process (RLIMIT_AS), ``cpu_s`` seconds of CPU time per process over its
    whole life (RLIMIT_CPU; a process serves game after game), ``max_procs`` processes and
    threads for the bot and all its descendants (a pids cgroup, else a watchdog), and
    ``log_bytes`` of its standard output and error kept in its log (the rest is discarded).
    """

    move_ms: int = 1000
    time_bank_ms: int = 0
    max_faults: int = 3
    startup_ms: int = 10_000
    memory_mb: int = 2048
    cpu_s: int = 0
    max_procs: int = 64
    log_bytes: int = 1 << 20


@dataclass(frozen=True)
class CgroupBase:
    """A folder in a pids cgroup hierarchy where the arena may create one group per bot."""

    path: Path
    version: int


def _mounts() -> list[tuple[str, str, str]]:
    """(mount point, file system type, super options) of every mount."""
    found = []
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return found
    for line in lines:
        left, _, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if len(fields) >= 5 and len(tail) >= 3:
            found.append((fields[4], tail[0], tail[2]))
    return found


def _own_cgroups() -> dict[str, str]:
    """Controller list (``""`` for v2) -> this process's cgroup path."""
    paths = {}
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            paths[controllers] = path
    except (OSError, ValueError):
        pass
    return paths


#: The file holding each controller's limit, by cgroup version, and a value to probe it with.
_LIMIT_FILES = {
    ("pids", 1): "pids.max",
    ("pids", 2): "pids.max",
    ("memory", 1): "memory.limit_in_bytes",
    ("memory", 2): "memory.max",
}
_PROBE_VALUES = {"pids": "8", "memory": str(64 << 20)}


def _candidates(controller: str) -> list[CgroupBase]:
    own = _own_cgroups()
    found = []
    for point, fstype, options in _mounts():
        if fstype == "cgroup2" and "" in own:
            base = Path(point) / own[""].lstrip("/")
            try:
                enabled = (base / "cgroup.subtree_control").read_text().split()
            except OSError:
                continue
            if controller not in enabled:
                try:  # possible where this cgroup holds no process of its own (e.g. the root)
                    (base / "cgroup.subtree_control").write_text(f"+{controller}")
                except OSError:
                    continue
            found.append(CgroupBase(base, 2))
        elif fstype == "cgroup" and controller in options.split(","):
            key = next((k for k in own if controller in k.split(",")), None)
            if key is not None:
                found.append(CgroupBase(Path(point) / own[key].lstrip("/"), 1))
    return found


def _find_base(controller: str) -> CgroupBase | None:
    """The first hierarchy of ``controller`` where this process can make a limited group."""
    for base in _candidates(controller):
        probe = base.path / f"arena-probe-{os.getpid()}"
        try:
            probe.mkdir()
        except OSError:
            continue
        try:
            (probe / _LIMIT_FILES[controller, base.version]).write_text(_PROBE_VALUES[controller])
            return base
        except OSError:
            continue
        finally:
            try:
                probe.rmdir()
            except OSError:
                pass
    return None


@functools.cache
def cgroup_base() -> CgroupBase | None:
    """Where per-bot pids cgroups can be made here, or None (tested once per process)."""
    base = _find_base("pids")
    if base is None:
        log.info("no writable pids cgroup: bot process counts are watched instead")
    return base


@functools.cache
def memory_base() -> CgroupBase | None:
    """Where per-bot memory cgroups can be made here, or None (tested once per process)."""
    base = _find_base("memory")
    if base is None:
        log.info("no writable memory cgroup: --memory holds per process only (RLIMIT_AS)")
    return base


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_stale_cgroups(base: CgroupBase) -> None:
    """Remove empty bot groups left by arenas that were killed (their pid is gone)."""
    try:
        entries = list(base.path.glob("arena-*-*"))
    except OSError:
        return
    for entry in entries:
        parts = entry.name.split("-")
        if len(parts) >= 3 and parts[1].isdigit() and not _pid_alive(int(parts[1])):
            kill_cgroup(entry)


_counter = iter(range(1, 1 << 62))
_counter_lock = threading.Lock()


class BotCgroup:
    """The cgroup of one bot process in one hierarchy: its limits and kill-everything-inside.

    ``limits`` maps controller names (``pids``, ``memory``) to their limit values.
    """

    def __init__(self, base: CgroupBase, limits: Mapping[str, int]) -> None:
        with _counter_lock:
            number = next(_counter)
        self.path = base.path / f"arena-{os.getpid()}-{number}"
        self.path.mkdir()
        try:
            for controller, value in limits.items():
                (self.path / _LIMIT_FILES[controller, base.version]).write_text(str(value))
        except OSError:
            self.kill()
            raise
        self.procs_file = os.fsencode(self.path / "cgroup.procs")

    def count(self) -> int:
        try:
            return int((self.path / "pids.current").read_text())
        except (OSError, ValueError):
            return 0

    def kill(self) -> None:
        """Kill every process in the group and remove it."""
        kill_cgroup(self.path)


def kill_cgroup(path: Path) -> None:
    """Kill every process in the bot group at ``path`` and remove the group."""
    kill_file = path / "cgroup.kill"
    if kill_file.exists():
        try:
            kill_file.write_text("1")
        except OSError:
            pass
    for _ in range(200):
        try:
            pids = [int(p) for p in (path / "cgroup.procs").read_text().split()]
        except (OSError, ValueError):
            pids = []
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(0.005)
    for _ in range(100):
        try:
            path.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.01)
    log.warning("could not remove cgroup %s", path)


def bot_cgroups(
    *,
    max_procs: int,
    memory_mb: int,
) -> tuple[BotCgroup | None, BotCgroup | None]:
    """The pids group and the memory group of a new bot, where they can be made (None where
    not, or where the limit is 0). Under cgroup v2 both are one group."""
    pids = cgroup_base() if max_procs > 0 else None
    memory = memory_base() if memory_mb > 0 else None
    wanted = {"pids": max_procs, "memory": memory_mb << 20}
    if pids is not None and pids == memory:
        group = BotCgroup(pids, wanted)
        return group, group
    pids_group = BotCgroup(pids, {"pids": max_procs}) if pids is not None else None
    try:
        memory_group = (
            BotCgroup(memory, {"memory": wanted["memory"]}) if memory is not None else None
        )
    except OSError:
        if pids_group is not None:
            pids_group.kill()
        raise
    return pids_group, memory_group


@dataclass(frozen=True, kw_only=True)
class ChildPlan:
    """What the child does between fork and exec, in this order (see ``child_setup``)."""

    memory_mb: int = 0
    cpu_s: int = 0
    file_bytes: int = 0
    cgroups: tuple[BotCgroup, ...] = ()
    view: View = View()
    user: bool = False
    scratch: str | None = None
    own_ipc: str | None = None  # the bot's own hub socket folder, given to its uid
    ipc_namespace: bool = False  # an IPC namespace of its own (``arena.procs.ipc_namespaces``)
    syscall_filter: Filter | None = None  # installed last (``arena.procs.seccomp``)


def child_setup(plan: ChildPlan) -> Callable[[], None]:
    """The function run in the child between fork and exec: join the cgroups, set rlimits
    (memory, CPU time, file size, no core), make the needed folders reachable, enter an IPC
    namespace of its own (``ipc_namespace``), then (``user``) give the scratch folder to the
    bot's own uid and become it; never gain privileges again;
    install the system-call filter (an error there stops the start: the bot never runs
    without the filter it was planned with)."""
    procs_files = list(dict.fromkeys(group.procs_file for group in plan.cgroups))
    memory = plan.memory_mb * 1024 * 1024
    parent = os.getpid()
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    files = BOT_FILES if hard == resource.RLIM_INFINITY else min(BOT_FILES, hard)

    def setup() -> None:
        die_with_parent(parent=parent)
        for procs_file in procs_files:
            fd = os.open(procs_file, os.O_WRONLY)
            try:
                os.write(fd, str(os.getpid()).encode())
            finally:
                os.close(fd)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))
        if memory > 0:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        if plan.cpu_s > 0:
            resource.setrlimit(resource.RLIMIT_CPU, (plan.cpu_s, plan.cpu_s + 2))
        if plan.file_bytes > 0:
            resource.setrlimit(resource.RLIMIT_FSIZE, (plan.file_bytes, plan.file_bytes))
        reach.enter(plan.view)
        if plan.ipc_namespace:
            ipc_namespaces.enter()
        if plan.user:
            uid = identity.uid_of(os.getpid())
            identity.kill_as_user(uid)  # what a dead bot whose first pid was ours left behind
            if plan.scratch:
                os.chown(plan.scratch, uid, uid)
            if plan.own_ipc:
                identity.grant(plan.own_ipc, uid)
            identity.become(uid)
            die_with_parent(parent=parent)  # a change of uid clears the parent-death signal
        no_new_privileges()
        if plan.syscall_filter is not None:
            plan.syscall_filter.install()

    return setup


def _parents() -> dict[int, int]:
    """pid -> parent pid of every process (one pass over /proc)."""
    parents = {}
    for pid, stat in each_process("stat"):
        # the command name is in parentheses and may hold spaces: split after the last ')'
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 1:
            parents[pid] = int(fields[1])
    return parents


def descendants(pid: int, parents: dict[int, int] | None = None) -> list[int]:
    """Pids of every process descending from ``pid`` (children of children, ...)."""
    parents = _parents() if parents is None else parents
    children: dict[int, list[int]] = {}
    for child, parent in parents.items():
        children.setdefault(parent, []).append(child)
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), ()):
            found.append(child)
            todo.append(child)
    return found


def kill_tree(pid: int, cgroup: BotCgroup | None, *, user: int | None = None) -> None:
    """Kill process ``pid``, its process group, its descendants, its cgroup and (``user``)
    every process of its own uid."""
    try:
        stray = [] if cgroup is not None or user is not None else descendants(pid)
    except OSError:
        stray = []
    for target in (pid, *stray):
        try:
            os.kill(target, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    if cgroup is not None:
        cgroup.kill()
    if user is not None:
        identity.kill_user(user)


class Watchdog:
    """Counts the descendants of watched processes; kills those over their limit.

    Used only where no pids cgroup can be made. One thread serves every watched process.
    """

    def __init__(self, interval_s: float = WATCH_INTERVAL_S) -> None:
        self.interval_s = interval_s
        self._watched: dict[int, tuple[int, Callable[[str], None], int | None]] = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    def watch(
        self, pid: int, max_procs: int, on_kill: Callable[[str], None], *, user: int | None = None
    ) -> None:
        """Watch ``pid`` (running as bot uid ``user``, if any)."""
        with self._lock:
            self._watched[pid] = (max_procs, on_kill, user)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="arena-watchdog", daemon=True
                )
                self._thread.start()

    def forget(self, pid: int) -> None:
        with self._lock:
            self._watched.pop(pid, None)

    def close(self) -> None:
        self._stop.set()

    def check(self) -> None:
        """One round: count and kill (also called by tests)."""
        with self._lock:
            watched = dict(self._watched)
        if not watched:
            return
        parents = _parents()
        for pid, (limit, on_kill, user) in watched.items():
            tree = descendants(pid, parents)
            if len(tree) + 1 > limit:
                reason = f"over its limit of {limit} processes"
                log.warning("bot process %d killed: %s", pid, reason)
                on_kill(reason)
                kill_tree(pid, None, user=user)
                self.forget(pid)

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            try:
                self.check()
            except OSError as exc:  # /proc raced with exiting processes: try next round
                log.debug("watchdog round failed: %s", exc)
