"""The bots a ladder runs: folder versions kept in the ladder's bot store, and uploads.

A folder bot enters a ladder as a copy: its files (as its version hash covers them) are put
in ``<database>.ladder-bots/NAME/VERSION/`` beside the database and registered (through
``tournaments.registry``, after the entry check) as the bot ``NAME.VERSION``. A version is
never changed or replaced there, so a batch planned with a version always runs that version,
even if its author enters a new one meanwhile, and old versions keep their files.

An upload (``stage_archive``) is a tar archive (plain, gzip, bzip2 or xz) of a bot folder
with its ``bot.toml`` at the top or in one folder at the top. It is size-limited before it
is read, unpacked by ``tournaments.shipping.unpack_archive`` (at most ``MAX_UNPACKED_BYTES``
and ``MAX_FILES``; regular files, folders and links inside the folder only; no absolute or
``..`` names) into a staging folder of the bot store, then moved to its version's folder.

The whole bot store is hidden from every bot by the sandbox (each sees only its own folder),
and a ladder with any uploaded bot runs only in the sandbox.
"""

from __future__ import annotations

import os
import secrets
import shutil
from dataclasses import dataclass
from pathlib import Path

from tournaments.catalogue import folder_version
from tournaments.errors import ArchiveError, ClusterError
from tournaments.registry import MANIFEST, BotCheckError, Manifest, load_manifest
from tournaments.shipping import pack, unpack_archive

__all__ = [
    "MAX_UPLOAD_BYTES",
    "Staged",
    "bots_root",
    "discard",
    "runs_as_name",
    "stage_archive",
    "stage_folder",
]

#: The largest archive accepted (compressed), and what it may unpack to.
MAX_UPLOAD_BYTES = 8 << 20
MAX_UNPACKED_BYTES = 64 << 20
MAX_FILES = 5_000
#: The ladder's bot store of ``arena.db`` is ``arena.db.ladder-bots``.
STORE_SUFFIX = ".ladder-bots"
_STAGING = ".staging"
#: Characters of a version hash in the registered name ``NAME.VERSION``.
VERSION_CHARS = 8


def bots_root(db_path: str | os.PathLike[str]) -> Path:
    """The ladder's bot store of the database at ``db_path``."""
    db = Path(db_path).expanduser().resolve()
    return db.with_name(db.name + STORE_SUFFIX)


def runs_as_name(bot: str, version: str) -> str:
    """The registered name of a folder version: ``NAME.VERSION`` (64 characters at most)."""
    return f"{bot[: 63 - VERSION_CHARS]}.{version[:VERSION_CHARS]}"


@dataclass(frozen=True, kw_only=True)
class Staged:
    """A folder version in the bot store: its manifest (``folder`` is its version's folder),
    its version hash, and whether this submission put it there (``new``)."""

    manifest: Manifest
    version: str
    new: bool

    @property
    def folder(self) -> Path:
        return self.manifest.folder


def _staging(root: Path) -> Path:
    root.mkdir(mode=0o755, parents=True, exist_ok=True)
    os.chmod(root, 0o755)  # bot users pass through to their own folder (the sandbox hides it)
    return root / _STAGING / secrets.token_hex(8)


def stage_folder(root: Path, source: Path) -> Staged:
    """Copy a bot folder (what its version covers) into the bot store. Raises BotCheckError
    for a folder without a valid ``bot.toml`` or that cannot be copied."""
    load_manifest(source)  # a clear error before anything is copied
    try:
        archive = pack(source)
    except (ClusterError, OSError) as exc:  # a FIFO, a device, a link out of the folder
        raise BotCheckError(str(exc).replace("a cluster worker", "the ladder")) from None
    return _settle(root, archive)


def stage_archive(root: Path, archive: bytes) -> Staged:
    """Unpack an uploaded archive into the bot store. Raises ArchiveError (too big, unsafe,
    unreadable) or BotCheckError (no valid ``bot.toml``)."""
    if len(archive) > MAX_UPLOAD_BYTES:
        raise ArchiveError(f"the archive is over {MAX_UPLOAD_BYTES >> 20} MiB")
    if not archive:
        raise ArchiveError("the archive is empty")
    return _settle(root, archive)


def _settle(root: Path, archive: bytes) -> Staged:
    staging = _staging(root)
    try:
        unpack_archive(archive, staging, max_bytes=MAX_UNPACKED_BYTES, max_files=MAX_FILES)
        found = _bot_folder(staging)
        manifest = load_manifest(found)
        version = folder_version(found)
        final = root / manifest.name / version
        new = not final.exists()
        if new:
            final.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
            try:
                os.rename(found, final)
            except OSError:
                new = False  # the same version arrived meanwhile: keep that one
                if not final.is_dir():
                    raise
        return Staged(manifest=load_manifest(final), version=version, new=new)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _bot_folder(unpacked: Path) -> Path:
    """The folder holding ``bot.toml``: the archive's top, or its one folder at the top."""
    if (unpacked / MANIFEST).is_file():
        return unpacked
    inner = [p for p in unpacked.iterdir() if not p.name.startswith(".")]
    if len(inner) == 1 and inner[0].is_dir() and not inner[0].is_symlink():
        if (inner[0] / MANIFEST).is_file():
            return inner[0]
    raise BotCheckError(
        f"the archive has no {MANIFEST} at its top (nor in one folder at its top); "
        "make it with `tar czf bot.tgz -C FOLDER .`"
    )


def discard(staged: Staged) -> None:
    """Remove a version this submission put in the store (its check failed)."""
    if staged.new:
        shutil.rmtree(staged.folder, ignore_errors=True)
