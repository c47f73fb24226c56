"""The bot sandbox: bubblewrap (``bwrap``) around every bot process, where it works.

A sandboxed bot runs with:

- **no network**: its own network namespace (``--unshare-net``) holds only a loopback of its
  own; it reaches the arena through the hub's IPC socket, whose folder is bound in read-only;
- **a read-only file system** (``--ro-bind / /``) except a private, size-limited ``/tmp``
  (``TMPDIR``) that vanishes with it;
- **nothing private of the arena**: the results database (its folder, or its files when that
  folder also holds what bots need), the logs folder and the other registered bots' folders
  are hidden under empty file systems; a folder bot sees its own folder (read-only);
- **its own pid namespace** (``--unshare-pid``, ``--die-with-parent``): it sees no other process,
  and when it is killed every process it started dies with it, however it detached;
- its own IPC and UTS namespaces and a new session (no terminal injection).

``--sandbox auto`` (the default) uses bubblewrap when it works and otherwise logs one warning
that bots run unsandboxed; ``required`` refuses to run without it; ``off`` never uses it.
Whether bubblewrap works is tested once per process with a trivial command, because some
containers forbid the namespaces it needs.
"""

from __future__ import annotations

import enum
import functools
import logging
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.errors import SandboxError

log = logging.getLogger(__name__)

#: Default size of a sandboxed bot's private /tmp.
SCRATCH_BYTES = 64 * 1024 * 1024
_NAMESPACES = ("--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
               "--unshare-cgroup-try", "--die-with-parent", "--new-session")
_warned = False


class SandboxMode(str, enum.Enum):
    """``auto``: bubblewrap if it works; ``required``: refuse without it; ``off``: never."""

    AUTO = "auto"
    REQUIRED = "required"
    OFF = "off"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, kw_only=True)
class Sandbox:
    """How to wrap a bot command in bubblewrap.

    ``hide`` lists folders and files bots must not see; ``scratch_bytes`` bounds the private
    ``/tmp``.
    """

    bwrap: str
    hide: tuple[str, ...] = ()
    scratch_bytes: int = SCRATCH_BYTES

    def hiding(self, paths: Iterable[str | os.PathLike[str]]) -> Sandbox:
        """This sandbox, also hiding ``paths``."""
        more = tuple(os.path.abspath(p) for p in paths)
        return Sandbox(bwrap=self.bwrap, hide=tuple(dict.fromkeys(self.hide + more)),
                       scratch_bytes=self.scratch_bytes)

    def wrap(self, argv: Sequence[str], *, cwd: str, ipc_dir: str,
             own: str | None = None) -> list[str]:
        """The bwrap command line running ``argv`` in ``cwd``, reaching the hub in ``ipc_dir``.

        ``own`` is the bot's own folder (shown read-only even if it is among ``hide``).
        """
        cwd = os.path.abspath(cwd)
        own = os.path.abspath(own) if own else None
        hidden = [p for p in self.hide if p != own and os.path.exists(p)]
        # what the bot must see even where /tmp is replaced: the Python installation and the
        # arena's packages (a venv or a checkout may live under /tmp), the folders of files its
        # command names, its own folder and working folder, and the hub's socket folder
        named = [os.path.dirname(os.path.abspath(os.path.join(cwd, arg))) for arg in argv
                 if os.path.isfile(os.path.join(cwd, arg))]
        exposed = [p for p in dict.fromkeys([own, cwd, os.path.abspath(ipc_dir),
                                             *needed_paths(), *named])
                   if p and p != "/"]
        args = [self.bwrap, *_NAMESPACES, "--ro-bind", "/", "/", "--dev", "/dev",
                "--proc", "/proc", "--size", str(self.scratch_bytes), "--tmpfs", "/tmp",
                "--size", str(self.scratch_bytes), "--tmpfs", "/dev/shm"]
        dirs = [p for p in hidden if os.path.isdir(p)]
        dirs = [p for p in dirs if not _under(p, [d for d in dirs if d != p])]  # outermost
        files = [p for p in hidden if not os.path.isdir(p)
                 and (not _under(p, dirs) or _under(p, exposed))]
        for path in dirs:
            if not _under(path, ["/tmp"]):
                args += ["--tmpfs", path]
        for path in sorted(exposed, key=len):
            if _under(path, ["/tmp", *dirs]) or path == own:
                args += ["--ro-bind", path, path]
        for path in dirs:
            if _under(path, exposed):
                args += ["--tmpfs", path]
        for path in files:
            if not _under(path, ["/tmp"]) or _under(path, exposed):
                args += ["--ro-bind", "/dev/null", path]
        return [*args, "--chdir", cwd, "--", *argv]


def _under(path: str, folders: Iterable[str]) -> bool:
    """True if ``path`` is inside (or is) one of ``folders``."""
    return any(path == f or path.startswith(f.rstrip("/") + "/") for f in folders)


@functools.cache
def probe(bwrap: str) -> str | None:
    """None if ``bwrap`` can run a trivial sandboxed command here, else why not (one line)."""
    try:
        result = subprocess.run(
            [bwrap, *_NAMESPACES, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
             "--tmpfs", "/tmp", "--", "true"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{bwrap} could not run: {exc}"
    if result.returncode != 0:
        reason = result.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"{bwrap} does not work here: {reason[-1] if reason else result.returncode}"
    return None


def available() -> str | None:
    """The path of a working bwrap, or None."""
    found = shutil.which("bwrap")
    return found if found and probe(found) is None else None


def resolve(mode: SandboxMode | str, *, hide: Iterable[str | os.PathLike[str]] = (),
            scratch_bytes: int = SCRATCH_BYTES) -> Sandbox | None:
    """The sandbox to use for ``mode``: a Sandbox, or None to run bots unsandboxed.

    ``auto`` without a working bubblewrap logs one warning (once per process); ``required``
    raises SandboxError then.
    """
    global _warned
    mode = SandboxMode(mode)
    if mode is SandboxMode.OFF:
        return None
    found = shutil.which("bwrap")
    problem = "bubblewrap (bwrap) is not installed" if found is None else probe(found)
    if problem is not None:
        if mode is SandboxMode.REQUIRED:
            raise SandboxError(f"--sandbox required, but {problem}; install bubblewrap "
                               "or allow user namespaces (see docs/security.md)")
        if not _warned:
            _warned = True
            log.warning("bots run UNSANDBOXED: %s (see docs/security.md)", problem)
        return None
    return Sandbox(bwrap=found, scratch_bytes=scratch_bytes).hiding(hide)


def needed_paths() -> list[str]:
    """Folders every bot needs to see: the Python installation and the arena's packages."""
    import bots
    import protocol

    found = {sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable))}
    for package in (bots, protocol):
        found.add(os.path.dirname(os.path.dirname(os.path.abspath(package.__file__))))
    return sorted(found)


def private_paths(db_path: Path, log_dir: Path) -> list[str]:
    """What bots must not see of an arena using ``db_path``: the database's folder (or, when
    that folder holds what bots need or the current folder, the database files) and logs."""
    db = db_path.expanduser().resolve()
    folder = str(db.parent)
    needed = [*needed_paths(), os.getcwd()]
    if any(_under(path, [folder]) for path in needed):
        hidden = [str(db) + suffix for suffix in ("", "-wal", "-shm", "-journal")]
    else:
        hidden = [folder]
    return [*hidden, str(log_dir.expanduser().resolve())]
