"""The ``--db`` option shared by commands that use the results database: ``db_option`` opens
it for the command, ``db_path_option`` passes its path (for a command that opens it later, or
read-only, or only finds files beside it)."""

from __future__ import annotations

import functools
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
