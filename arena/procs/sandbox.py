"""The bot sandbox: bubblewrap (``bwrap``) around every bot process, where it works.

A sandboxed bot sees a small, known set of files, read-only, and all of it **in memory**: the
runtime of its program (the binary, its loader and libraries, for Python the standard library
and the SDK's packages: ``arena.procs.runtime``), the arena's packages (``protocol``, ``bots``,
``arena``), a few files of ``/etc`` programs need (``ETC_FILES``), its own folder, the files its
command names with their folders, and the folders named in ``$ARENA_SANDBOX_SHOW`` (``SHOW_ENV``:
what a runtime loads beyond that, such as a JVM's modules); plus its hub socket at ``DOOR``, a
private, size-limited ``/tmp`` (its ``TMPDIR``) and ``/dev/shm``, the only places it can write,
and its own ``/dev`` and ``/proc``. Nothing else exists for it. These files are copies in a
memory-backed **view** (``arena.procs.memview``), at their own paths: no page a bot can read is
ever uncached, so which pages are cached carries nothing from one bot process to another.
Private paths of the arena (the database, the logs folder, other registered bots' folders) that
lie inside a shown folder are left out of the view; a command naming a file inside a private
path is refused (SandboxError), never shown, and so is a bot whose own folder (or a named
file's folder) holds a FIFO, a socket or a device (``arena.procs.specials``): a FIFO opens for
writing even on a read-only file system, and would let the bot's processes talk.

It also runs with **no network** (its own network namespace with only a loopback), its own pid
namespace (it sees no other process; when it dies, all it started dies), its own IPC and UTS
namespaces, a new session, and **no capabilities**: when the arena runs as root, the bot process
becomes an unprivileged uid of its own before it runs ``bwrap`` (``arena.procs.identity``), and
``bwrap`` forbids further user namespaces inside.

``--sandbox auto`` (the default) uses bubblewrap when it works and otherwise logs one warning
saying what still protects the arena; ``required`` refuses to run without it, or without the
system-call filter every bot process gets (``arena.procs.seccomp``; ``auto`` warns without it);
``off`` never uses bubblewrap; ``required`` also refuses where views cannot be kept in memory
(``auto`` warns). Whether bubblewrap works is tested once per process with a trivial command
(under the filter), because some containers forbid the namespaces it needs.
"""

from __future__ import annotations

import enum
import functools
import importlib.util
import logging
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from arena.errors import SandboxError
from arena.keys.keyfile import secret_paths
from arena.procs import identity, memview, runtime, seccomp, specials
from arena.procs.runtime import Entry

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
#: System folders: a file a command names there is shown, not its folder (the program's
#: runtime is found by ``arena.procs.runtime``).
SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
#: What of /etc bots see: the dynamic linker's settings, users and groups, name service and
#: time zone settings, MIME types and locale names (no network: no certificates).
ETC_FILES = (
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "localtime",
    "timezone",
    "passwd",
    "group",
    "nsswitch.conf",
    "host.conf",
    "hosts",
    "gai.conf",
    "mime.types",
    "locale.alias",
)
#: The C locale's files (programs load them for ``LANG=C.UTF-8``).
LOCALE_FOLDERS = ("/usr/lib/locale/C.utf8", "/usr/lib/locale/C.UTF-8")
#: Where a bot finds its hub socket's folder: the same for every bot and every run.
DOOR = "/run/arena"
#: Where a bot sees its own folder (its working folder): the same for every bot.
OWN = "/bot"
#: Files of ``/proc`` that count what every process of the machine did since it started (the
#: processes and threads started, page faults, interrupts, time spent waiting): a bot could
#: add to a count for a process of a later phase to read. A bot reads them as they were at
#: boot (every number 0), from ``PROC_COVERS`` in its view.
COVERED_PROC = ("stat", "vmstat", "interrupts", "softirqs", "schedstat", "pressure")
PROC_COVERS = "/run/arena-proc"
#: Folders (``:``-separated) every sandboxed bot also sees: what its runtime loads beyond what
#: ``arena.procs.runtime`` finds (a JVM's modules, a Python package outside the SDK).
SHOW_ENV = "ARENA_SANDBOX_SHOW"
#: Never shown from the host, even when a command names them (the sandbox has its own).
_KERNEL_PATHS = ("/dev", "/proc", "/sys")
_warned = False
_warned_filter = False
_warned_memory = False


class SandboxMode(enum.StrEnum):
    """``auto``: bubblewrap if it works; ``required``: refuse without it; ``off``: never."""

    AUTO = "auto"
    REQUIRED = "required"
    OFF = "off"


@dataclass(frozen=True)
class Wrapped:
    """A sandboxed command line and the name of the view it shows (``arena.procs.memview``)."""

    argv: list[str]
    view: str


