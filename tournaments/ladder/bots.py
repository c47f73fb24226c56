"""Uploads: the archive of a folder bot a participant sent, unpacked safely for its entry.

An upload (``stage_archive``) is a tar archive (plain, gzip, bzip2 or xz) of a bot folder with
its ``bot.toml`` at the top or in one folder at the top. It is size-limited before it is read,
and unpacked by ``tournaments.catalogue.shipping.unpack_archive`` (at most ``MAX_UNPACKED_BYTES``
and ``MAX_FILES``; regular files, folders and links inside the folder only; no absolute or ``..``
names) into a staging folder of its own under ``<database>.ladder-uploads/``, hidden from
every bot by the sandbox. It is then registered like any folder bot
(``tournaments.catalogue.registry.add_folder_bot``: copied into the arena's store of bot copies,
checked from the copy, run from it) and the staging folder is removed (``Staged.close``).
"""

from __future__ import annotations

import os
import secrets
import shutil
from dataclasses import dataclass
from pathlib import Path

from tournaments.catalogue.registry import MANIFEST, BotCheckError
from tournaments.catalogue.shipping import unpack_archive
from tournaments.errors import ArchiveError

__all__ = ["MAX_UPLOAD_BYTES", "Staged", "stage_archive", "uploads_root"]

#: The largest archive accepted (compressed), and what it may unpack to.
MAX_UPLOAD_BYTES = 8 << 20
MAX_UNPACKED_BYTES = 64 << 20
MAX_FILES = 5_000
#: The uploads' staging folder of ``arena.db`` is ``arena.db.ladder-uploads``.
UPLOADS_SUFFIX = ".ladder-uploads"


def uploads_root(db_path: str | os.PathLike[str]) -> Path:
    """Where uploads of the database at ``db_path`` are unpacked before they are registered."""
    db = Path(db_path).expanduser().resolve()
    return db.with_name(db.name + UPLOADS_SUFFIX)


@dataclass(frozen=True, kw_only=True)
class Staged:
    """An unpacked upload: its staging folder and the bot folder in it (with ``bot.toml``)."""

    staging: Path
    folder: Path

    def close(self) -> None:
        shutil.rmtree(self.staging, ignore_errors=True)


def stage_archive(root: Path, archive: bytes) -> Staged:
    """Unpack an uploaded archive into a staging folder of its own under ``root``. Raises
    ArchiveError (too big, unsafe, unreadable) or BotCheckError (no ``bot.toml``), and leaves
    nothing behind then."""
    if len(archive) > MAX_UPLOAD_BYTES:
        raise ArchiveError(f"the archive is over {MAX_UPLOAD_BYTES >> 20} MiB")
    if not archive:
        raise ArchiveError("the archive is empty")
    root.mkdir(mode=0o700, parents=True, exist_ok=True)
    staging = root / secrets.token_hex(8)
    try:
        unpack_archive(archive, staging, max_bytes=MAX_UNPACKED_BYTES, max_files=MAX_FILES)
        return Staged(staging=staging, folder=_bot_folder(staging))
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


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
