"""Special files (FIFOs, sockets, devices) in the folders the sandbox shows a bot.

The sandbox shows a bot's own folder read-only, but a FIFO opens for writing even on a
read-only file system: two processes that see one FIFO can talk through it (two processes of
one bot at one table, or two entrants of that bot), and a socket connects them to whatever
listens on it. So the sandbox refuses to show a folder holding anything but regular files,
folders and symbolic links (which are never followed here: a link leads only where the sandbox
shows). A bot's folder is checked each time one of its processes starts.
"""

from __future__ import annotations

import os
import stat

#: The most entries one folder's check visits before it refuses the folder.
MAX_ENTRIES = 100_000
_KINDS = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
}


class TooManyEntries(Exception):
    """A folder holds more than ``MAX_ENTRIES`` entries."""


def first_special(folder: str) -> tuple[str, str] | None:
    """The first special file under ``folder`` (its path relative to ``folder`` and what it
    is), or None. Raises TooManyEntries past ``MAX_ENTRIES`` entries."""
    seen = 0
    todo = [folder]
    while todo:
        current = todo.pop()
        try:
            entries = list(os.scandir(current))
        except OSError:
            continue  # not readable here: not readable by the bot either
        for entry in sorted(entries, key=lambda e: e.name):
            seen += 1
            if seen > MAX_ENTRIES:
                raise TooManyEntries(folder)
            if entry.is_symlink() or entry.is_file(follow_symlinks=False):
                continue
            if entry.is_dir(follow_symlinks=False):
                todo.append(entry.path)
                continue
            try:
                kind = _KINDS.get(stat.S_IFMT(entry.stat(follow_symlinks=False).st_mode))
            except OSError:
                continue
            if kind is not None:
                return os.path.relpath(entry.path, folder), kind
    return None