@dataclass(frozen=True, kw_only=True)
class Sandbox:
    """How to wrap a bot command in bubblewrap.

    ``hide`` lists the arena's private folders and files: never shown, left out where they
    lie inside a shown folder; ``show`` the folders every bot also sees (``SHOW_ENV``);
    ``scratch_bytes`` bounds the private ``/tmp`` and ``/dev/shm``.
    """

    bwrap: str
    hide: tuple[str, ...] = ()
    show: tuple[str, ...] = ()
    scratch_bytes: int = SCRATCH_BYTES

    def hiding(self, paths: Iterable[str | os.PathLike[str]]) -> Sandbox:
        """This sandbox, also hiding ``paths``."""
        more = tuple(os.path.realpath(p) for p in paths)
        return replace(self, hide=tuple(dict.fromkeys(self.hide + more)))

    def environment(self, env: Mapping[str, str]) -> dict[str, str]:
        """A bot's environment ``env`` as it is inside the sandbox: its hub socket at ``DOOR``,
        and the arena's packages first on ``PYTHONPATH`` (the view holds them, not how the
        arena's interpreter finds them: an editable install's hooks)."""
        inside_env = dict(env)
        endpoint = env["ARENA_ENDPOINT"]
        inside_env["ARENA_ENDPOINT"] = f"ipc://{DOOR}/{os.path.basename(endpoint[len('ipc://') :])}"
        roots = [os.path.dirname(folder) for folder in package_folders()]
        inside_env["PYTHONPATH"] = os.pathsep.join(
            dict.fromkeys([*roots, *filter(None, env.get("PYTHONPATH", "").split(os.pathsep))])
        )
        return inside_env

    def wrap(
        self, argv: Sequence[str], *, cwd: str, ipc_dir: str, own: str | None = None
    ) -> Wrapped:
        """The bwrap command line running ``argv`` in ``cwd``, reaching the hub in ``ipc_dir``,
        and the view it shows, held for it (``memview.Store.release`` it once the bot is gone).

        ``own`` is the bot's own folder (shown even if it is among ``hide``). The working
        folder ``cwd`` is shown only as far as it is one of the shown folders (its own
        folder, a named file's folder); else it is an empty folder of the sandbox's own
        (read-only, or part of the bot's private ``/tmp`` when it lies under ``/tmp``).
        What it shows is a memory-backed view (``arena.procs.memview``), made here if need be.
        Raises SandboxError if a file or folder the command names is private, if its own
        folder or a named file's folder holds a FIFO, a socket or a device
        (``arena.procs.specials``) or too much (``memview.MAX_FOLDER_BYTES``), or if its
        program is not found.
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
        program = runtime.find_program(argv[0], cwd, os.environ.get("PATH", os.defpath))
        if program is None:
            raise SandboxError(f"the bot's program {argv[0]!r} is not found")
        shown = _shown_folders(named, program, own)
        hidden = tuple(private)
        mine = [Entry(p, whole=True, at=OWN if p == own else "") for p in shown]
        mine += [Entry(p) for p in named if not inside(p, shown)]
        if own:  # at OWN: nothing it sees names the database's folder or the copy's digest
            argv = [_moved(arg, own, OWN) for arg in argv]
            cwd = _moved(cwd, own, OWN)
        try:
            parts = [
                _common_part(program, self.show, hidden, tuple(shown)),
                memview.part(
                    mine,
                    hidden=hidden,
                    shown=[own] if own else [],
                    counted=shown,
                    folders=[] if inside(cwd, ["/tmp"]) else [cwd],
                ),
            ]
            view = memview.store().view(parts)
        except memview.TooBig as exc:
            raise SandboxError(
                f"the folder {exc} shown to the bot holds over "
                f"{memview.MAX_FOLDER_BYTES >> 20} MiB or {memview.MAX_FOLDER_ENTRIES} entries; "
                "give the bot a folder of its own"
            ) from None
        except OSError as exc:
            raise SandboxError(f"the bot's files could not be shown to it: {exc}") from None
        under_tmp = [r for part in parts for r in part.roots if inside(r, ["/tmp"])]
        under_tmp = [p for p in under_tmp if not inside(p, [q for q in under_tmp if q != p])]
        args = [self.bwrap, *_NAMESPACES]
        for name, kind in view.tops:
            if name == "tmp":
                continue
            if kind == "dir":
                args += ["--ro-bind", f"{view.root}/{name}", f"/{name}"]
            else:
                args += ["--symlink", kind, f"/{name}"]
        args += ["--dev", "/dev", "--proc", "/proc"]
        for name in _proc_covers():
            args += ["--ro-bind", f"{view.root}{PROC_COVERS}/{name}", f"/proc/{name}"]
        args += [
            "--size",
            str(self.scratch_bytes),
            "--tmpfs",
            "/tmp",
            "--size",
            str(self.scratch_bytes),
            "--tmpfs",
            "/dev/shm",
        ]
        if inside(cwd, ["/tmp"]):
            args += ["--dir", cwd]
        for path in under_tmp:
            args += ["--ro-bind", view.root + path, path]
        args += ["--ro-bind", os.path.abspath(ipc_dir), DOOR]
        return Wrapped([*args, "--remount-ro", "/", "--chdir", cwd, "--", *argv], view.name)


def _shown_folders(named: Sequence[str], program: str, own: str | None) -> list[str]:
    """The folders a bot sees whole: its own, and those of the files its command names but
    for the system's and the interpreter's (whose files it needs are its runtime)."""
    runtimes = [*SYSTEM_PATHS, sys.prefix, sys.base_prefix]
    folders = [own] if own else []
    for path in named:
        folder = path if os.path.isdir(path) else os.path.dirname(path)
        if folder != "/" and not inside(folder, runtimes):
            folders.append(folder)
    if not inside(program, runtimes):
        folders.append(os.path.dirname(program))
    return list(dict.fromkeys(folders))


def _moved(path: str, old: str, new: str) -> str:
    """``path``, moved from folder ``old`` to ``new`` if it lies inside it."""
    return new + path[len(old) :] if inside(path, [old]) else path


@functools.lru_cache(maxsize=64)
def _common_part(
    program: str, show: tuple[str, ...], hidden: tuple[str, ...], skip: tuple[str, ...]
) -> memview.Part:
    """The part of a view every bot running ``program`` shares: its runtime (but what lies in
    the folders of ``skip``, shown whole by the bot's own part), the arena's packages, what of
    ``/etc`` programs read, the C locale, the folders of ``show`` and the hub socket's folder
    (kept while this process lives: the runtime of a program is looked at again when the
    program changes)."""
    entries = [
        *(
            e
            for e in runtime.program_runtime(program, os.environ)
            if e.path == program or not inside(e.path, skip)  # the program: its links as well
        ),
        *(Entry(path, whole=True) for path in package_folders()),
        *(Entry(os.path.join("/etc", name), whole=True) for name in ETC_FILES),
        *(Entry(path, whole=True) for path in LOCALE_FOLDERS),
        *(Entry(path, whole=True) for path in show),
    ]
    present = [e for e in entries if os.path.lexists(e.path)]
    return memview.part(present, hidden=hidden, folders=[DOOR]).merged(
        memview.made_part({f"{PROC_COVERS}/{name}": data for name, data in _proc_covers().items()})
    )


@functools.cache
def _proc_covers() -> dict[str, bytes]:
    """What a bot reads in the files of ``COVERED_PROC`` (a folder's files by their paths):
    the host's, every number made 0."""
    found: dict[str, bytes] = {}
    for name in COVERED_PROC:
        path = os.path.join("/proc", name)
        if os.path.isdir(path):
            for inner in sorted(os.listdir(path)):
                found[f"{name}/{inner}"] = _zeroed(os.path.join(path, inner))
        elif os.path.isfile(path):
            found[name] = _zeroed(path)
    return {name: data for name, data in found.items() if data is not None}


def _zeroed(path: str) -> bytes | None:
    """The text of ``path`` with every number 0 (words such as ``cpu1`` kept), or None if it
    cannot be read."""
    try:
        with open(path, "rb") as handle:
            text = handle.read().decode("ascii", "replace")
    except OSError:
        return None
    return re.sub(r"\b\d+(\.\d+)?\b", "0", text).encode()


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
    identity.user_mask()  # read here: the child takes its uid without reading a file

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

    ``required`` needs a working bubblewrap, the system-call filter (``arena.procs.seccomp``)
    and a memory-backed place for views (``arena.procs.memview``), else raises SandboxError.
    ``auto`` without one of them logs one warning each (once per process, and only if ``local``
    bots will run) saying what still protects the arena. The filter applies wherever it works,
    whatever the mode (``arena.procs.botproc``). The sandbox shows the folders of
    ``$ARENA_SANDBOX_SHOW`` (``SHOW_ENV``) to every bot.
    """
    global _warned, _warned_filter, _warned_memory
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
    on_disk = memview.problem()
    if on_disk is not None and mode is SandboxMode.REQUIRED:
        raise SandboxError(f"--sandbox required, but {on_disk} (see docs/security.md)")
    if on_disk is not None and local and not _warned_memory:
        _warned_memory = True
        log.warning(
            "%s: which pages of them are cached can carry what one bot process saw to another "
            "(see docs/security.md)",
            on_disk,
        )
    return Sandbox(bwrap=found, show=shown_by_environment()).hiding(hide)


def shown_by_environment() -> tuple[str, ...]:
    """The folders ``$ARENA_SANDBOX_SHOW`` names (``:``-separated, as absolute paths)."""
    value = os.environ.get(SHOW_ENV, "")
    return tuple(dict.fromkeys(os.path.abspath(p) for p in value.split(os.pathsep) if p))


#: Packages every bot may need to see: the SDK, the rules engines (a simulator) and the
#: bundled bots. Found without importing them: the arena never imports a bot.
BOT_PACKAGES = ("protocol", "arena", "bots")


@functools.cache
def package_folders() -> tuple[str, ...]:
    """The folders of ``BOT_PACKAGES``."""
    found: list[str] = []
    for name in BOT_PACKAGES:
        spec = importlib.util.find_spec(name)
        found += [
            os.path.abspath(p) for p in (spec.submodule_search_locations or [] if spec else [])
        ]
    return tuple(dict.fromkeys(found))


def needed_paths() -> list[str]:
    """Folders an unsandboxed bot needs to reach: the Python installation and
    ``BOT_PACKAGES``."""
    found = {sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable))}
    found.update(package_folders())
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
