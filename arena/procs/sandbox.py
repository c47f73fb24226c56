"""The bot sandbox: bubblewrap (``bwrap``) around every bot process, where it works.

A sandboxed bot sees an **allow-list** of the file system, read-only: the system (``/usr`` and
the ``/bin``, ``/sbin``, ``/lib*`` links or folders as on the host), a few files of ``/etc``
programs need (``ETC_FILES``), the Python installation, the arena's packages (``protocol``,
``bots``, ``arena``), its own folder, the folders of files its command names and the folder of
its hub socket (its working folder is one of these, or an empty folder of its own); plus a
private, size-limited ``/tmp`` (its ``TMPDIR``) and ``/dev/shm``, the only places it can write,
and its own ``/dev`` and ``/proc``. Nothing else exists for it. Private paths of the arena (the
database, the logs folder, other registered
bots' folders) that lie inside a shown folder are covered (an empty read-only file system for a
folder, an unopenable device node for a file); a command naming a file inside a private path is
refused (SandboxError), never shown, and so is a bot whose own folder (or a named file's folder)
holds a FIFO, a socket or a device (``arena.procs.specials``): a FIFO opens for writing even on a
read-only file system, and would let the bot's processes talk.

It also runs with **no network** (its own network namespace with only a loopback), its own pid
namespace (it sees no other process; when it dies, all it started dies), its own IPC and UTS
namespaces, a new session, and **no capabilities**: when the arena runs as root, the bot process
becomes an unprivileged uid of its own before it runs ``bwrap`` (``arena.procs.identity``), and
``bwrap`` forbids further user namespaces inside.

``--sandbox auto`` (the default) uses bubblewrap when it works and otherwise logs one warning
saying what still protects the arena; ``required`` refuses to run without it, or without the
system-call filter every bot process gets (``arena.procs.seccomp``; ``auto`` warns without it);
``off`` never uses bubblewrap. Whether bubblewrap works is tested once per process with a
trivial command (under the filter), because some containers forbid the namespaces it needs.
"""

from __future__ import annotations

import enum
import functools
import importlib.util
import logging
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.errors import SandboxError
from arena.keys.keyfile import secret_paths
from arena.procs import identity, seccomp, specials

log = logging.getLogger(__name__)

#: Default size of a sandboxed bot's private /tmp (and of its /dev/shm).
SCRATCH_BYTES = 64 * 1024 * 1024
_NAMESPACES = (
    "--unshare-user",
    "--disable-userns",
    "--unshare-pid",
    "--unshare-net",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--die-with-parent",
    "--new-session",
)
#: System folders shown to bots (as a link where the host has a link).
SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
#: What of /etc bots see: the dynamic linker's cache, users and groups, name service and time
#: zone settings, alternatives links, TLS certificates and MIME types.
ETC_FILES = (
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "alternatives",
    "localtime",
    "timezone",
    "passwd",
    "group",
    "nsswitch.conf",
    "host.conf",
    "hosts",
    "gai.conf",
    "ssl",
    "ca-certificates",
    "pki",
    "crypto-policies",
    "mime.types",
    "locale.alias",
)
#: Never shown from the host, even when a command names them (the sandbox has its own).
_KERNEL_PATHS = ("/dev", "/proc", "/sys")
_warned = False
_warned_filter = False


class SandboxMode(enum.StrEnum):
    """``auto``: bubblewrap if it works; ``required``: refuse without it; ``off``: never."""

    AUTO = "auto"
    REQUIRED = "required"
    OFF = "off"


