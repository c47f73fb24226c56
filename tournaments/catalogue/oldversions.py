"""How bots registered before the arena kept copies (schema version 8) were versioned.

Such a bot has no copy (a folder bot runs from its own folder) and no record of its command's
files; its version is the hash these functions compute. Before it runs, the hash is computed
again and must be its version: a bot changed since it was registered is refused (register it
again with ``arena bot add ... --replace``: it then gets a copy, or its files recorded, and a
version of the new kind, ``tournaments.catalogue.botcopies`` and
``tournaments.catalogue.commandfiles``).

These hashes read regular files only (a link counts by its target, never followed; a FIFO or a
device by its kind), up to ``MAX_HASHED_BYTES``. The folder hash skips the folders in
``SKIP_DIRS`` and folders reached through a link: the weakness the copies remove.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tournaments.errors import TournamentError

__all__ = ["command_version", "folder_version"]

#: Folders the old folder hash left out.
SKIP_DIRS = {"__pycache__", ".git", ".venv", "node_modules", ".mypy_cache", ".pytest_cache"}
#: The most bytes of a bot's files a version hash reads (a bigger bot folder is refused).
MAX_HASHED_BYTES = 1 << 30


def _hash_file(digest: Any, path: Path, budget: list[int]) -> None:
    """Add one entry of a bot's files to ``digest``: a regular file's bytes, a link's target
    (never followed), or only the kind of anything else (a FIFO or a device is never opened,
    so a hostile folder cannot make the hash block or read without end)."""
    try:
        info = os.lstat(path)
    except OSError:
        return
    if stat.S_ISLNK(info.st_mode):
        digest.update(b"link:" + os.fsencode(os.readlink(path)))
    elif not stat.S_ISREG(info.st_mode):
        digest.update(b"special:" + str(stat.S_IFMT(info.st_mode)).encode())
    else:
        budget[0] -= info.st_size
        if budget[0] < 0:
            raise TournamentError(
                f"the bot's files are over {MAX_HASHED_BYTES >> 20} MiB; keep data elsewhere"
            )
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            return
        with os.fdopen(fd, "rb") as file:
            for chunk in iter(lambda: file.read(1 << 20), b""):
                digest.update(chunk)


def folder_version(folder: Path) -> str:
    """The old hash of the files under ``folder`` (names and contents, in a fixed order)."""
    digest = hashlib.sha256()
    budget = [MAX_HASHED_BYTES]
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in sorted(files):
            path = Path(root) / name
            digest.update(str(path.relative_to(folder)).encode() + b"\0")
            _hash_file(digest, path, budget)
            digest.update(b"\0")
    return digest.hexdigest()[:12]


def command_version(argv: Sequence[str], cwd: str | None = None) -> str:
    """The old hash of a command line and of each file it names that exists."""
    digest = hashlib.sha256("\0".join(argv).encode())
    budget = [MAX_HASHED_BYTES]
    for arg in argv:
        path = Path(cwd or ".") / arg
        if path.is_file():
            _hash_file(digest, path.resolve(), budget)
    return digest.hexdigest()[:12]
