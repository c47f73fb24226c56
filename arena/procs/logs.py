"""Bot output: bounded per-bot log files, written by a background thread.

A bot's standard output and error go to one pipe. A daemon thread drains the pipe at once,
whatever the bot writes, so the bot never blocks on a full pipe; it keeps the first
``cap`` bytes in the bot's log file and discards the rest (spliced to ``/dev/null`` without
copying where the system allows), then notes how much it discarded.

Logs live in ``arena-logs/`` next to the results database, one folder per bot name and one file
per entrant or seat label: ``arena-logs/BOT/LABEL.log``. When a new process starts for a label
whose log is already full, the old log is kept as ``LABEL.log.1``. ``arena bot logs NAME``
prints them.
"""

from __future__ import annotations

import fcntl
import logging
import os
import threading
from pathlib import Path

from arena.text import printable

log = logging.getLogger(__name__)

#: Folder name of the logs, next to the database.
LOG_FOLDER = "arena-logs"
#: Bytes the arena asks the kernel to buffer in each bot's output pipe.
PIPE_BYTES = 1 << 20
_CHUNK = 1 << 16


def safe_name(text: str) -> str:
    """A file name for a bot name or label (letters, digits, ``-_.#``; nothing else)."""
    name = "".join(ch if ch.isalnum() or ch in "-_#." else "_" for ch in text)[:80]
    return name.lstrip(".") or "_"


def logs_folder(db_path: Path) -> Path:
    """Where bot logs live for the database at ``db_path``."""
    return db_path.expanduser().resolve().parent / LOG_FOLDER


def log_path(log_dir: Path, bot: str, label: str) -> Path:
    return log_dir / safe_name(bot) / f"{safe_name(label)}.log"


def bot_logs(log_dir: Path, bot: str) -> list[Path]:
    """The log files of bot ``bot``, oldest first."""
    folder = log_dir / safe_name(bot)
    if not folder.is_dir():
        return []
    files = [p for p in folder.iterdir() if p.is_file() and ".log" in p.name]
    return sorted(files, key=lambda p: (p.stat().st_mtime, p.name))


class CappedLog:
    """Drain a pipe into a file, keeping at most ``cap`` bytes (the rest is discarded).

    ``cap`` 0 keeps everything (no limit).
    """

    def __init__(self, path: Path, *, cap: int) -> None:
        self.path = path
        self.cap = cap if cap > 0 else 1 << 62
        self.kept = 0
        self.discarded = 0
        path.parent.mkdir(parents=True, exist_ok=True)
        os.chmod(path.parent, 0o700)  # a bot's log is its hand: for the arena only
        if cap > 0 and path.exists() and path.stat().st_size >= cap:
            os.replace(path, path.with_name(path.name + ".1"))
        self.read_fd, self.write_fd = os.pipe()
        try:
            fcntl.fcntl(self.read_fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
        except (OSError, AttributeError):
            pass
        self._thread = threading.Thread(
            target=self._drain, name=f"arena-log:{path.name}", daemon=True
        )

    def start(self) -> None:
        """Start draining; call once the child holds the write end (it is closed here)."""
        os.close(self.write_fd)
        self.write_fd = -1
        self._thread.start()

    def abandon(self) -> None:
        """Close both ends without draining (the child never started)."""
        for fd in (self.read_fd, self.write_fd):
            if fd >= 0:
                os.close(fd)
        self.read_fd = self.write_fd = -1

    def wait(self, timeout: float) -> bool:
        """Wait until the pipe is closed by every writer; True if it was."""
        if self._thread.ident is None:
            return True
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _drain(self) -> None:
        fd = self.read_fd
        try:
            with open(self.path, "ab", buffering=0) as out:
                while self.kept < self.cap:
                    data = os.read(fd, _CHUNK)
                    if not data:
                        return
                    room = self.cap - self.kept
                    out.write(data[:room])
                    self.kept += min(room, len(data))
                    self.discarded += max(0, len(data) - room)
                self._discard(fd)
                out.write(
                    f"\n[arena: output over {self.cap} bytes discarded: "
                    f"{self.discarded} bytes]\n".encode()
                )
        except OSError as exc:
            log.warning("bot log %s: %s", self.path, exc)
        finally:
            os.close(fd)

    def _discard(self, fd: int) -> None:
        """Read and drop everything until the pipe closes."""
        splice = getattr(os, "splice", None)
        with open(os.devnull, "wb") as null:
            while True:
                if splice is not None:
                    try:
                        moved = splice(fd, null.fileno(), 1 << 20)
                    except OSError:
                        splice = None
                        continue
                else:
                    moved = len(os.read(fd, 1 << 20))
                if not moved:
                    return
                self.discarded += moved


def tail(path: Path, limit: int) -> str:
    """The last lines (at most ``limit`` bytes, three lines) of a log, on one line, with
    control characters escaped (a bot's output is hostile text)."""
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - limit))
            data = handle.read().decode("utf-8", "replace")
    except OSError:
        return ""
    return printable(" | ".join(line.strip() for line in data.strip().splitlines()[-3:]))