@dataclass(frozen=True, kw_only=True)
class Sandbox:
    """How to wrap a bot command in bubblewrap.

    ``hide`` lists the arena's private folders and files: never shown, covered where they lie
    inside a shown folder; ``scratch_bytes`` bounds the private ``/tmp`` and ``/dev/shm``.
    """

    bwrap: str
    hide: tuple[str, ...] = ()
    scratch_bytes: int = SCRATCH_BYTES

    def hiding(self, paths: Iterable[str | os.PathLike[str]]) -> Sandbox:
        """This sandbox, also hiding ``paths``."""
        more = tuple(os.path.realpath(p) for p in paths)
        return Sandbox(
            bwrap=self.bwrap,
            hide=tuple(dict.fromkeys(self.hide + more)),
            scratch_bytes=self.scratch_bytes,
        )

    def wrap(
        self, argv: Sequence[str], *, cwd: str, ipc_dir: str, own: str | None = None
    ) -> list[str]:
        """The bwrap command line running ``argv`` in ``cwd``, reaching the hub in ``ipc_dir``.

        ``own`` is the bot's own folder (shown read-only even if it is among ``hide``). The
        working folder ``cwd`` is shown only as far as it is one of the shown folders (its own
        folder, a named file's folder); else it is an empty folder of the sandbox's own
        (read-only, or part of the bot's private ``/tmp`` when it lies under ``/tmp``).
        Raises SandboxError if a file or folder the command names is private, or if its own
        folder or a named file's folder holds a FIFO, a socket or a device
        (``arena.procs.specials``).
        """
        cwd = os.path.abspath(cwd)
        own = os.path.realpath(own) if own else None
        private = [p for p in self.hide if p != own]
        named = named_paths(argv, cwd)
        for path in named:
            if inside(path, private) and not (own and inside(path, [own])):
                raise SandboxError(
                    f"the bot's command names {path}, which is private to the "
                    "arena (database, logs, keys or another bot's folder)"
                )
        _refuse_special_files([own, *_folders(named)])
        shown = [
            p
            for p in dict.fromkeys(
                [*needed_paths(), own, os.path.abspath(ipc_dir), *_folders(named)]
            )
            if p and p != "/"
        ]
        shown = [p for p in sorted(shown, key=len) if not inside(p, SYSTEM_PATHS)]
        outer = [p for p in shown if not inside(p, [q for q in shown if q != p])]
        args = [
            self.bwrap,
            *_NAMESPACES,
            *_system_args(),
            "--dev",
            "/dev",
            "--proc",
            "/proc",
            "--size",
            str(self.scratch_bytes),
            "--tmpfs",
            "/tmp",
            "--size",
            str(self.scratch_bytes),
            "--tmpfs",
            "/dev/shm",
            "--dir",
            cwd,
        ]
        for path in outer:
            args += ["--ro-bind", path, path]
        covered = [p for p in private if os.path.exists(p) and inside(p, outer)]
        covered = [p for p in covered if not inside(p, [q for q in covered if q != p])]
        args += _covers(covered)
        for path in shown:  # what is shown inside a covered folder (its own folder)
            if inside(path, covered):
                args += ["--ro-bind", path, path]
        for path in covered:
            if os.path.isdir(path):
                args += ["--remount-ro", path]
        return [*args, "--remount-ro", "/", "--chdir", cwd, "--", *argv]


def _refuse_special_files(folders: Iterable[str | None]) -> None:
    """Raise SandboxError if one of ``folders`` (a bot's own folder, the folders of the files
    its command names; not the system's or the Python installation's) holds a special file."""
    arenas = [*SYSTEM_PATHS, *needed_paths()]
    wanted = sorted({f for f in folders if f and f != "/" and not inside(f, arenas)}, key=len)
    for folder in [f for f in wanted if not inside(f, [g for g in wanted if g != f])]:
        try:
            found = specials.first_special(folder)
        except specials.TooManyEntries:
            raise SandboxError(
                f"the folder {folder} shown to the bot holds over {specials.MAX_ENTRIES} "
                "entries; give the bot a folder of its own"
            ) from None
        if found is not None:
            name, kind = found
            raise SandboxError(
                f"the folder {folder} shown to the bot holds {name!r}, {kind}: processes "
                "that see it could talk through it; remove it"
            )


def _system_args() -> list[str]:
    """Show the system folders (links as links) and the allowed files of /etc."""
    args: list[str] = []
    for path in SYSTEM_PATHS:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    for name in ETC_FILES:
        path = os.path.join("/etc", name)
        if os.path.exists(path):
            args += ["--ro-bind", path, path]
    return args


def _covers(private: list[str]) -> list[str]:
    """Cover private paths: an empty file system on a folder (made read-only once what is
    shown inside it is bound), /dev/null on a file."""
    args: list[str] = []
    for path in private:
        if os.path.isdir(path):
            args += ["--size", "4096", "--tmpfs", path]
        else:
            args += ["--ro-bind", "/dev/null", path]
    return args


def named_paths(argv: Sequence[str], cwd: str) -> list[str]:
    """The existing files and folders a command line names (relative to ``cwd``), with every
    symbolic link resolved: what bubblewrap would bind is what is checked."""
    found = []
    for arg in argv:
        if not arg or arg.startswith("-"):
            continue
        path = os.path.realpath(os.path.join(cwd, arg))
        if os.path.exists(path) and not inside(path, _KERNEL_PATHS):
            found.append(path)
    return list(dict.fromkeys(found))


def _folders(paths: Iterable[str]) -> list[str]:
    """Folders to show for named paths: a folder itself, a file's folder."""
    return [p if os.path.isdir(p) else os.path.dirname(p) for p in paths]


def inside(path: str, folders: Iterable[str]) -> bool:
    """True if ``path`` is inside (or is) one of ``folders``."""
    return any(path == f or path.startswith(f.rstrip("/") + "/") for f in folders)


