"""The ``--db`` option shared by commands that use the results database, and bot lookup."""

from __future__ import annotations

import functools
import hashlib
import importlib.util
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from arena.botproc import BotSpec, bundled_bots, resolve_spec
from tournaments.errors import NotFound
from tournaments.registry import spec_of
from tournaments.store import Store, resolve_db_path

DB_HELP = "Results database (default: $ARENA_DB, else ./arena.db)."


def db_option(function: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``--db PATH`` and pass an open ``store`` to the command instead."""

    @click.option("--db", "db_path", default=None, metavar="PATH", help=DB_HELP)
    @functools.wraps(function)
    def wrapper(*args: Any, db_path: str | None, **kwargs: Any) -> Any:
        with Store.open(resolve_db_path(db_path)) as store:
            return function(*args, store=store, **kwargs)

    return wrapper


def bundled_version(name: str) -> str:
    """A bundled bot's version: the hash of its module's source."""
    found = importlib.util.find_spec(f"bots.{name}")
    origin = Path(found.origin) if found and found.origin else None
    data = origin.read_bytes() if origin and origin.exists() else name.encode()
    return hashlib.sha256(data).hexdigest()[:12]


def bot_spec(store: Store, name: str) -> tuple[BotSpec, str]:
    """How to run the bot called ``name`` (registered first, then bundled) and its version."""
    try:
        info = store.get_bot(name)
    except NotFound:
        if name in bundled_bots():
            return resolve_spec(name), bundled_version(name)
        known = sorted(set(bundled_bots()) | {b.name for b in store.list_bots()})
        raise NotFound(f"no bot named {name!r} (known: {', '.join(known)}); "
                       "register one with `arena bot add`") from None
    return spec_of(info), info.version


def registered_folders(store: Store) -> dict[str, BotSpec]:
    """Registered bots that run in a folder of their own (the sandbox hides these folders
    from every other bot)."""
    return {info.name: spec_of(info) for info in store.list_bots() if info.path}
