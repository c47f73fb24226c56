"""Bot users: when the arena runs as root, every bot process runs as a uid of its own.

The uid (and gid) of a bot is ``USER_BASE`` plus the pid of the bot's first process mixed (by
exclusive or) with a secret of the machine (``MASK_FILE``, drawn at the first bot since boot,
readable by root alone): unique among live processes machine-wide without any table, and
telling a bot nothing of its pid, which counts the machine's process starts (a bot could
advance the count for a later one to read). With pids below 2**22 the range is
2100000000-2104194304: above the ranges distributions give users and services, systemd's
container ranges and SSSD's default id mapping (up to 2000200000), below systemd's "foreign"
range (from 2147352576) and 2**31. The child takes it in its pre-exec function, as
the last step before ``exec`` (after joining its cgroups and setting its rlimits, which need
root). A bot then cannot signal the arena or another bot, read their ``/proc/PID/environ``,
write to their cgroup files, or read files that are not readable by others.

A pid is reused once its process is reaped, so a bot's detached leftovers could share the uid
of a later bot whose first process got that pid: the child kills every process of its uid
before it takes it (``kill_as_user``). Everything a bot leaves is found by its uid:
``kill_user`` kills every process of the uid (however it detached), ``remove_files_of`` deletes
what the uid owns in the world-writable places. Its System V IPC objects and POSIX queues are
in an IPC namespace of its own (``arena.procs.ipc_namespaces``), gone with it; where none can
be made, ``remove_ipc_of`` removes its System V objects by creator as well as by owner. An
ordinary (non-root) arena cannot switch uid: its bots run as the arena's user.
"""

from __future__ import annotations

import ctypes
import functools
import logging
import os
import shutil
import signal
import stat
import time
from collections.abc import Collection, Iterable
from pathlib import Path

from arena.procs.procfs import each_process

log = logging.getLogger(__name__)
_libc = functools.cache(lambda: ctypes.CDLL(None, use_errno=True))

#: Bot uids and gids are USER_BASE + the pid of the bot's first process ^ the mask.
USER_BASE = 2_100_000_000
#: Pids are below this (Linux's largest ``pid_max``): the mask's range.
PID_LIMIT = 1 << 22
#: The machine's mask, shared by every arena process as root (``/run``: root's, gone at boot).
MASK_FILE = "/run/arena-uid-mask"
#: The places any user may write to on a usual Linux system (cleaned after each bot).
WORLD_WRITABLE = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/dev/mqueue")


def separate_users() -> bool:
    """True if bots run as uids of their own (the arena runs as root)."""
    return os.geteuid() == 0


def uid_of(pid: int) -> int:
    """The uid (and gid) of the bot whose first process is ``pid`` (call ``user_mask`` before
    a fork whose child calls this: the mask is read once per process)."""
    return USER_BASE + (pid ^ user_mask())


@functools.cache
def user_mask() -> int:
    """The machine's mask of bot uids (``MASK_FILE``), drawn by the first arena process that
    needs it; 0 where it cannot be kept (then a uid is its pid plus ``USER_BASE``)."""
    drawn = int.from_bytes(os.urandom(4), "little") % PID_LIMIT
    writing = f"{MASK_FILE}.{os.getpid()}"
    try:  # written whole, then linked in: a reader never sees half of it
        fd = os.open(writing, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(f"{drawn}\n")
        try:
            os.link(writing, MASK_FILE)
        except FileExistsError:
            pass
        finally:
            os.unlink(writing)
    except OSError as exc:
        log.debug("bot uids are their pids plus %d: %s", USER_BASE, exc)
        return 0
    try:
        fd = os.open(MASK_FILE, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd) as handle:
            info = os.fstat(handle.fileno())
            text = handle.read()
        if info.st_uid != 0 or info.st_mode & 0o077:
            raise OSError(f"{MASK_FILE} is not root's alone")
        return int(text) % PID_LIMIT
    except (OSError, ValueError) as exc:
        log.warning("bot uids are their pids plus %d: %s", USER_BASE, exc)
        return 0


def become(uid: int) -> None:
    """Drop every group and become ``uid``/``uid`` (in the child, just before exec)."""
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)


def kill_as_user(uid: int, *, rounds: int = 2) -> None:
    """(in the child, as root, before it takes ``uid``) SIGKILL every process of ``uid``,
    without reading ``/proc``: with ``uid`` as its real and effective uid for a moment (root
    stays its saved uid), ``kill(-1)`` reaches exactly the processes whose real or saved uid
    is ``uid`` (never this one, the arena's or another bot's); a process forking meanwhile has
    SIGKILL pending, so its fork fails. Then root again. A scan of ``/proc`` (``kill_user``)
    costs milliseconds at every bot's start; this, two system calls."""
    os.setresuid(uid, uid, 0)
    try:
        for _ in range(rounds):
            try:
                os.kill(-1, signal.SIGKILL)
            except OSError:
                pass
    finally:
        os.setresuid(0, 0, 0)


def grant(folder: str, uid: int) -> None:
    """Give the bot user ``uid`` its own hub socket folder (mode 0700): no other bot user can
    reach the socket in it. The socket file stays the arena's (mode 0666), so that the hub can
    close it (mode 000) once the bot has said hello."""
    os.chown(folder, uid, uid, follow_symlinks=False)
    os.chmod(folder, 0o700)


