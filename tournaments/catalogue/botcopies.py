"""The arena's own copies of folder bots: content-addressed, read-only, beside the database.

``arena bot add FOLDER`` copies the folder into ``arena-bots/DIGEST/`` next to the results
database (beside ``arena-logs/``), and the bot runs from that copy (its working folder):
editing, adding or rebuilding files in the original folder changes nothing until the bot is
registered again. DIGEST is the SHA-256 of the copy's content (``tree_digest``) and the bot's
version is its first ``VERSION_DIGITS`` hex digits: the same content registered again is the
same version, any change a new one. A copy is never changed or removed once a bot version
names it, so a tournament can always run the version it was planned with.

What a copy holds, and what its digest covers, in a fixed order (names sorted by their bytes):

- every folder, by its path (empty ones too);
- every regular file: its path, whether it is executable (the one mode bit that changes what
  runs) and its bytes;
- every symbolic link: its path and its target, kept as a link. A link must stay inside the
  folder: one that is absolute, or leads out of the folder (through ``..`` or through other
  links), is refused, naming it;
- nothing else: a FIFO, a socket or a device is refused, naming it; so is a folder nested
  over ``MAX_DEPTH`` levels deep. Caches and version control
  (``SKIP_DIRS``: ``__pycache__``, ``.git``...) are left out; ``node_modules`` and the like are
  copied, since they run.

The folder is read through descriptors relative to their parent folder, never following a link,
and each file is checked to be a regular file once opened: a folder changed while it is copied
cannot make the arena copy (and show a bot) a file from outside it, or block on a FIFO. A copy
is at most ``MAX_BYTES`` and ``MAX_ENTRIES``.

Copies are read-only (files 0444, or 0555 when executable; folders 0555) and owned by the
arena's user; ``arena-bots/`` itself is 0711 (a bot user reaches a copy by its full digest but
lists none), and the sandbox hides the whole store but the bot's own copy. Their owner could
still change them (an unsandboxed bot of an ordinary user runs as that user), so a copy's
content is hashed again whenever a bot is about to run from it (``BotCopies.checked``: before
each run and each of its phases), and an altered copy is refused.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import stat
import struct
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tournaments.errors import BotChanged, TournamentError

__all__ = [
    "BOTS_FOLDER",
    "BotCopies",
    "BotFilesError",
    "Copy",
    "SKIP_DIRS",
    "tree_digest",
    "version_of",
]

log = logging.getLogger(__name__)

#: Folder name of the copies, next to the database.
BOTS_FOLDER = "arena-bots"
#: Folders left out of a copy: caches and version control, which no bot needs to run.
SKIP_DIRS = frozenset(
    {"__pycache__", ".git", ".hg", ".svn", ".mypy_cache", ".pytest_cache", ".ruff_cache"}
)
#: The most bytes of files, and the most entries, a bot folder may hold, and how deep its
#: folders may nest (a path of thousands of levels would exhaust the walk's recursion).
MAX_BYTES = 1 << 30
MAX_ENTRIES = 100_000
MAX_DEPTH = 64
#: Hex digits of the digest that make a folder bot's version.
VERSION_DIGITS = 12
_CHUNK = 1 << 20
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


class BotFilesError(TournamentError):
    """A bot folder cannot be copied: a link out of it, a FIFO or device, too big, unreadable."""


def version_of(digest: str) -> str:
    """A folder bot's version: the first digits of its copy's digest."""
    return digest[:VERSION_DIGITS]


class _Digest:
    """The content digest of a tree, fed entry by entry in walk order."""

    def __init__(self) -> None:
        self.hash = hashlib.sha256(b"arena-bot-tree-1\0")
        self.budget = MAX_BYTES

    def _entry(self, kind: bytes, *fields: bytes) -> None:
        self.hash.update(kind)
        for data in fields:
            self.hash.update(struct.pack(">Q", len(data)) + data)

    def folder(self, rel: str) -> None:
        self._entry(b"d", os.fsencode(rel))

    def file(self, rel: str, executable: bool, fd: int, out: int | None = None) -> None:
        content = hashlib.sha256()
        size = 0
        while chunk := os.read(fd, _CHUNK):
            size += len(chunk)
            if size > self.budget:
                raise BotFilesError(f"its files are over {MAX_BYTES >> 20} MiB")
            content.update(chunk)
            if out is not None:
                _write_all(out, chunk)
        self.budget -= size
        kind = b"x" if executable else b"f"
        self._entry(kind, os.fsencode(rel), struct.pack(">Q", size), content.digest())

    def link(self, rel: str, target: str) -> None:
        self._entry(b"l", os.fsencode(rel), os.fsencode(target))

    def hexdigest(self) -> str:
        return self.hash.hexdigest()


class _Copier(_Digest):
    """A digest that also writes each entry under ``target`` (a folder of the arena's own)."""

    def __init__(self, target: Path) -> None:
        super().__init__()
        self.target = target
        self.folders: list[Path] = []
        self.links: list[Path] = []

    def folder(self, rel: str) -> None:
        super().folder(rel)
        path = self.target / rel
        path.mkdir(mode=0o700)
        self.folders.append(path)

    def file(self, rel: str, executable: bool, fd: int, out: int | None = None) -> None:
        path = self.target / rel
        out = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        try:
            super().file(rel, executable, fd, out)
        finally:
            os.close(out)
        os.chmod(path, 0o555 if executable else 0o444)

    def link(self, rel: str, target: str) -> None:
        super().link(rel, target)
        path = self.target / rel
        os.symlink(target, path)
        self.links.append(path)

    def seal(self) -> None:
        """Check that every link resolves inside the copy, then make its folders read-only."""
        root = os.path.realpath(self.target)
        for path in self.links:
            if not _inside(os.path.realpath(path), root):
                rel = path.relative_to(self.target)
                raise BotFilesError(
                    f"{str(rel)!r} links to {os.readlink(path)!r}, which leads out of the "
                    "folder (through other links); make it a copy or a link inside"
                )
        for path in reversed(self.folders):
            os.chmod(path, 0o555)
        os.chmod(self.target, 0o555)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _names(dir_fd: int) -> list[str]:
    return sorted(os.listdir(dir_fd), key=os.fsencode)


def _walk(dir_fd: int, rel: str, visit: _Digest, counted: list[int]) -> None:
    """Visit every entry under the open folder ``dir_fd`` (at ``rel`` in the tree)."""
    for name in _names(dir_fd):
        path = f"{rel}/{name}" if rel else name
        counted[0] += 1
        if counted[0] > MAX_ENTRIES:
            raise BotFilesError(f"it holds over {MAX_ENTRIES} entries")
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        shown = repr(path)  # a name the bot's author chose: escaped
        if stat.S_ISDIR(info.st_mode):
            if name in SKIP_DIRS:
                continue
            if path.count("/") >= MAX_DEPTH:
                raise BotFilesError(f"{shown} is nested over {MAX_DEPTH} folders deep")
            fd = os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
            try:
                visit.folder(path)
                _walk(fd, path, visit, counted)
            finally:
                os.close(fd)
        elif stat.S_ISLNK(info.st_mode):
            target = os.readlink(name, dir_fd=dir_fd)
            inside = os.path.normpath(os.path.join(os.path.dirname(path), target))
            if os.path.isabs(target) or inside == ".." or inside.startswith("../"):
                raise BotFilesError(
                    f"{shown} links to {target!r}, out of the folder; make it a copy "
                    "or a link inside the folder"
                )
            visit.link(path, target)
        elif stat.S_ISREG(info.st_mode):
            fd = os.open(name, _FILE_FLAGS, dir_fd=dir_fd)
            try:
                opened = os.fstat(fd)
                if not stat.S_ISREG(opened.st_mode):
                    raise BotFilesError(f"{shown} changed while it was read; try again")
                visit.file(path, bool(opened.st_mode & stat.S_IXUSR), fd)
            finally:
                os.close(fd)
        else:
            raise BotFilesError(
                f"{shown} is not a regular file, a folder or a link (a FIFO, socket or "
                "device); remove it from the bot's folder"
            )


def _read_tree(folder: Path, visit: _Digest) -> None:
    try:
        fd = os.open(folder, _DIR_FLAGS)
    except OSError as exc:
        raise BotFilesError(f"cannot read the bot folder {folder}: {exc.strerror}") from None
    try:
        _walk(fd, "", visit, [0])
    except BotFilesError as exc:
        raise BotFilesError(f"the bot folder {folder}: {exc}") from None
    except OSError as exc:
        raise BotFilesError(f"cannot read the bot folder {folder}: {exc}") from None
    finally:
        os.close(fd)


def tree_digest(folder: Path) -> str:
    """The SHA-256 (hex) of a folder's content, as a copy of it would have it. Raises
    BotFilesError for what a copy refuses."""
    digest = _Digest()
    _read_tree(folder, digest)
    return digest.hexdigest()


@dataclass(frozen=True)
class Copy:
    """A bot folder's copy in the store: its digest, where it is, and whether this call made
    it (``new``: nothing else names it yet)."""

    digest: str
    path: Path
    new: bool

    @property
    def version(self) -> str:
        return version_of(self.digest)


@dataclass(frozen=True)
class BotCopies:
    """The store of copies in ``root`` (``arena-bots/`` beside a database)."""

    root: Path

    @classmethod
    def beside(cls, db_path: str | os.PathLike[str]) -> BotCopies:
        """The store of the database at ``db_path``."""
        return cls(Path(db_path).expanduser().resolve().parent / BOTS_FOLDER)

    def path(self, digest: str) -> Path:
        return self.root / digest

    def find(self, digest: str) -> Path:
        """The copy with ``digest``; raises BotFilesError if it is gone."""
        path = self.path(digest)
        if not path.is_dir():
            raise BotFilesError(
                f"the arena's copy {path} of this bot version is gone (a database moves with "
                f"its {BOTS_FOLDER}/ folder); register the bot again"
            )
        return path

    def checked(self, digest: str) -> Path:
        """The copy with ``digest``, its content hashed again and found to be that digest's.
        Raises BotFilesError if it is gone, BotChanged if it was altered."""
        path = self.find(digest)
        try:
            found = tree_digest(path)
        except BotFilesError as exc:
            found = f"unreadable ({exc})"
        if found != digest:
            raise BotChanged(
                f"the arena's copy {path} was altered since it was made (its content is now "
                f"{found[:VERSION_DIGITS]}, not {digest[:VERSION_DIGITS]})"
            )
        return path

    def add(self, source: Path) -> Copy:
        """Copy the folder ``source`` into the store (unless a copy of the same content is
        there already); raises BotFilesError naming what cannot be copied."""
        self.root.mkdir(parents=True, exist_ok=True)
        os.chmod(self.root, 0o711)
        work = Path(tempfile.mkdtemp(prefix=".new-", dir=self.root))
        try:
            target = work / "copy"
            target.mkdir(mode=0o700)
            copier = _Copier(target)
            _read_tree(source, copier)
            try:
                copier.seal()
            except BotFilesError as exc:
                raise BotFilesError(f"the bot folder {source}: {exc}") from None
            digest = copier.hexdigest()
            final = self.path(digest)
            if final.is_dir() and self._intact(final, digest):
                return Copy(digest, final, new=False)
            if final.exists() or final.is_symlink():
                log.warning("the copy %s was altered: replacing it", final)
                _remove(final)
            try:
                os.rename(target, final)
            except OSError:
                if final.is_dir() and self._intact(final, digest):  # made meanwhile
                    return Copy(digest, final, new=False)
                raise
            return Copy(digest, final, new=True)
        except OSError as exc:
            raise BotFilesError(f"cannot copy the bot folder {source}: {exc}") from None
        finally:
            _remove(work)

    def _intact(self, path: Path, digest: str) -> bool:
        try:
            return tree_digest(path) == digest
        except BotFilesError:
            return False

    def discard(self, copy: Copy) -> None:
        """Remove a copy this process just made and nothing names (its bot failed its check)."""
        if copy.new:
            _remove(copy.path)


def _remove(path: Path) -> None:
    """Remove a read-only tree of the arena's own (its folders made writable first)."""
    if path.is_symlink() or path.is_file():
        path.unlink()
        return
    if not path.exists():
        return
    for folder in _folders(path):
        os.chmod(folder, 0o700)
    shutil.rmtree(path, ignore_errors=True)


def _folders(path: Path) -> Iterator[Path]:
    yield path
    for root, dirs, _ in os.walk(path):
        for name in dirs:
            yield Path(root) / name
