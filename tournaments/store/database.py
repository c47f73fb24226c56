"""The results database's file: where it is, how it is opened, and its errors in words.

``resolve_db_path`` finds the file (the command line, ``$ARENA_DB``, ``./arena.db``);
``connect`` opens it as the store does (autocommit, shared between threads, a busy timeout),
``connect_readonly`` as its readers do (``tournaments.store.readonly``), ``user_version`` reads
the schema version of an open file;
``store_error`` turns an ``sqlite3`` error into a one-line StoreError; ``guarded`` serialises a
method of an object with a lock and a path (``Store``, a ``StorePart``) and translates its
sqlite3 errors; ``json_tuples`` parses the JSON arrays a query returns, each distinct text
once; ``StorePart`` is the base of the parts of the store that keep their own tables
or derive from its facts, over its connection, lock and write transactions.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, ParamSpec, Protocol, TypeVar
from urllib.parse import quote

from tournaments.errors import StoreError

ENV_DB = "ARENA_DB"
DEFAULT_DB = "arena.db"
DEFAULT_BUSY_TIMEOUT_MS = 5000
_P = ParamSpec("_P")
_T = TypeVar("_T")


def resolve_db_path(cli_value: str | os.PathLike[str] | None = None) -> Path:
    """The database path: the CLI value, else ``$ARENA_DB``, else ``./arena.db``."""
    if cli_value:
        return Path(cli_value).expanduser()
    env = os.environ.get(ENV_DB)
    if env:
        return Path(env).expanduser()
    return Path(DEFAULT_DB)


def store_error(path: str, exc: sqlite3.Error, doing: str) -> StoreError:
    """A one-line StoreError for an sqlite3 error met while ``doing`` something."""
    text = str(exc)
    low = text.lower()
    if "locked" in low or "busy" in low:
        why = "the database is locked: another process is writing to it; try again when it is done"
    elif "not a database" in low:
        why = "not an SQLite database (wrong file, encrypted or corrupt)"
    elif "malformed" in low or "corrupt" in low:
        why = "the database file is corrupt (malformed); restore a backup or use a new file"
    elif "unable to open" in low:
        why = "cannot open the database file (does its folder exist? permissions?)"
    elif "readonly" in low or "read-only" in low:
        why = "the database is read-only"
    elif "disk is full" in low:
        why = "the disk is full"
    else:
        why = f"database error: {text}"
    return StoreError(f"{path}: {why} (while {doing})")


def guarded(doing: str) -> Callable[[Callable[_P, _T]], Callable[_P, _T]]:
    """Serialise a method of the store (or of one of its parts) and turn sqlite3 errors into
    StoreError."""

    def decorate(method: Callable[_P, _T]) -> Callable[_P, _T]:
        @functools.wraps(method)
        def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _T:
            store: Any = args[0]
            with store._lock:
                try:
                    return method(*args, **kwargs)
                except sqlite3.Error as exc:
                    raise store_error(store.path, exc, doing) from exc

        return wrapper

    return decorate


def connect(path: str, busy_timeout_ms: int) -> sqlite3.Connection:
    if path != ":memory:" and not Path(path).parent.is_dir():
        raise StoreError(
            f"{path}: cannot create the database: folder {str(Path(path).parent)!r} does not exist"
        )
    try:
        conn = sqlite3.connect(
            path, timeout=busy_timeout_ms / 1000, isolation_level=None, check_same_thread=False
        )
    except sqlite3.Error as exc:
        raise store_error(path, exc, "opening") from exc
    return conn


def connect_readonly(path: Path, busy_timeout_ms: int) -> sqlite3.Connection:
    """A read-only connection to the file at ``path``: opened with an SQLite
    ``file:...?mode=ro`` URI (nothing is written, a missing file is not created) and set to
    refuse every write (``query_only``). Raises sqlite3.Error."""
    conn = sqlite3.connect(
        f"file:{quote(str(path.resolve()))}?mode=ro",
        uri=True,
        timeout=busy_timeout_ms / 1000,
        isolation_level=None,
        check_same_thread=False,
    )
    try:
        conn.execute("PRAGMA query_only=ON")
    except BaseException:
        conn.close()
        raise
    return conn


def user_version(conn: sqlite3.Connection) -> int:
    """The schema version of the open file (0: no arena schema in it). Raises sqlite3.Error."""
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def json_tuples() -> Callable[[str], tuple[Any, ...]]:
    """A parser of JSON arrays (as tuples) that parses each distinct text once: the seatings
    and places of a tournament's games are few distinct texts, repeated (parsing them is most
    of the time of reading 100,000 games back)."""
    parsed: dict[str, tuple[Any, ...]] = {}

    def parse(text: str) -> tuple[Any, ...]:
        found = parsed.get(text)
        if found is None:
            found = parsed[text] = tuple(json.loads(text))
        return found

    return parse


class OpenStore(Protocol):
    """What a ``StorePart`` uses of the open store it belongs to
    (``tournaments.store.facts.Store``): its connection, file and lock, its write transactions and
    its tournaments' rows."""

    db: sqlite3.Connection
    path: Path
    _lock: threading.RLock

    def write(self) -> contextlib.AbstractContextManager[sqlite3.Connection]: ...

    def tournament_row(self, tid: int) -> dict[str, Any]: ...


class StorePart:
    """A part of an open ``Store``: it reads through the store's connection, takes its lock
    (``guarded``) and writes in its write transactions (``Store.write``)."""

    def __init__(self, store: OpenStore) -> None:
        self.store = store
        self.db = store.db
        self.path = store.path
        self._lock = store._lock
