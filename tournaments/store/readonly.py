"""Opening the results database read-only (the web app's own connections: ``arena serve``,
``arena export``, the ladders' pages).

The file is opened read-only (``tournaments.store.database.connect_readonly``): nothing is
ever written, a missing file is not created, and no migration runs. WAL mode (set by the arena
when it writes) lets these readers run beside a tournament in progress without blocking it. A
file that is not an arena database, or one of another schema version, is refused with a clear
``StoreError``.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tournaments.errors import StoreError
from tournaments.store.database import (
    DEFAULT_BUSY_TIMEOUT_MS,
    connect_readonly,
    store_error,
    user_version,
)
from tournaments.store.facts import Store
from tournaments.store.migrations import SCHEMA_VERSION
from tournaments.store.sqlite import Database

__all__ = ["BUSY_TIMEOUT_MS", "ReadOnlyPool", "open_readonly"]

#: How long a read waits for a lock (only a database not in WAL mode can make it wait).
BUSY_TIMEOUT_MS = DEFAULT_BUSY_TIMEOUT_MS


def open_readonly(path: str | os.PathLike[str], *, busy_timeout_ms: int | None = None) -> Store:
    """A ``Store`` over a read-only connection to the arena database at ``path``.

    Raises StoreError if the file is missing, not an SQLite database, corrupt, locked, not an
    arena database, or of a schema version this arena does not read."""
    timeout_ms = BUSY_TIMEOUT_MS if busy_timeout_ms is None else busy_timeout_ms
    where = Path(path).expanduser()
    name = str(where)
    if not where.is_file():
        raise StoreError(
            f"{name}: no such database file (run `arena demo` or create a tournament first)"
        )
    try:
        conn = connect_readonly(where, timeout_ms)
    except sqlite3.Error as exc:
        raise store_error(name, exc, "opening") from exc
    try:
        _check_version(name, user_version(conn))
    except sqlite3.Error as exc:
        conn.close()
        raise store_error(name, exc, "opening") from exc
    except BaseException:
        conn.close()
        raise
    return Store(Database(conn, execute_plugins=False), name)


def _check_version(name: str, version: int) -> None:
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"{name}: database schema version {version} is newer than this arena "
            f"knows (version {SCHEMA_VERSION}); upgrade arena to read it"
        )
    if version == 0:
        raise StoreError(f"{name}: not an arena database (no arena schema in it)")
    if version < SCHEMA_VERSION:
        raise StoreError(
            f"{name}: database schema version {version} is older than this arena's "
            f"({SCHEMA_VERSION}); run any arena command on it once (e.g. "
            "`arena tournament list`) to upgrade it, then serve it"
        )


class ReadOnlyPool:
    """Read-only Stores kept open between requests, so SQLite's page cache outlives a request
    (an idle reader holds no lock and does not stop the writer's checkpoints).

    A pooled connection is checked before reuse: the file must be the same one (not replaced
    by another) and of the same schema version; otherwise it is closed and a new one opened.
    A connection that met a database error is closed, not pooled."""

    def __init__(self, path: str | os.PathLike[str], *, size: int = 4) -> None:
        self.path = Path(path).expanduser()
        self.size = size
        self._free: list[tuple[Store, int]] = []
        self._lock = threading.Lock()

    def _identity(self) -> int:
        stat = self.path.stat()
        return hash((stat.st_dev, stat.st_ino))

    def _reusable(self, store: Store, identity: int) -> bool:
        try:
            if identity != self._identity():
                return False
            _check_version(store.path, user_version(store.db.conn))
        except (OSError, sqlite3.Error, StoreError):
            return False
        return True

    @contextmanager
    def store(self) -> Iterator[Store]:
        """A read-only Store for one request. Raises StoreError like ``open_readonly``."""
        with self._lock:
            found = self._free.pop() if self._free else None
        if found is not None and not self._reusable(*found):
            found[0].close()
            found = None
        if found is None:
            store = open_readonly(self.path)
            try:
                found = (store, self._identity())
            except OSError:
                store.close()
                raise StoreError(f"{self.path}: the database file went away") from None
        healthy = False
        try:
            yield found[0]
            healthy = True
        except StoreError:
            raise
        except Exception:
            healthy = True
            raise
        finally:
            with self._lock:
                keep = healthy and len(self._free) < self.size
                if keep:
                    self._free.append(found)
            if not keep:
                found[0].close()

    def close(self) -> None:
        with self._lock:
            free, self._free = self._free, []
        for store, _ in free:
            store.close()
