"""Bots that travel to cluster workers: what each entrant is, and a folder bot's archive.

A tournament on a Dask cluster (``tournaments.cluster``) plays its games on other machines, so
each entrant is described by a ``ShippedBot`` value the workers can rebuild a ``BotSpec`` from:

- a bundled bot by its name (it comes with the arena's package on the worker);
- a command bot by its command line: the program and every file it names must already be on
  each worker (``missing_files`` says which are not);
- a folder bot by a tar archive of its registered folder, made here and unpacked on each worker
  into a private folder, whose version hash (``tournaments.catalogue.folder_version``) must be
  the version the bot was registered with before anything runs.

Archives hold regular files, folders and symbolic links only, and are unpacked with tarfile's
``data`` filter: no absolute names, no ``..``, no link out of the bot's folder, no device.
``unpack_archive`` is the one safe unpacking of the arena: a ladder's uploads use it too. A
folder holding anything else (a FIFO, a device, a link out of the folder) is refused here,
before the run starts, naming the file: every worker would refuse it and stop the run.
"""

from __future__ import annotations

import bz2
import enum
import gzip
import io
import lzma
import os
import shutil
import stat
import tarfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from arena.procs.botproc import BotSpec
from tournaments.catalogue import (
    SKIP_DIRS,
    Catalogue,
    bundled_bots,
    bundled_spec,
    folder_version,
)
from tournaments.errors import ArchiveError, ClusterError
from tournaments.values import TournamentInfo

#: The largest folder bot archive sent to workers (it travels with the run to each worker).
MAX_ARCHIVE_BYTES = 256 << 20


class BotKind(str, enum.Enum):
    """How a worker gets an entrant's program."""

    BUNDLED = "bundled"
    COMMAND = "command"
    FOLDER = "folder"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, kw_only=True)
class ShippedBot:
    """One bot as a worker receives it. ``archive`` holds a folder bot's files (tar bytes);
    ``version`` is the registered version a folder bot's unpacked files must hash to."""

    kind: BotKind
    name: str
    argv: tuple[str, ...] = ()
    folder: str | None = None  # a folder bot's folder on the arena's machine
    version: str = ""
    archive: bytes = b""
    files: tuple[str, ...] = ()  # files a command bot's arguments name (absolute paths)


def shipped_bots(catalogue: Catalogue, info: TournamentInfo) -> dict[str, ShippedBot]:
    """Each entrant label of a tournament with how its bot reaches the workers.

    Raises ClusterError for a remote bot (it joins one listening arena process) and for a folder
    bot whose files no longer hash to its registered version (register it again)."""
    made: dict[str, ShippedBot] = {}
    shipped: dict[str, ShippedBot] = {}
    for entrant in info.entrants:
        if entrant.bot not in made:
            made[entrant.bot] = ship(catalogue, entrant.bot)
        shipped[entrant.name] = made[entrant.bot]
    return shipped


def ship(catalogue: Catalogue, name: str) -> ShippedBot:
    """How bot ``name`` of the catalogue reaches the workers (see ``shipped_bots``)."""
    spec, version = catalogue.lookup(name)
    if spec.remote:
        raise ClusterError(
            f"bot {name!r} is remote: remote bots join one listening arena process, "
            "not a cluster (run without --cluster)"
        )
    if name not in catalogue.registered and name in bundled_bots():
        return ShippedBot(kind=BotKind.BUNDLED, name=name, version=version)
    if spec.cwd is None:
        named = tuple(
            os.path.abspath(arg)
            for arg in spec.argv[1:]
            if not arg.startswith("-") and (os.sep in arg or os.path.isfile(arg))
        )
        return ShippedBot(
            kind=BotKind.COMMAND, name=name, argv=spec.argv, version=version, files=named
        )
    folder = Path(spec.cwd)
    if not folder.is_dir():
        raise ClusterError(f"bot {name!r}: its folder {folder} is gone; register it again")
    now = folder_version(folder)
    if now != version:
        raise ClusterError(
            f"bot {name!r} changed since it was registered (version {version} -> {now}): "
            f"workers only run registered versions; `arena bot add {folder} --replace`"
        )
    return ShippedBot(
        kind=BotKind.FOLDER,
        name=name,
        argv=spec.argv,
        folder=str(folder),
        version=version,
        archive=pack(folder),
    )


