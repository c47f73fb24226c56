"""Memory-backed views: copies, in memory, of every file a sandboxed bot may read.

Which pages of a file are in the page cache outlives every process: a bot could set bits by
reading chosen pages of a big file no one else reads, and a process of a later phase (or at
the same table) could read them back by timing a read or by what a fault maps in. So a
sandboxed bot reads nothing from disk. ``view`` makes a **view**: a folder tree on a
memory-backed file system (``PLACE``, tmpfs) holding copies of exactly what the bot may read,
at the same paths as on the host (links kept as links), which the sandbox binds read-only
(``arena.procs.sandbox``). Every page of a tmpfs file is in memory as long as the file exists:
no page of a view is ever "not cached", so there is no bit to set; and the system-call filter
keeps a bot from evicting pages (``arena.procs.seccomp``). Where ``PLACE`` is not memory-backed
the views are made on disk anyway and ``problem`` says why (``--sandbox required`` refuses).

Views share their files: one **store** per user of the arena, ``PLACE/arena-view-UID/``
(0711, the user's), holds each file copied once (``files/``, named by a digest of its source
path and its stat: a changed source is a new copy; the first process to make a copy wins,
its name is never replaced) and each view (``trees/``, named by a
digest of its content) as hard links to them. A process holds a shared ``flock`` on a view
while a bot it started from it may run (``view`` takes it, ``release`` lets go); ``collect``
(at a process's first view and at its exit) removes the views no live process has held for
``KEEP_S`` and the copies no view links, and the last arena process of the user to exit removes
them all (as does the first to start after a killed one). So the runtime of the bots (about
80 MB for Python's, copied in a second) is copied once for all the runs that overlap (a server
and its commands, a suite of tests), and nothing stays in memory once no arena runs. Views of a
given content have one name whatever the run, so nothing in a bot's mounts tells one run from
another.
"""

from __future__ import annotations

import atexit
import errno
import fcntl
import hashlib
import logging
import multiprocessing.util
import os
import secrets
import shutil
import stat
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from arena.procs import runtime
from arena.procs.runtime import Entry

log = logging.getLogger(__name__)

#: Where views live: the memory-backed file system of POSIX shared memory.
PLACE = "/dev/shm"
#: statfs types of memory-backed file systems: tmpfs, ramfs.
MEMORY_FILE_SYSTEMS = (0x01021994, 0x858458F6)
#: The most bytes a folder shown whole may hold (the runtime's folders are not counted).
MAX_FOLDER_BYTES = 1 << 30
#: The most entries a folder shown whole may hold.
MAX_FOLDER_ENTRIES = 100_000
#: Seconds a view no process holds is kept while other arena processes of the user run (a
#: process started meanwhile finds it made); the last of them to exit removes every view.
KEEP_S = 3600
#: The file every arena process using a store holds a shared lock on.
USERS = ".users"
_DIGITS = 32


class TooBig(Exception):
    """A folder to show holds more than ``MAX_FOLDER_BYTES`` or ``MAX_FOLDER_ENTRIES``."""


@dataclass(frozen=True)
class Item:
    """One path of a view: a folder, a link (``target``) or a file (its copy's name)."""

    path: str
    kind: str  # "dir", "link" or "file"
    target: str = ""


@dataclass
class Part:
    """Part of what a view holds, path by path, and where each file's copy comes from
    (``part`` makes one; a view is made of parts)."""

    items: dict[str, Item] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)  # copy name -> source path
    data: dict[str, bytes] = field(default_factory=dict)  # copy name -> content made here
    roots: list[str] = field(default_factory=list)  # the real path of each entry shown
    binaries: list[str] = field(default_factory=list)
    digest: str = ""

    def add(self, item: Item) -> None:
        self.items.setdefault(item.path, item)

    def folder(self, path: str) -> None:
        while path not in ("/", "") and path not in self.items:
            self.items[path] = Item(path, "dir")
            path = os.path.dirname(path)

    def merged(self, other: Part) -> Part:
        """A part showing both this one and ``other``."""
        both = Part(
            {**other.items, **self.items},
            {**self.sources, **other.sources},
            {**self.data, **other.data},
            [*self.roots, *other.roots],
        )
        return both.seal()

    def seal(self) -> Part:
        """This part with its digest (of its content)."""
        text = "\0".join(f"{i.path}\0{i.kind}\0{i.target}" for _, i in sorted(self.items.items()))
        self.digest = hashlib.sha256(text.encode()).hexdigest()[:_DIGITS]
        return self