def protect(paths: Iterable[str | os.PathLike[str]]) -> None:
    """Take every permission of group and others off ``paths`` that exist (the database
    files, the logs folder, key files): bot users can neither read nor write them."""
    for path in paths:
        try:
            mode = os.stat(path, follow_symlinks=False).st_mode
            if not stat.S_ISLNK(mode) and stat.S_IMODE(mode) & 0o077:
                os.chmod(path, stat.S_IMODE(mode) & ~0o077)
        except FileNotFoundError:
            continue


def writable_by_others(folder: str | os.PathLike[str]) -> bool:
    """True if users other than the owner may create files in ``folder``."""
    try:
        return bool(os.stat(folder).st_mode & (stat.S_IWGRP | stat.S_IWOTH))
    except OSError:
        return False


def protect_arena_files(db_path: Path, log_dir: Path) -> None:
    """Make the database files and the logs unreadable to other users (bot users included),
    and warn if bots could plant files beside the database (a folder writable by others)."""
    db = db_path.expanduser().resolve()
    protect([*(f"{db}{suffix}" for suffix in ("", "-wal", "-shm", "-journal")), log_dir])
    if writable_by_others(db.parent):
        log.warning(
            "the database's folder %s is writable by other users: keep the database "
            "in a folder of its own (see docs/security.md)",
            db.parent,
        )


def _field(status: bytes, name: bytes) -> bytes:
    """The value of one line (``Uid``, ``State``) of a ``/proc/PID/status``."""
    start = status.find(b"\n" + name + b":")
    if start < 0:
        return b""
    start += len(name) + 2
    end = status.find(b"\n", start)
    return status[start : end if end >= 0 else len(status)].strip()


def processes_of_users(uids: Collection[int]) -> dict[int, list[int]]:
    """Pids of the live (not zombie) processes whose real uid is one of ``uids``, by uid (one
    pass over ``/proc`` for them all)."""
    found: dict[int, list[int]] = {}
    if not uids:
        return found
    for pid, status in each_process("status"):
        real = _field(status, b"Uid").split(b"\t", 1)[0]
        if real and int(real) in uids and not _field(status, b"State").startswith(b"Z"):
            found.setdefault(int(real), []).append(pid)
    return found


def processes_of(uid: int) -> list[int]:
    """Pids of the live (not zombie) processes whose real uid is ``uid``."""
    return processes_of_users({uid}).get(uid, [])


def kill_user(uid: int, *, rounds: int = 50) -> bool:
    """SIGKILL every process of ``uid`` until none is left; True if none is."""
    return not kill_users({uid}, rounds=rounds)


def kill_users(uids: Collection[int], *, rounds: int = 50) -> set[int]:
    """SIGKILL every process of each of ``uids`` until none is left; the uids that still have
    one (none, normally)."""
    left = set(uids)
    for _ in range(rounds):
        pids = processes_of_users(left)
        left = set(pids)
        if not left:
            return left
        for pid in (pid for group in pids.values() for pid in group):
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(0.01)
    log.warning("processes of bot user(s) %s survived SIGKILL", sorted(left))
    return left


def remove_files_of(uid: int, places: Iterable[str] = WORLD_WRITABLE) -> int:
    """Delete what ``uid`` owns in ``places`` and in world-writable folders below them.

    Call it once the user has no process left. Symbolic links are removed, never followed.
    Returns the number of entries removed.
    """
    return remove_files_of_users({uid}, places)


def remove_files_of_users(uids: Collection[int], places: Iterable[str] = WORLD_WRITABLE) -> int:
    """``remove_files_of`` for several uids, in one walk."""
    removed = 0
    todo = list(dict.fromkeys(os.path.realpath(p) for p in places if os.path.isdir(p)))
    while todo:
        folder = todo.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if info.st_uid in uids:
                removed += _remove(entry.path, stat.S_ISDIR(info.st_mode))
            elif stat.S_ISDIR(info.st_mode) and info.st_mode & stat.S_IWOTH:
                todo.append(entry.path)
    return removed


#: System V IPC objects: (the /proc table, how to remove one).
_IPC_TABLES = (("shm", "shmctl"), ("msg", "msgctl"), ("sem", "semctl"))
#: The columns of a System V object's owner and of its creator: an owner can give an object
#: to another uid (``IPC_SET``), its creator stays.
_IPC_USERS = ("uid", "cuid")
_IPC_RMID = 0


def remove_ipc_of(uid: int) -> int:
    """Remove the System V shared memory segments, message queues and semaphore sets that
    ``uid`` created or owns (they outlive their processes, memory included). Returns how many
    were removed. (A bot in an IPC namespace of its own leaves none here:
    ``arena.procs.ipc_namespaces``.)"""
    return remove_ipc_of_users({uid})


def remove_ipc_of_users(uids: Collection[int]) -> int:
    """``remove_ipc_of`` for several uids."""
    users = {str(uid) for uid in uids}
    removed = 0
    for table, call in _IPC_TABLES:
        try:
            lines = Path(f"/proc/sysvipc/{table}").read_text().splitlines()
        except OSError:
            continue
        header = lines[0].split() if lines else []
        for line in lines[1:]:
            fields = dict(zip(header, line.split()))
            if any(fields.get(column) in users for column in _IPC_USERS):
                ident = int(line.split()[1])
                remove = getattr(_libc(), call)
                result = (
                    remove(ident, 0, _IPC_RMID, None)
                    if table == "sem"
                    else remove(ident, _IPC_RMID, None)
                )
                removed += result == 0
    return removed


def _remove(path: str, is_dir: bool) -> int:
    try:
        if is_dir:
            shutil.rmtree(path)  # fd-based on Linux: safe against symlinks swapped in
        else:
            os.unlink(path)
        return 1
    except OSError as exc:
        log.warning("could not remove %s: %s", path, exc)
        return 0