@functools.cache
def probe(bwrap: str) -> str | None:
    """None if ``bwrap`` can run a trivial sandboxed command here (as the uid a bot would
    have, under the system-call filter a bot would have), else why not (one line)."""
    syscall_filter = seccomp.bot_filter()

    def as_bot() -> None:
        if identity.separate_users():
            identity.become(identity.uid_of(os.getpid()))
        if syscall_filter is not None:
            syscall_filter.install()

    try:
        result = subprocess.run(
            [
                bwrap,
                *_NAMESPACES,
                "--ro-bind",
                "/",
                "/",
                "--dev",
                "/dev",
                "--proc",
                "/proc",
                "--tmpfs",
                "/tmp",
                "--remount-ro",
                "/",
                "--",
                "true",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            timeout=10,
            check=False,
            preexec_fn=as_bot,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"{bwrap} could not run: {exc}"
    if result.returncode != 0:
        reason = result.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"{bwrap} does not work here: {reason[-1] if reason else result.returncode}"
    return None


def available() -> str | None:
    """The path of a working bwrap, or None."""
    found = shutil.which("bwrap")
    return found if found and probe(found) is None else None


def unsandboxed_risks() -> str:
    """What an unsandboxed bot can and cannot do here (one sentence)."""
    if identity.separate_users():
        return (
            "bots run as separate unprivileged users: they cannot read the database or "
            "the logs or signal the arena or each other, but can read world-readable "
            "files and use the network"
        )
    return (
        "bots run as you and can read your files, including the database, signal your "
        "processes and use the network"
    )


def resolve(
    mode: SandboxMode, *, hide: Iterable[str | os.PathLike[str]] = (), local: bool = True
) -> Sandbox | None:
    """The sandbox to use for ``mode``: a Sandbox, or None to run bots unsandboxed.

    ``required`` needs a working bubblewrap and the system-call filter (``arena.procs.seccomp``),
    else raises SandboxError. ``auto`` without either logs one warning each (once per
    process, and only if ``local`` bots will run) saying what still protects the arena. The
    filter applies wherever it works, whatever the mode (``arena.procs.botproc``).
    """
    global _warned, _warned_filter
    mode = SandboxMode(mode)
    if mode is SandboxMode.OFF:
        return None
    found = shutil.which("bwrap")
    problem = "bubblewrap (bwrap) is not installed" if found is None else probe(found)
    unfiltered = seccomp.problem()
    if mode is SandboxMode.REQUIRED and problem is not None:
        raise SandboxError(
            f"--sandbox required, but {problem}; install bubblewrap "
            "or allow user namespaces (see docs/security.md)"
        )
    if mode is SandboxMode.REQUIRED and unfiltered is not None:
        raise SandboxError(f"--sandbox required, but {unfiltered} (see docs/security.md)")
    if unfiltered is not None and local and not _warned_filter:
        _warned_filter = True
        log.warning(
            "bots run WITHOUT THE SYSTEM-CALL FILTER: %s; the processes of one bot, or two "
            "bots at one table, can pass each other what they see through file locks, file "
            "notifications and the page cache (see docs/security.md)",
            unfiltered,
        )
    if problem is not None:
        if local and not _warned:
            _warned = True
            log.warning(
                "bots run UNSANDBOXED: %s; %s (see docs/security.md)", problem, unsandboxed_risks()
            )
        return None
    return Sandbox(bwrap=found).hiding(hide)


#: Packages every bot may need to see: the SDK, the rules engines (a simulator) and the
#: bundled bots. Found without importing them: the arena never imports a bot.
BOT_PACKAGES = ("protocol", "arena", "bots")


def needed_paths() -> list[str]:
    """Folders every bot needs to see: the Python installation and ``BOT_PACKAGES``."""
    found = {sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable))}
    for name in BOT_PACKAGES:
        spec = importlib.util.find_spec(name)
        found.update(
            os.path.abspath(path)
            for path in (spec.submodule_search_locations or [] if spec else [])
        )
    return sorted(found)


def private_paths(db_path: Path, log_dir: Path) -> list[str]:
    """What bots must not see of an arena using ``db_path``: the database's folder (or, when
    that folder holds what bots need or the current folder, the database files and its key
    file), the logs and the arena's settings folder (``~/.config/arena``, the user's keys)."""
    db = db_path.expanduser().resolve()
    folder = str(db.parent)
    needed = [*needed_paths(), os.getcwd()]
    if any(inside(path, [folder]) for path in needed):
        hidden = [str(db) + suffix for suffix in ("", "-wal", "-shm", "-journal")]
    else:
        hidden = [folder]
    config = os.path.join(os.path.expanduser("~"), ".config", "arena")
    return list(
        dict.fromkeys([*hidden, *secret_paths(db), str(log_dir.expanduser().resolve()), config])
    )