@dataclass(frozen=True)
class View:
    """A made view: its name, its folder (``root``, the host's ``/`` for the bot) and what of
    it lies in each top-level folder."""

    name: str
    root: str
    tops: tuple[tuple[str, str], ...]  # (name, "dir" or link target)


def problem(place: str = PLACE) -> str | None:
    """None if ``place`` is memory-backed, else why views are not (one line)."""
    try:
        kind = _fs_type(place)
    except OSError as exc:
        return f"views of bots' files cannot be kept in memory: {place}: {exc.strerror}"
    if kind not in MEMORY_FILE_SYSTEMS:
        return (
            f"{place} is not a memory-backed file system (tmpfs), so bots' files are read from disk"
        )
    return None


def _fs_type(path: str) -> int:
    """The ``f_type`` of ``statfs(path)``."""
    import ctypes

    buffer = ctypes.create_string_buffer(120)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.statfs(os.fsencode(path), buffer) != 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code), path)
    return int.from_bytes(buffer.raw[:8], "little")


class Store:
    """The store of one user's views under ``place`` (see the module's docstring)."""

    def __init__(self, place: str = PLACE) -> None:
        self.root = os.path.join(place, f"arena-view-{os.geteuid()}")
        self.files = os.path.join(self.root, "files")
        self.trees = os.path.join(self.root, "trees")
        self._held: dict[str, tuple[int, int]] = {}  # view name -> (its lock, holders)
        self._views: dict[str, View] = {}
        self._lock = threading.Lock()
        self._ready = False
        self._user = -1  # a shared lock on USERS, held while this process may use the store

    def _prepare(self) -> None:
        if self._ready:
            return
        for folder in (self.root, self.files, self.trees):
            try:
                os.mkdir(folder, 0o711)
            except FileExistsError:
                pass
            info = os.lstat(folder)
            if (
                not stat.S_ISDIR(info.st_mode)
                or info.st_uid != os.geteuid()
                or info.st_mode & 0o022
            ):
                raise OSError(errno.EPERM, "not a folder of this user's alone", folder)
        users = os.path.join(self.root, USERS)
        self._user = os.open(users, os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:  # no other arena process of the user: what is there was left by one killed
            fcntl.flock(self._user, fcntl.LOCK_EX | fcntl.LOCK_NB)
            alone = True
        except BlockingIOError:
            alone = False
        fcntl.flock(self._user, fcntl.LOCK_SH)  # waits while the last process before empties it
        self._ready = True
        self.collect(keep_s=0 if alone else None)
        atexit.register(self.close)
        # a --jobs worker ends with os._exit after multiprocessing's own exit handlers
        multiprocessing.util.Finalize(None, self.close, exitpriority=0)

    def view(self, parts: Sequence[Part]) -> View:
        """The view holding ``parts``, made if no view of that content exists, held once more
        (no process collects it until ``release`` lets go of it as often)."""
        name = hashlib.sha256("/".join(p.digest for p in parts).encode()).hexdigest()[:_DIGITS]
        with self._lock:
            held = self._held.get(name)
            if held is not None:
                self._held[name] = (held[0], held[1] + 1)
                return self._views[name]
            self._prepare()
            tree = os.path.join(self.trees, name)
            with _Flock(os.path.join(self.root, ".lock"), fcntl.LOCK_SH):
                if not os.path.isdir(tree):
                    self._make(tree, parts)
                fd = os.open(f"{tree}.lock", os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
                fcntl.flock(fd, fcntl.LOCK_SH)
                os.utime(fd)  # its last use: kept for KEEP_S after it
            self._held[name] = (fd, 1)
            tops = []
            for entry in sorted(os.listdir(tree)):
                path = os.path.join(tree, entry)
                tops.append((entry, os.readlink(path) if os.path.islink(path) else "dir"))
            found = self._views[name] = View(name, tree, tuple(tops))
            return found

    def holding(self) -> tuple[str, ...]:
        """The views this process holds now."""
        with self._lock:
            return tuple(self._held)

    def release(self, name: str) -> None:
        """Let go of view ``name`` once (a bot started from it is gone); at the last, it is
        kept for ``KEEP_S`` for another run, then collected."""
        with self._lock:
            held = self._held.pop(name, None)
            if held is None:
                return
            fd, holders = held
            if holders > 1:
                self._held[name] = (fd, holders - 1)
                return
            del self._views[name]
            os.utime(fd)
            os.close(fd)

    def _make(self, tree: str, parts: Sequence[Part]) -> None:
        items: dict[str, Item] = {}
        sources: dict[str, str] = {}
        data: dict[str, bytes] = {}
        for part in parts:
            for path, item in part.items.items():
                items.setdefault(path, item)
            sources.update(part.sources)
            data.update(part.data)
        building = os.path.join(self.trees, f".new-{secrets.token_hex(8)}")
        try:
            os.mkdir(building, 0o755)
            for path, item in sorted(items.items()):
                at = building + path
                if item.kind == "dir":
                    os.makedirs(at, 0o755, exist_ok=True)
                elif item.kind == "link":
                    os.makedirs(os.path.dirname(at), 0o755, exist_ok=True)
                    os.symlink(item.target, at)
                else:
                    os.makedirs(os.path.dirname(at), 0o755, exist_ok=True)
                    name = item.target
                    made = self._keep(name, data[name]) if name in data else None
                    os.link(made or self._copy(name, sources[name]), at)
            try:
                os.rename(building, tree)
            except OSError as exc:  # made meanwhile by another process
                if exc.errno not in (errno.EEXIST, errno.ENOTEMPTY):
                    raise
        finally:
            if os.path.isdir(building):
                shutil.rmtree(building, ignore_errors=True)

    def _keep(self, name: str, data: bytes) -> str:
        """The store's copy ``name`` holding ``data`` (written if missing)."""
        copy = os.path.join(self.files, name)
        if not os.path.exists(copy):
            temporary = os.path.join(self.files, f".new-{secrets.token_hex(8)}")
            with open(temporary, "xb") as out:
                out.write(data)
            os.chmod(temporary, 0o444)
            _publish(temporary, copy)
        return copy

    def _copy(self, name: str, source: str) -> str:
        """The store's copy ``name`` of ``source`` (made if missing)."""
        copy = os.path.join(self.files, name)
        if os.path.exists(copy):
            return copy
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        fd = os.open(source, flags)
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise OSError(errno.EINVAL, "not a regular file", source)
            temporary = os.path.join(self.files, f".new-{secrets.token_hex(8)}")
            mode = 0o555 if info.st_mode & 0o111 else 0o444
            out = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
            try:
                try:
                    while os.sendfile(out, fd, None, 1 << 30):
                        pass
                except OSError:  # no sendfile between these file systems: read and write
                    os.lseek(fd, 0, os.SEEK_SET)
                    os.ftruncate(out, 0)
                    os.lseek(out, 0, os.SEEK_SET)
                    while chunk := os.read(fd, 1 << 20):
                        os.write(out, chunk)
                os.fchmod(out, mode)
                os.utime(out, ns=(info.st_atime_ns, info.st_mtime_ns))  # compiled modules check it
            finally:
                os.close(out)
            _publish(temporary, copy)
        finally:
            os.close(fd)
        return copy

    def collect(self, *, keep_s: float | None = None) -> None:
        """Remove the views no live process has held for ``keep_s`` (default ``KEEP_S``) and
        the copies no view links (skipped while another process makes or collects one)."""
        keep_s = KEEP_S if keep_s is None else keep_s
        try:
            with _Flock(os.path.join(self.root, ".lock"), fcntl.LOCK_EX | fcntl.LOCK_NB):
                removed = False
                for name in os.listdir(self.trees):
                    if name.endswith(".lock"):
                        removed |= self._collect_tree(name[: -len(".lock")], keep_s)
                    elif name.startswith(".new-"):
                        shutil.rmtree(os.path.join(self.trees, name), ignore_errors=True)
                        removed = True
                if not removed:  # every copy is linked from a view still there
                    return
                with os.scandir(self.files) as entries:
                    for entry in entries:
                        if entry.stat(follow_symlinks=False).st_nlink <= 1:
                            os.unlink(entry.path)
        except BlockingIOError:
            return
        except OSError as exc:
            log.debug("views not collected: %s", exc)

    def _collect_tree(self, name: str, keep_s: float) -> bool:
        """Remove view ``name`` if no process holds it and none has for ``keep_s``."""
        lock = os.path.join(self.trees, f"{name}.lock")
        fd = os.open(lock, os.O_RDONLY | os.O_CLOEXEC)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if time.time() - os.fstat(fd).st_mtime < keep_s:
                return False
        except BlockingIOError:
            return False
        finally:
            os.close(fd)
        shutil.rmtree(os.path.join(self.trees, name), ignore_errors=True)
        os.unlink(lock)
        return True

    def close(self) -> None:
        """Let go of this process's views and collect what no one holds; the last process
        of the user to close empties the store (nothing is left in memory after the arena)."""
        with self._lock:
            for fd, _ in self._held.values():
                os.utime(fd)
                os.close(fd)
            self._held.clear()
            self._views.clear()
            if not self._ready:
                return
            self._ready = False
            last = False
            try:
                fcntl.flock(self._user, fcntl.LOCK_EX | fcntl.LOCK_NB)  # no other user left
                last = True
            except BlockingIOError:
                pass
            try:
                self.collect(keep_s=0 if last else None)
            finally:
                os.close(self._user)
                self._user = -1


def _publish(temporary: str, copy: str) -> None:
    """Name the file ``temporary`` ``copy``, unless another process made a copy of that name
    meanwhile (of the same content): a copy's name is never replaced, for a process that found
    the one it replaced could not link it into its view (a file whose last name is gone cannot
    be linked: ENOENT)."""
    try:
        os.link(temporary, copy)
    except FileExistsError:
        pass
    finally:
        os.unlink(temporary)


class _Flock:
    """A ``flock`` on a lock file, for a ``with`` block."""

    def __init__(self, path: str, operation: int) -> None:
        self.path, self.operation, self.fd = path, operation, -1

    def __enter__(self) -> _Flock:
        self.fd = os.open(self.path, os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(self.fd, self.operation)
        except OSError:
            os.close(self.fd)
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        os.close(self.fd)


_store: Store | None = None


def store() -> Store:
    """This process's store of views (one per process)."""
    global _store
    if _store is None:
        _store = Store()
    return _store


def chain(path: str) -> tuple[list[tuple[str, str]], str]:
    """The links met on the way to ``path`` (each as its path and target) and the real path
    reached (as ``os.path.realpath`` would, keeping each link)."""
    links: list[tuple[str, str]] = []
    parts = [p for p in path.split("/") if p]
    current = "/"
    hops = 0
    while parts:
        part = parts.pop(0)
        if part == ".":
            continue
        if part == "..":
            current = os.path.dirname(current)
            continue
        following = os.path.join(current, part)
        if os.path.islink(following):
            hops += 1
            if hops > 40:
                raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), path)
            target = os.readlink(following)
            links.append((following, target))
            if target.startswith("/"):
                current = "/"
            parts = [p for p in target.split("/") if p] + parts
            continue
        current = following
    return links, current


def part(
    entries: Iterable[Entry],
    *,
    hidden: Sequence[str] = (),
    shown: Sequence[str] = (),
    counted: Sequence[str] = (),
    folders: Iterable[str] = (),
) -> Part:
    """The part of a view that shows ``entries`` (with the libraries of the binaries in the
    folders it shows whole), leaving out ``hidden`` paths but what lies in ``shown``;
    ``folders`` are made empty if not shown. Raises TooBig when a folder in ``counted`` holds
    too much."""
    hidden_but = (tuple(hidden), tuple(shown))
    made = Part()
    todo = list(entries)
    done: set[Entry] = set()
    while todo:
        entry = todo.pop(0)
        if entry in done:
            continue
        done.add(entry)
        links, real = chain(entry.path)
        if not entry.at:
            for link, target in links:
                made.folder(os.path.dirname(link))
                made.add(Item(link, "link", target))
                made.roots.append(os.path.dirname(link))  # (a link under /tmp is bound too)
        if _hidden(real, *hidden_but):
            continue
        made.roots.append(entry.at or real)
        if entry.whole and os.path.isdir(real):
            budget = [MAX_FOLDER_BYTES, MAX_FOLDER_ENTRIES] if entry.path in counted else None
            _walk(made, entry, real, hidden_but, budget)
        elif os.path.isfile(real):
            _file(made, real, os.lstat(real), entry.at or real)
            if entry.whole:
                made.binaries.append(real)
        elif os.path.isdir(real):
            made.folder(entry.at or real)
        for binary in made.binaries:
            todo += [Entry(path) for path in runtime.elf_libraries(binary)]
        made.binaries.clear()
    for folder in folders:
        made.folder(folder)
    return made.seal()


def made_part(files: dict[str, bytes]) -> Part:
    """The part of a view that shows files made here (view path -> content)."""
    made = Part()
    for path, data in sorted(files.items()):
        name = "m" + hashlib.sha256(data).hexdigest()[: _DIGITS - 1]
        made.folder(os.path.dirname(path))
        made.add(Item(path, "file", name))
        made.data[name] = data
        made.roots.append(path)
    return made.seal()


def _file(made: Part, path: str, info: os.stat_result, shown: str) -> None:
    """Add file ``path`` (with ``info``, its ``lstat``), shown at ``shown``."""
    stamp = (path, info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    name = hashlib.sha256(repr(stamp).encode()).hexdigest()[:_DIGITS]
    name += "x" if info.st_mode & 0o111 else ""
    made.folder(os.path.dirname(shown))
    made.add(Item(shown, "file", name))
    made.sources[name] = path


def _walk(
    made: Part,
    entry: Entry,
    real: str,
    hidden_but: tuple[tuple[str, ...], tuple[str, ...]],
    budget: list[int] | None,
) -> None:
    """Add folder ``real`` (shown whole by ``entry``, at ``entry.at`` if it says) and all it
    holds."""
    at = entry.at or real
    inner = [h for h in hidden_but[0] if _inside(h, [real])]
    if not inner:  # nothing below is hidden: no path needs a look
        hidden_but = ((), ())

    def shown(path: str) -> str:
        return at + path[len(real) :]

    made.folder(at)
    for root, folders, files in os.walk(real):
        keep = []
        for name in sorted(folders):
            path = os.path.join(root, name)
            if runtime.left_out(entry, name) or (inner and _hidden(path, *hidden_but)):
                continue
            if os.path.islink(path):
                made.add(Item(shown(path), "link", os.readlink(path)))
            else:
                made.folder(shown(path))
                keep.append(name)
        folders[:] = keep
        for name in files:
            path = os.path.join(root, name)
            if runtime.left_out(entry, name) or (inner and _hidden(path, *hidden_but)):
                continue
            info = os.lstat(path)
            if budget is not None:
                budget[0] -= info.st_size
                budget[1] -= 1
                if budget[0] < 0 or budget[1] < 0:
                    raise TooBig(entry.path)
            if stat.S_ISLNK(info.st_mode):
                made.add(Item(shown(path), "link", os.readlink(path)))
            elif stat.S_ISREG(info.st_mode):
                _file(made, path, info, shown(path))
                if runtime.may_be_binary(root, name):
                    made.binaries.append(path)


def _hidden(path: str, hidden: Sequence[str], shown: Sequence[str]) -> bool:
    """Whether ``path`` is left out: inside a hidden path, and not inside one shown."""
    return _inside(path, hidden) and not _inside(path, shown)


def _inside(path: str, folders: Sequence[str]) -> bool:
    return any(path == f or path.startswith(f.rstrip("/") + "/") for f in folders)
