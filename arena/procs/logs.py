"""Bot output: bounded, time-stamped per-process log files that say which game each line is of.

A bot's standard output and error go to one pipe. A daemon thread drains the pipe at once,
whatever the bot writes, so the bot never blocks on a full pipe; it keeps the first ``cap``
bytes of the log file and discards the rest (spliced to ``/dev/null`` without copying where
the system allows), then notes how much it discarded.

Every line the bot writes is stored with the time the arena read it and the game it belongs
to where that is known::

    2025-06-01T12:00:00.123Z # game 17 seat 2
    2025-06-01T12:00:00.125Z s0 | thinking about my first move
    2025-06-01T12:00:00.310Z s3 | bid 2
    2025-06-01T12:00:01.002Z # games 18:0 19:2
    2025-06-01T12:00:01.004Z * | a line of one of the games open

The referee tells the log which games the process has open and the step of its last turn
(``open_game``, ``turn``, ``close_game``), and before it changes that context it reads what
already waits in the pipe (``_catch_up``: one ``FIONREAD``, about half a microsecond, and a
read only when something waits), so a line the bot wrote before its answer is kept with the
step it answered, however busy the drain thread is; a line still in the bot's own buffer then
(a program that does not flush) is kept with a later step. A ``#`` line is written only before
a bot line whose context changed, so a silent bot costs nothing. While a process has one game
open, each line carries the step of that game's last turn sent to it (``s3``); with several
open (``max_games`` > 1) a line cannot be told apart between them and is marked ``*``; with
none, ``-``. Only the arena writes the stamp and the tag at the start of a line, so a bot
cannot forge either.
Lines are written whole (a line over ``MAX_LINE`` bytes is cut into several); a last line
without a newline is written when the pipe closes.

Logs live in ``arena-logs/`` next to the results database, one folder per bot name and one file
per process key: ``arena-logs/BOT/LABEL.log``. When a new process starts for a label whose log
is already full, the old log is kept as ``LABEL.log.1``. ``read_log`` parses a file back
(files of older arenas, without stamps, read as lines of no game); ``game_lines`` finds one
game's lines among a bot's files.
"""

from __future__ import annotations

import array
import fcntl
import logging
import os
import re
import select
import termios
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from arena.text import printable, safe_name

log = logging.getLogger(__name__)

#: Folder name of the logs, next to the database.
LOG_FOLDER = "arena-logs"
#: Bytes the arena asks the kernel to buffer in each bot's output pipe.
PIPE_BYTES = 1 << 20
_CHUNK = 1 << 16
#: The longest line kept whole; a longer one is cut into lines of this length.
MAX_LINE = 4096
#: The tag of a line written while the process had no game open, with several open, and with
#: one open before its first turn (after it, ``s`` and the step).
NO_GAME, SEVERAL, STARTED = "-", "*", "start"
#: A stamped line: its time, then ``#`` (a context line) or a tag and `` | ``.
_STAMPED = re.compile(rb"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z) (?:# (.*)|(\S+) \| (.*))$")


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


def _stamp(moment: float) -> bytes:
    whole = int(moment)
    return (
        time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole))
        + f".{int((moment - whole) * 1000):03d}Z"
    ).encode()


def _context_line(games: tuple[tuple[int, int], ...]) -> bytes:
    if not games:
        return b"no game"
    if len(games) == 1:
        return f"game {games[0][0]} seat {games[0][1]}".encode()
    return ("games " + " ".join(f"{game}:{seat}" for game, seat in games)).encode()


