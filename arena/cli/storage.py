"""The ``--db`` option shared by commands that use the results database: ``db_option`` opens
it for the command, ``read_db_option`` too for a command that only reads (a database that does
not exist is not created: the command reads an empty one), ``db_path_option`` passes its path
(for a command that opens it later, or read-only, or only finds files beside it)."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import Any

import click

from tournaments.store.facts import Store, resolve_db_path

DB_HELP = "Results database (default: $ARENA_DB, else ./arena.db)."


def db_path_option(
    help: str = DB_HELP,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--db PATH``, passed as ``db_path`` (None: not given)."""
    return click.option("--db", "db_path", default=None, metavar="PATH", help=help)


def db_option(function: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``--db PATH`` and pass an open ``store`` to the command instead."""

    @db_path_option()
    @functools.wraps(function)
    def wrapper(*args: Any, db_path: str | None, **kwargs: Any) -> Any:
        with Store.open(resolve_db_path(db_path)) as store:
            return function(*args, store=store, **kwargs)

    return wrapper


def read_db_option(function: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``--db PATH`` and pass an open ``store`` to a command that only reads: a database
    file that does not exist is not created (the command sees an empty database, in memory)."""

    @db_path_option()
    @functools.wraps(function)
    def wrapper(*args: Any, db_path: str | None, **kwargs: Any) -> Any:
        path = resolve_db_path(db_path)
        with Store.open(path if os.path.exists(path) else ":memory:") as store:
            return function(*args, store=store, **kwargs)

    return wrapper
