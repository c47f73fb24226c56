"""Bots that travel to cluster workers: what each entrant is, and a folder bot's archive.

A tournament on a Dask cluster (``tournaments.run.cluster``) plays its games on other machines, so
each entrant is described by a ``ShippedBot`` value the workers can rebuild a ``BotSpec`` from:

- a bundled bot by its name (it comes with the arena's package on the worker);
- a command bot by its command line: the program and every file it names must already be on
  each worker (``missing_files`` says which are not);
- a folder bot by a tar archive of the arena's copy of its folder
(``tournaments.catalogue.botcopies``) at
  the version the tournament was planned with, made here and unpacked on each worker into a
  private folder, whose content digest must be that copy's before anything runs. A folder bot
  registered before the arena kept copies is refused: register it again.

Archives hold regular files, folders and symbolic links only, and are unpacked with tarfile's
``data`` filter: no absolute names, no ``..``, no link out of the bot's folder, no device, no
sparse file (a few bytes that declare a gigabyte), no path deeper than a bot folder may be;
the sizes its files declare count against its limit before anything is written.
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
from tournaments.catalogue.botcopies import MAX_DEPTH, SKIP_DIRS, BotFilesError, tree_digest
from tournaments.catalogue.lookup import Catalogue, bundled_spec, relocated
from tournaments.errors import ArchiveError, ClusterError
from tournaments.store.values import TournamentInfo

#: The largest folder bot archive sent to workers (it travels with the run to each worker).
MAX_ARCHIVE_BYTES = 256 << 20


class ShippingKind(enum.StrEnum):
    """How a worker gets an entrant's program."""

    BUNDLED = "bundled"
    COMMAND = "command"
    FOLDER = "folder"


@dataclass(frozen=True, kw_only=True)
class ShippedBot:
    """One bot as a worker receives it. ``archive`` holds a folder bot's files (tar bytes);
    ``digest`` is the content digest its unpacked files must have (``tree_digest``);
    ``sandboxed_only``: code a participant uploaded, which a worker runs only in its sandbox."""

    kind: ShippingKind
    name: str
    argv: tuple[str, ...] = ()
    folder: str | None = None  # a folder bot's copy on the arena's machine
    version: str = ""
    digest: str = ""
    archive: bytes = b""
    files: tuple[str, ...] = ()  # files a command bot's arguments name (absolute paths)
    sandboxed_only: bool = False


def shipped_bots(catalogue: Catalogue, info: TournamentInfo) -> dict[str, ShippedBot]:
    """Each entrant label of a tournament with how its bot, at the version the tournament was
    planned with, reaches the workers.

    Raises ClusterError for a remote bot (it joins one listening arena process) and for a folder
    bot registered before the arena kept copies; BotChanged for a bot whose planned code is
    gone."""
    made: dict[tuple[str, str], ShippedBot] = {}
    shipped: dict[str, ShippedBot] = {}
    for entrant in info.entrants:
        key = (entrant.bot, entrant.version)
        if key not in made:
            made[key] = ship(catalogue, entrant.bot, entrant.version)
        shipped[entrant.name] = made[key]
    return shipped


def ship(catalogue: Catalogue, name: str, version: str | None = None) -> ShippedBot:
    """How bot ``name`` of the catalogue, at ``version`` (None: its current one), reaches the
    workers (see ``shipped_bots``)."""
    found = catalogue.find(name, version)
    spec = found.spec
    if spec.remote:
        raise ClusterError(
            f"bot {name!r} is remote: remote bots join one listening arena process, "
            "not a cluster (run without --cluster)"
        )
    if found.bundled:
        return ShippedBot(kind=ShippingKind.BUNDLED, name=name, version=found.version)
    if spec.cwd is None:
        named = tuple(
            os.path.abspath(arg)
            for arg in spec.argv[1:]
            if not arg.startswith("-") and (os.sep in arg or os.path.isfile(arg))
        )
        return ShippedBot(
            kind=ShippingKind.COMMAND,
            name=name,
            argv=spec.argv,
            version=found.version,
            files=named,
            sandboxed_only=spec.sandboxed_only,
        )
    if found.digest is None:
        raise ClusterError(
            f"bot {name!r} was registered before the arena kept copies of bots: register it "
            f"again (`arena bot add {spec.cwd} --replace`) to run it on a cluster"
        )
    return ShippedBot(
        kind=ShippingKind.FOLDER,
        name=name,
        argv=spec.argv,
        folder=spec.cwd,
        version=found.version,
        digest=found.digest,
        archive=pack(Path(spec.cwd)),
        sandboxed_only=spec.sandboxed_only,
    )


