"""The ``--db`` option shared by commands that use the results database."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import click

from tournaments.store.facts import Store, resolve_db_path

DB_HELP = "Results database (default: $ARENA_DB, else ./arena.db)."


def db_option(function: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``--db PATH`` and pass an open ``store`` to the command instead."""

    @click.option("--db", "db_path", default=None, metavar="PATH", help=DB_HELP)
    @functools.wraps(function)
    def wrapper(*args: Any, db_path: str | None, **kwargs: Any) -> Any:
        with Store.open(resolve_db_path(db_path)) as store:
            return function(*args, store=store, **kwargs)

    return wrapper
