"""The files a command bot's command line names: hashed at registration, checked before each run.

A command bot (``arena bot add NAME -- COMMAND...``) runs files the arena does not copy: the
program when it is given as a path (``./mybot``, ``/opt/bots/mybot``) and every argument that
names an existing regular file (``python mybot.py``, ``java -jar bot.jar``). Each is recorded at
registration by its resolved path and the SHA-256 of its bytes, and the bot's version is the
hash of its command line and of those records (``command_version``). Before each run
(``tournament run``, ``arena match``, ``arena play``, ``arena bot check``) the command's files
are found and hashed again (``changes``): if one changed or went missing, or the command now
names another file (a relative path run from another folder), the bot is refused, naming the
file, until it is registered again (``arena bot add NAME --replace``).

Every run checks them again before each phase's processes start, and before each process
starts (``tournaments.catalogue.lookup.PlannedCode``): a file changed during a run stops it.
A file that any user may write (mode ``o+w``, or in a folder any user may write without the
sticky bit) is refused: the bot itself could rewrite it, between a check and the moment a
process reads it.

Not covered: a program found on ``PATH`` (``python3``, ``node``: the system's), a module of
``-m``, what a named folder holds, and what the program reads by itself. A folder bot
(``tournaments.catalogue.botcopies``) covers its whole folder.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Sequence

from tournaments.catalogue.botcopies import MAX_BYTES, VERSION_DIGITS, BotFilesError

__all__ = ["changes", "command_version", "named_files", "record"]

#: A recorded file: its resolved path and the SHA-256 (hex) of its bytes.
FileRecord = tuple[str, str]


def named_files(argv: Sequence[str], cwd: str) -> list[str]:
    """The regular files ``argv`` names, resolved from ``cwd`` (links followed: what runs):
    the program if it is a path, and every argument that names an existing file."""
    found = []
    for index, arg in enumerate(argv):
        if not arg or (index and arg.startswith("-")):
            continue
        if index == 0 and os.sep not in arg:
            continue  # found on PATH
        path = os.path.realpath(os.path.join(cwd, arg))
        if os.path.isfile(path):
            found.append(path)
    return list(dict.fromkeys(found))


def _sha256(path: str, budget: list[int]) -> str:
    """The SHA-256 of a regular file (opened without blocking: a FIFO swapped in is refused)
    that not every user may change."""
    digest = hashlib.sha256()
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise BotFilesError(f"cannot read {path}: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as file:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise BotFilesError(f"{path} is not a regular file")
        _not_writable_by_all(path, mode)
        for chunk in iter(lambda: file.read(1 << 20), b""):
            budget[0] -= len(chunk)
            if budget[0] < 0:
                raise BotFilesError(
                    f"the files of the bot's command are over {MAX_BYTES >> 20} MiB"
                )
            digest.update(chunk)
    return digest.hexdigest()


def _not_writable_by_all(path: str, mode: int) -> None:
    """Raise BotFilesError if any user may change the file at ``path`` (of ``mode``): write
    it, or replace it in its folder."""
    if mode & stat.S_IWOTH:
        raise BotFilesError(
            f"{path} may be written by any user (mode {stat.S_IMODE(mode):04o}), a bot's own "
            f"processes included: make it `chmod o-w {path}`"
        )
    folder = os.path.dirname(path)
    try:
        folder_mode = os.stat(folder).st_mode
    except OSError:
        return
    if folder_mode & stat.S_IWOTH and not folder_mode & stat.S_ISVTX:
        raise BotFilesError(
            f"{path} is in {folder}, where any user (a bot's own processes included) may "
            f"replace it: make it `chmod o-w {folder}`"
        )


def record(argv: Sequence[str], cwd: str) -> tuple[FileRecord, ...]:
    """Each file ``argv`` names (``named_files``) with the SHA-256 of its bytes."""
    budget = [MAX_BYTES]
    return tuple((path, _sha256(path, budget)) for path in named_files(argv, cwd))


def command_version(command: str, files: Sequence[FileRecord]) -> str:
    """A command bot's version: the hash of its command line and of its files' records."""
    digest = hashlib.sha256(b"arena-command-1\0" + command.encode() + b"\0")
    for path, sha in files:
        digest.update(os.fsencode(path) + b"\0" + sha.encode() + b"\0")
    return digest.hexdigest()[:VERSION_DIGITS]


def changes(recorded: Sequence[FileRecord], argv: Sequence[str], cwd: str) -> str | None:
    """What differs between the files ``argv`` names now and those ``recorded`` (None:
    nothing): the first file changed, gone, no longer named or newly named."""
    named = named_files(argv, cwd)
    budget = [MAX_BYTES]
    for path, sha in recorded:
        if path not in named:
            if not os.path.exists(path):
                return f"{path} is gone"
            return (
                f"its command no longer names {path} (run from another folder?): run the "
                "arena from the folder the bot was registered in, or register it with "
                "absolute paths"
            )
        if _sha256(path, budget) != sha:
            return f"{path} has changed"
    for path in named:
        if path not in {p for p, _ in recorded}:
            return f"its command now names {path}, which is not among its registered files"
    return None
