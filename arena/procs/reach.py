"""Make the folders a bot needs reachable by its own uid, without changing the host.

As root the arena runs each bot as an unprivileged uid (``arena.procs.identity``). The Python
installation or the arena's checkout may sit under a folder others cannot search (``/root``,
mode 0700), so that uid could not even start Python. The child then, still root, enters a
mount namespace of its own, covers each such folder with an empty read-only file system and
binds the needed folders back at their own paths. Only what the arena needs (the Python
installation, its packages, the bot's own and working folders) is made reachable this way;
the rest of the covered folder is hidden from the bot. Nothing changes outside the child.
"""

from __future__ import annotations

import ctypes
import functools
import os
import stat
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass

from arena.procs.sandbox import inside

_CLONE_NEWNS = 0x00020000
_MS_RDONLY, _MS_NOSUID, _MS_NODEV = 0x1, 0x2, 0x4
_MS_REMOUNT, _MS_BIND, _MS_REC, _MS_PRIVATE = 0x20, 0x1000, 0x4000, 1 << 18
_libc = ctypes.CDLL(None, use_errno=True)


def blocked_ancestor(path: str) -> str | None:
    """The highest folder above ``path`` that others cannot search (no ``o+x``), or None."""
    parts = os.path.abspath(path).split("/")[1:-1]
    current = ""
    for part in parts:
        current += "/" + part
        try:
            mode = os.stat(current).st_mode
        except OSError:
            return None
        if not mode & stat.S_IXOTH:
            return current
    return None


def unreadable(paths: Iterable[str]) -> str | None:
    """The first of ``paths`` (files and folders a bot's command names) that another user
    could not use even once its blocked ancestors are bound back (``plan``): a file that
    others cannot read, or a folder (a named one, or a named file's) they cannot search;
    said with its mode, or None."""
    for path in paths:
        folder = path if os.path.isdir(path) else os.path.dirname(path)
        try:
            checks = [(folder, os.stat(folder).st_mode, stat.S_IXOTH, "searchable")]
            if folder != path:
                checks.append((path, os.stat(path).st_mode, stat.S_IROTH, "readable"))
        except OSError:
            continue
        for where, mode, bit, what in checks:
            if not mode & bit:
                return f"{where} (mode {stat.S_IMODE(mode):04o}: not {what} by others)"
    return None


@dataclass(frozen=True)
class View:
    """Folders to cover (``covers``) and folders to bind back beneath them (``binds``)."""

    covers: tuple[str, ...] = ()
    binds: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.covers)


def plan(paths: Iterable[str]) -> View:
    """The view making every folder of ``paths`` reachable by any uid."""
    covers: dict[str, None] = {}
    binds: list[str] = []
    for path in sorted({os.path.abspath(p) for p in paths}, key=len):
        top = blocked_ancestor(path)
        if top is None or any(inside(path, [b]) for b in binds):
            continue
        if not any(inside(top, [c]) for c in covers):
            covers[top] = None
        binds.append(path)
    return View(covers=tuple(covers), binds=tuple(binds))


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def _mount(
    source: bytes | None, target: str, fstype: bytes | None, flags: int, data: bytes | None = None
) -> None:
    _check(_libc.mount(source, os.fsencode(target), fstype, flags, data), f"mount {target}")


def enter(view: View) -> None:
    """Apply ``view`` in a new mount namespace (in the child, as root, before exec)."""
    if not view:
        return
    _private_namespace()  # nothing propagates to the host
    fds = [os.open(path, os.O_PATH | os.O_DIRECTORY) for path in view.binds]  # before covers
    for cover in view.covers:
        _mount(b"tmpfs", cover, b"tmpfs", _MS_NOSUID | _MS_NODEV, b"mode=0755,size=64k")
    for path, fd in zip(view.binds, fds):
        os.makedirs(path, exist_ok=True)
        _mount(f"/proc/self/fd/{fd}".encode(), path, None, _MS_BIND | _MS_REC)
        os.close(fd)
    for cover in view.covers:
        _mount(None, cover, None, _MS_REMOUNT | _MS_RDONLY | _MS_NOSUID | _MS_NODEV)


def _private_namespace() -> None:
    _check(_libc.unshare(_CLONE_NEWNS), "unshare")
    _mount(None, "/", None, _MS_REC | _MS_PRIVATE)


@functools.cache
def problem() -> str | None:
    """None if a child can have a mount namespace of its own here, else why not (one line;
    tested once per process: some containers forbid it even to root)."""
    try:
        subprocess.run(["true"], preexec_fn=_private_namespace, check=True, timeout=10)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"no mount namespace for bot processes ({exc})"
    return None