def pack(folder: Path) -> bytes:
    """A tar archive of a folder bot's copy (``SKIP_DIRS`` left out, as a copy has them):
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
    its content is that of the copy it was packed from; returns the folder. Raises
    ClusterError."""
    try:
        unpack_archive(bot.archive, target, max_bytes=MAX_ARCHIVE_BYTES)
    except ArchiveError as exc:
        raise ClusterError(f"bot {bot.name!r}: its archive cannot be unpacked: {exc}") from None
    try:
        found = tree_digest(target)
    except BotFilesError as exc:
        raise ClusterError(f"bot {bot.name!r}: {exc}") from None
    if found != bot.digest:
        raise ClusterError(
            f"bot {bot.name!r}: the unpacked files are not those of its version {bot.version} "
            f"(content {found[:12]}, not {bot.digest[:12]})"
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
    is replaced) and readable by bot users, safely: at most ``max_bytes`` unpacked (as read,
    and as its files declare) and ``max_files`` entries; regular files, folders and links only
    (no device, FIFO or socket, no sparse file); at most ``MAX_DEPTH`` folders deep; tarfile's
    ``data`` filter (no absolute name, no ``..``, no link out of ``target``, no set-id bits).
    Raises ArchiveError naming the first problem; nothing is left on an error."""
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True, mode=0o755)
    try:
        with tarfile.open(fileobj=io.BytesIO(_decompressed(archive, max_bytes)), mode="r:") as tar:
            members, declared = [], 0
            for member in tar:  # each checked before the next header is read
                members.append(member)
                if len(members) > max_files:
                    raise ArchiveError(f"it holds more than {max_files} files")
                _check_member(member)
                declared += member.size if member.isreg() else 0
                if declared > max_bytes:
                    raise ArchiveError(
                        f"its files declare more than {max_bytes >> 20} MiB ({member.name!r})"
                    )
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


def _check_member(member: tarfile.TarInfo) -> None:
    """Raise ArchiveError, naming the member, for what is never unpacked: an absolute name, a
    path deeper than a bot folder may be, a sparse file, anything but a regular file, a folder
    or a link."""
    name = member.name
    if name.startswith(("/", "\\")):
        raise ArchiveError(f"{name!r} is an absolute name")
    if name.strip("/").count("/") >= MAX_DEPTH:
        raise ArchiveError(f"{name[:60]!r}... is nested over {MAX_DEPTH} folders deep")
    if member.issparse():
        raise ArchiveError(f"{name!r} is a sparse file (it declares {member.size} bytes)")
    if not (member.isreg() or member.isdir() or member.issym() or member.islnk()):
        raise ArchiveError(f"{name!r} is not a regular file, a folder or a link")


def worker_spec(bot: ShippedBot, folder: Path | None = None) -> BotSpec:
    """How a worker runs ``bot``: a bundled bot with this machine's Python, a folder bot in
    its unpacked ``folder`` (arguments that named files of the copy renamed)."""
    if bot.kind is ShippingKind.BUNDLED:
        return bundled_spec(bot.name)
    if bot.kind is ShippingKind.COMMAND:
        return BotSpec(name=bot.name, argv=bot.argv, sandboxed_only=bot.sandboxed_only)
    if folder is None or bot.folder is None:
        raise ClusterError(f"bot {bot.name!r} is a folder bot: unpack it first")
    return BotSpec(
        name=bot.name,
        argv=relocated(bot.argv, bot.folder, str(folder)),
        cwd=str(folder),
        sandboxed_only=bot.sandboxed_only,
    )


def missing_files(bots: Mapping[str, ShippedBot]) -> list[str]:
    """What the command bots among ``bots`` need that this machine lacks: a program not found
    (as a path or on PATH) or a file the command names (a path, or a name of a file that
    exists on the arena's machine; relative ones taken from the arena's current folder)."""
    missing: list[str] = []
    for bot in bots.values():
        if bot.kind is not ShippingKind.COMMAND or not bot.argv:
            continue
        program = bot.argv[0]
        if (os.sep in program and not os.path.exists(program)) or (
            os.sep not in program and shutil.which(program) is None
        ):
            missing.append(f"{program} (bot {bot.name})")
        missing += [f"{path} (bot {bot.name})" for path in bot.files if not os.path.isfile(path)]
    return list(dict.fromkeys(missing))