def pack(folder: Path) -> bytes:
    """A tar archive of the files a folder bot's version covers (``SKIP_DIRS`` left out):
    regular files, folders and symbolic links inside the folder. Raises ClusterError for
    anything else (a FIFO, a device, a link out of the folder): the workers would refuse it."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for root, dirs, files in os.walk(folder):
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
            for name in [*dirs, *sorted(files)]:
                path = Path(root) / name
                _check_travels(folder, path)
                tar.add(path, arcname=str(path.relative_to(folder)), recursive=False)
                if buffer.tell() > MAX_ARCHIVE_BYTES:
                    raise ClusterError(
                        f"the bot folder {folder} is over {MAX_ARCHIVE_BYTES >> 20} MiB packed"
                    )
    return buffer.getvalue()


def _check_travels(folder: Path, path: Path) -> None:
    """Raise ClusterError, naming the file, for what a worker would refuse to unpack (the run
    would stop there): anything but a regular file, a folder or a symbolic link, and a link to
    an absolute path or out of the bot's folder (tarfile's ``data`` filter)."""
    name = repr(str(path.relative_to(folder)))  # a name the bot's author chose: escaped
    mode = os.lstat(path).st_mode
    if stat.S_ISLNK(mode):
        target = os.readlink(path)
        inside = os.path.normpath(os.path.join(os.path.dirname(name), target))
        if os.path.isabs(target) or inside == ".." or inside.startswith("../"):
            raise ClusterError(
                f"the bot folder {folder}: {name} links to {target!r}, out of the folder; "
                "a cluster worker cannot unpack it (make it a copy or a link inside the folder)"
            )
    elif not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise ClusterError(
            f"the bot folder {folder}: {name} is not a regular file, a folder or a link; "
            "a cluster worker cannot unpack it (remove it)"
        )


def unpack(bot: ShippedBot, target: Path) -> Path:
    """Unpack a folder bot into ``target`` (made here, readable by bot users) and check that
    its files hash to the registered version; returns the folder. Raises ClusterError."""
    try:
        unpack_archive(bot.archive, target, max_bytes=MAX_ARCHIVE_BYTES)
    except ArchiveError as exc:
        raise ClusterError(f"bot {bot.name!r}: its archive cannot be unpacked: {exc}") from None
    found = folder_version(target)
    if found != bot.version:
        raise ClusterError(
            f"bot {bot.name!r}: the unpacked files hash to {found}, not to its registered "
            f"version {bot.version}"
        )
    return target


#: Compressed tar archives ``unpack_archive`` reads, by their first bytes.
_COMPRESSED: tuple[tuple[bytes, Callable[[IO[bytes]], IO[bytes]]], ...] = (
    (b"\x1f\x8b", lambda raw: gzip.GzipFile(fileobj=raw, mode="rb")),
    (b"BZh", lambda raw: bz2.BZ2File(raw, mode="rb")),
    (b"\xfd7zXZ\x00", lambda raw: lzma.LZMAFile(raw, mode="rb")),
)


def _decompressed(archive: bytes, max_bytes: int) -> bytes:
    """The tar bytes of ``archive`` (plain, gzip, bzip2 or xz), never more than ``max_bytes``
    of them (a small archive that unpacks to gigabytes is refused as it is read)."""
    for magic, opener in _COMPRESSED:
        if archive.startswith(magic):
            try:
                with opener(io.BytesIO(archive)) as stream:
                    archive = stream.read(max_bytes + 1)
            except (OSError, EOFError, lzma.LZMAError) as exc:
                raise ArchiveError(f"it is not a readable compressed archive ({exc})") from None
            break
    if len(archive) > max_bytes:
        raise ArchiveError(f"it unpacks to more than {max_bytes >> 20} MiB")
    return archive


def unpack_archive(
    archive: bytes, target: Path, *, max_bytes: int, max_files: int = 100_000
) -> None:
    """Unpack a tar archive (plain, gzip, bzip2 or xz) into ``target``, made here (an old one
    is replaced) and readable by bot users, safely: at most ``max_bytes`` unpacked and
    ``max_files`` entries; regular files, folders and links only (no device, FIFO or socket);
    tarfile's ``data`` filter (no absolute name, no ``..``, no link out of ``target``, no
    set-id bits). Raises ArchiveError naming the first problem; nothing is left on an error."""
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True, mode=0o755)
    try:
        with tarfile.open(fileobj=io.BytesIO(_decompressed(archive, max_bytes)), mode="r:") as tar:
            members = tar.getmembers()
            if len(members) > max_files:
                raise ArchiveError(f"it holds more than {max_files} files")
            for member in members:
                if member.name.startswith(("/", "\\")):
                    raise ArchiveError(f"{member.name!r} is an absolute name")
                if not (member.isreg() or member.isdir() or member.issym() or member.islnk()):
                    raise ArchiveError(f"{member.name!r} is not a regular file, a folder or a link")
            tar.extractall(target, members=members, filter="data")
    except (tarfile.TarError, OSError, ArchiveError) as exc:
        shutil.rmtree(target, ignore_errors=True)
        if isinstance(exc, ArchiveError):
            raise
        if isinstance(exc, tarfile.FilterError):  # a name or link out of the folder
            raise ArchiveError(str(exc)) from None
        if isinstance(exc, tarfile.TarError):
            raise ArchiveError(f"it is not a readable tar archive ({exc})") from None
        raise ArchiveError(str(exc) or type(exc).__name__) from None
    for root, dirs, files in os.walk(target):  # bots run as other users: let them read it
        for name in dirs:
            os.chmod(Path(root) / name, 0o755)
        for name in files:
            path = Path(root) / name
            if not path.is_symlink():
                os.chmod(path, os.lstat(path).st_mode & 0o755 | 0o444)


def worker_spec(bot: ShippedBot, folder: Path | None = None) -> BotSpec:
    """How a worker runs ``bot``: a bundled bot with this machine's Python, a folder bot in
    its unpacked ``folder`` (arguments that named files of the original folder renamed)."""
    if bot.kind is BotKind.BUNDLED:
        return bundled_spec(bot.name)
    if bot.kind is BotKind.COMMAND:
        return BotSpec(name=bot.name, argv=bot.argv)
    if folder is None or bot.folder is None:
        raise ClusterError(f"bot {bot.name!r} is a folder bot: unpack it first")
    prefix = bot.folder.rstrip("/") + "/"
    argv = tuple(
        str(folder / arg[len(prefix) :]) if arg.startswith(prefix) else arg for arg in bot.argv
    )
    return BotSpec(name=bot.name, argv=argv, cwd=str(folder))


def missing_files(bots: Mapping[str, ShippedBot]) -> list[str]:
    """What the command bots among ``bots`` need that this machine lacks: a program not found
    (as a path or on PATH) or a file the command names (a path, or a name of a file that
    exists on the arena's machine; relative ones taken from the arena's current folder)."""
    missing: list[str] = []
    for bot in bots.values():
        if bot.kind is not BotKind.COMMAND or not bot.argv:
            continue
        program = bot.argv[0]
        if (os.sep in program and not os.path.exists(program)) or (
            os.sep not in program and shutil.which(program) is None
        ):
            missing.append(f"{program} (bot {bot.name})")
        missing += [f"{path} (bot {bot.name})" for path in bot.files if not os.path.isfile(path)]
    return list(dict.fromkeys(missing))
