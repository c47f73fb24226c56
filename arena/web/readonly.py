"""Opening the results database read-only for the web app.

The file is opened with an SQLite ``file:...?mode=ro`` URI: nothing is ever written, a
missing file is not created, and no migration runs. WAL mode (set by the arena when it
writes) lets these readers run beside a tournament in progress without blocking it. A file
that is not an arena database, or one of another schema version, is refused with a clear
``StoreError``.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from urllib.parse import quote

from sqlite_utils import Database

from arena.errors import StoreError
from tournaments.migrations import SCHEMA_VERSION
from tournaments.store import DEFAULT_BUSY_TIMEOUT_MS, Store, store_error

__all__ = ["BUSY_TIMEOUT_MS", "open_readonly"]

#: How long a read waits for a lock (only a database not in WAL mode can make it wait).
BUSY_TIMEOUT_MS = DEFAULT_BUSY_TIMEOUT_MS


def _uri(path: Path) -> str:
    return f"file:{quote(str(path.resolve()))}?mode=ro"


def open_readonly(path: str | os.PathLike[str], *,
                  busy_timeout_ms: int | None = None) -> Store:
    """A ``Store`` over a read-only connection to the arena database at ``path``.

    Raises StoreError if the file is missing, not an SQLite database, corrupt, locked, not an
    arena database, or of a schema version this arena does not read."""
    timeout = (BUSY_TIMEOUT_MS if busy_timeout_ms is None else busy_timeout_ms) / 1000
    where = Path(path).expanduser()
    name = str(where)
    if not where.is_file():
        raise StoreError(f"{name}: no such database file (run `arena demo` or create a "
                         "tournament first)")
    try:
        conn = sqlite3.connect(_uri(where), uri=True, timeout=timeout,
                               isolation_level=None, check_same_thread=False)
    except sqlite3.Error as exc:
        raise store_error(name, exc, "opening") from exc
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        _check_version(name, version)
        conn.execute("PRAGMA query_only=ON")
    except sqlite3.Error as exc:
        conn.close()
        raise store_error(name, exc, "opening") from exc
    except BaseException:
        conn.close()
        raise
    return Store(Database(conn, execute_plugins=False), name)


def _check_version(name: str, version: int) -> None:
    if version > SCHEMA_VERSION:
        raise StoreError(f"{name}: database schema version {version} is newer than this arena "
                         f"knows (version {SCHEMA_VERSION}); upgrade arena to read it")
    if version == 0:
        raise StoreError(f"{name}: not an arena database (no arena schema in it)")
    if version < SCHEMA_VERSION:
        raise StoreError(f"{name}: database schema version {version} is older than this arena's "
                         f"({SCHEMA_VERSION}); run any arena command on it once (e.g. "
                         "`arena tournament list`) to upgrade it, then serve it")