class CappedLog:
    """Drain a pipe into a time-stamped log file of at most ``cap`` bytes (the rest is
    discarded), each line with the game and step it belongs to (see the module).

    ``cap`` 0 keeps everything (no limit). A daemon thread drains the pipe; before the
    referee changes a line's context (a turn, a game's start or end) it takes the lock the
    drain thread reads and writes under and reads what is already waiting in the pipe itself
    (``_catch_up``, one non-blocking read), so a line the bot wrote before its answer is kept
    with the step it answered.
    """

    def __init__(self, path: Path, *, cap: int) -> None:
        self.path = path
        self.cap = cap if cap > 0 else 1 << 62
        self.kept = 0
        self.discarded = 0
        self._games: dict[int, int] = {}  # game id -> seat (only the referee's thread sets it)
        # what the drain thread reads, replaced whole: (open games as (id, seat), tag)
        self._context: tuple[tuple[tuple[int, int], ...], bytes] = ((), NO_GAME.encode())
        self._written: tuple[tuple[int, int], ...] | None = None  # the last ``#`` line's games
        self._partial = b""
        self._lock = threading.Lock()  # one reader of the pipe and writer of the file at once
        self._out: BinaryIO | None = None
        self._closed = False  # the pipe is closed (or the log full): nothing more to read
        self._waiting = array.array("i", [0])  # bytes waiting in the pipe (FIONREAD)
        path.parent.mkdir(parents=True, exist_ok=True)
        os.chmod(path.parent, 0o700)  # a bot's log is its hand: for the arena only
        self.read_fd, self.write_fd = os.pipe()
        try:
            fcntl.fcntl(self.read_fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
        except (OSError, AttributeError):
            pass
        self._thread = threading.Thread(
            target=self._drain, name=f"arena-log:{path.name}", daemon=True
        )

    # -- the referee's side: which game a line is of ---------------------------------------

    def open_game(self, game_id: int, seat: int, *, alone: bool = False) -> None:
        """The process starts game ``game_id`` at ``seat`` (``alone``: it serves one game at a
        time, so any game still marked open is over)."""
        games = {} if alone else dict(self._games)
        games[game_id] = seat
        self._switch(games)

    def turn(self, game_id: int, step: int) -> None:
        """A turn of step ``step`` of ``game_id`` is sent to the process."""
        games = self._games
        if len(games) == 1 and game_id in games:
            self._switch(games, b"s%d" % step)

    def close_game(self, game_id: int) -> None:
        if game_id in self._games:
            games = dict(self._games)
            del games[game_id]
            self._switch(games)

    def _switch(self, games: dict[int, int], tag: bytes | None = None) -> None:
        """Change the context of the lines to come: first what is already waiting in the
        pipe is written under the context it was written in. The drain thread reads and
        writes under the lock, and the context changes only under it, so a line the drain
        thread has read is never written under a context set after it was read."""
        if tag is None:
            opened = tuple(sorted(games.items()))
            tag = (NO_GAME if not opened else SEVERAL if len(opened) > 1 else STARTED).encode()
            context = (opened, tag)
        else:
            context = (self._context[0], tag)
        self._games = games
        if self._out is None or self._closed:
            self._context = context
            return
        with self._lock:
            self._catch_up()
            self._context = context

    def _catch_up(self) -> None:
        """Read what is waiting in the pipe now (under the lock). Asking the pipe how much
        waits costs about half a microsecond; nothing more is done when nothing waits."""
        if self._closed:
            return
        try:
            fcntl.ioctl(self.read_fd, termios.FIONREAD, self._waiting, True)
        except OSError:
            return
        if not self._waiting[0]:
            return
        while not self._closed:
            try:
                data = os.read(self.read_fd, _CHUNK)
            except OSError:  # nothing waiting any more (EAGAIN)
                return
            if not data:
                return  # the end: the drain thread sees it too
            self._take(data)
            if len(data) < _CHUNK:
                return

    # -- the drain thread -------------------------------------------------------------------

    def start(self) -> None:
        """Start draining; call once the child holds the write end (it is closed here). A full
        log is moved aside (``.1``) first: a process started ahead of its turn (a warm start,
        ``arena.procs.pool``) starts its log only when it may run, once the process before
        it that wrote the same file is gone."""
        if self.cap < 1 << 62 and self.path.exists() and self.path.stat().st_size >= self.cap:
            os.replace(self.path, self.path.with_name(self.path.name + ".1"))
        os.close(self.write_fd)
        self.write_fd = -1
        os.set_blocking(self.read_fd, False)
        self._out = open(self.path, "ab", buffering=0)  # noqa: SIM115 - the drain closes it
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

    def _take(self, data: bytes) -> None:
        """Some of the bot's output (under the lock): its whole lines are written."""
        lines = (self._partial + data).split(b"\n")
        self._partial = lines.pop()
        pieces = [(line, len(line) + 1) for line in lines]
        while len(self._partial) > MAX_LINE:
            pieces.append((self._partial[:MAX_LINE], MAX_LINE))
            self._partial = self._partial[MAX_LINE:]
        self._write(self._out, pieces)
        if self.kept >= self.cap:
            self._closed = True  # full: the drain thread discards the rest

    def _drain(self) -> None:
        fd, out = self.read_fd, self._out
        poller = select.poll()
        poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
        try:
            while not self._closed:
                poller.poll()
                with self._lock:
                    try:
                        data = os.read(fd, _CHUNK)
                    except BlockingIOError:
                        continue  # the referee read it first
                    if not data:
                        self._closed = True
                        if self._partial:
                            self._write(out, [(self._partial, len(self._partial))])
                        return
                    self._take(data)
            self.discarded += len(self._partial)
            os.set_blocking(fd, True)
            self._discard(fd)
            out.write(
                _stamp(time.time())
                + f" # output over {self.cap} bytes discarded: "
                f"{self.discarded} bytes of it\n".encode()
            )
        except OSError as exc:
            log.warning("bot log %s: %s", self.path, exc)
        finally:
            with self._lock:
                self._closed = True
                os.close(fd)
            out.close()

    def _write(self, out: BinaryIO, lines: list[tuple[bytes, int]]) -> None:
        """Write whole lines (each with the bot's bytes it holds), each stamped and tagged,
        within the cap: the line that does not fit is cut (the rest counts as discarded)."""
        if not lines:
            return
        stamp = _stamp(time.time())
        games, tag = self._context
        parts = []
        room = self.cap - self.kept
        if games != self._written:
            self._written = games
            parts.append(stamp + b" # " + _context_line(games) + b"\n")
            room -= len(parts[0])
        prefix = stamp + b" " + tag + b" | "
        for index, (line, size) in enumerate(lines):
            whole = prefix + line + b"\n"
            if len(whole) <= room:
                parts.append(whole)
                room -= len(whole)
                continue
            kept = max(0, room - len(prefix) - 1)  # full: what fits of this line, then stop
            if kept:
                parts.append(prefix + line[:kept] + b"\n")
            self.discarded += size - kept + sum(rest for _, rest in lines[index + 1 :])
            room = 0
            break
        data = b"".join(parts)
        out.write(data)
        self.kept = self.cap - room if room == 0 else self.kept + len(data)

    def _discard(self, fd: int) -> None:
        """Read and drop everything until the pipe closes."""
        self._partial = b""
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


# -- reading logs back ----------------------------------------------------------------------


@dataclass(frozen=True)
class OutputLine:
    """One line of a bot process's output as its log file keeps it: when the arena read it
    (ISO time, "" in an old file), the games its process had open then (``(game id, seat)``),
    the step of that game's last turn when it had one game open (else None) and the text
    (raw: escape it to show it)."""

    at: str
    games: tuple[tuple[int, int], ...]
    step: int | None
    text: str
    note: bool = False  # the arena's own line (output discarded), not the bot's


def read_log(path: Path, *, since: str = "", until: str | None = None) -> Iterator[OutputLine]:
    """The lines of one log file, with their context (see the module). With ``since`` (a
    time as the log writes it, ``2025-06-01T12:00:00.123Z``), only the lines from then on,
    found by bisection (a log is in time order; an older arena's unstamped lines come first),
    read from the first ``#`` line on (before it their game is not known); with ``until``,
    up to that time."""
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed below
    except OSError:
        return
    with handle:
        known = not since
        if since:
            handle.seek(_first_at(handle, since.encode()))
        games: tuple[tuple[int, int], ...] = ()
        for raw in handle:
            raw = raw.rstrip(b"\n")
            found = _STAMPED.match(raw)
            if found is None:  # an older arena's log: the bot's text as it was
                if known:
                    yield OutputLine("", (), None, raw.decode("utf-8", "replace"))
                continue
            at = found.group(1).decode()
            if until is not None and at > until:
                return
            if found.group(2) is not None:
                context = found.group(2).decode("utf-8", "replace")
                parsed = _parse_context(context)
                if parsed is None:
                    if known:
                        yield OutputLine(at, games, None, context, note=True)
                else:
                    games, known = parsed, True
                continue
            if not known:
                continue
            tag = found.group(3).decode("ascii", "replace")
            step = int(tag[1:]) if tag[:1] == "s" and tag[1:].isdigit() else None
            yield OutputLine(at, games, step, found.group(4).decode("utf-8", "replace"))


def _first_at(handle: BinaryIO, since: bytes) -> int:
    """The offset of the first line stamped at ``since`` or later (a bisection on offsets:
    each offset stands for the first whole line from it on; lines are in time order)."""

    def line_from(offset: int) -> tuple[int, bytes]:
        handle.seek(offset)
        if offset:
            handle.seek(offset - 1)
            if handle.read(1) != b"\n":
                handle.readline()  # the rest of the line the offset fell in
        return handle.tell(), handle.readline()

    handle.seek(0, os.SEEK_END)
    low, high = 0, handle.tell()
    while low < high:
        middle = (low + high) // 2
        _, line = line_from(middle)
        found = _STAMPED.match(line.rstrip(b"\n"))
        if not line or (found is not None and found.group(1) >= since):
            high = middle
        else:
            low = middle + 1
    return line_from(low)[0]


def log_texts(path: Path) -> list[str]:
    """What the bot wrote to one log file, line by line (stamps, tags and the arena's lines
    left out): for tests and tools that look for what a bot printed."""
    return [line.text for line in read_log(path) if not line.note]


def _parse_context(text: str) -> tuple[tuple[int, int], ...] | None:
    """The games of a ``#`` line, or None for a note (output discarded)."""
    words = text.split()
    try:
        if words == ["no", "game"]:
            return ()
        if len(words) == 4 and words[0] == "game" and words[2] == "seat":
            return ((int(words[1]), int(words[3])),)
        if words and words[0] == "games":
            return tuple(
                (int(game), int(seat)) for game, _, seat in (w.partition(":") for w in words[1:])
            )
    except ValueError:
        pass
    return None


@dataclass(frozen=True)
class GameLine:
    """A line of one game's log: its seat, file, the step it is shown at (None: the process
    had several games open, so the line may be another's) and the line."""

    seat: int
    file: str
    step: int | None
    line: OutputLine

    @property
    def shared(self) -> bool:
        return len(self.line.games) > 1


def game_lines(
    files: Iterable[Path],
    game_id: int,
    seats: Iterable[int] | None = None,
    *,
    since: str = "",
    until: str | None = None,
) -> list[GameLine]:
    """The lines written while ``game_id`` was open on a process, from ``files`` (the logs
    of the bots that played it), for ``seats`` (default: all), in time order; ``since`` and
    ``until`` (the game's time, with some slack) spare reading whole files."""
    wanted = None if seats is None else set(seats)
    found: list[GameLine] = []
    for path in files:
        for line in read_log(path, since=since, until=until):
            for game, seat in line.games:
                if game == game_id and (wanted is None or seat in wanted):
                    found.append(GameLine(seat, path.name, line.step, line))
    found.sort(key=lambda g: g.line.at)
    return found


def log_time(moment: float) -> str:
    """A time (seconds since the epoch) as the log writes it."""
    return _stamp(moment).decode()


def tail(path: Path, limit: int) -> str:
    """The last lines (at most ``limit`` bytes, three lines) of a log, on one line, with
    control characters escaped (a bot's output is hostile text)."""
    return printable(" | ".join(output_tail(path, 3, limit=limit)))


def output_tail(path: Path, lines: int, *, limit: int = 16 * 1024) -> list[str]:
    """The text of the last ``lines`` lines the bot wrote (from at most the last ``limit``
    bytes of its log; stamps and tags left out), escaped."""
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - limit))
            data = handle.read()
    except OSError:
        return []
    rows = data.splitlines()
    if size > limit:
        rows = rows[1:]  # the first is cut
    texts = []
    for raw in rows:
        found = _STAMPED.match(raw)
        if found is None:
            text = raw
        elif found.group(2) is not None:
            if _parse_context(found.group(2).decode("utf-8", "replace")) is not None:
                continue
            text = b"[arena: " + found.group(2) + b"]"
        else:
            text = found.group(4)
        text = text.strip()
        if text:
            texts.append(printable(text.decode("utf-8", "replace")))
    return texts[-lines:]
