"""Registering a bot as ``arena bot add`` does, without its entry check: rogue bots fail the
check, and some tests enter them (or bots that are no bots) in tournaments all the same."""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from pathlib import Path

from tournaments.catalogue.botcopies import BotCopies
from tournaments.catalogue.commandfiles import command_version, record
from tournaments.store.facts import Store
from tournaments.store.values import BotInfo


def add_unchecked(
    store: Store, name: str, argv: Sequence[str], games: Sequence[str] = ("skull",)
) -> BotInfo:
    """Register ``argv`` as command bot ``name``: its files recorded, its version computed."""
    files = record(argv, os.getcwd())
    text = shlex.join(argv)
    return store.add_bot(name, text, version=command_version(text, files), games=games, files=files)


def add_folder_unchecked(
    store: Store, name: str, folder: Path, command: str, games: Sequence[str] = ("skull",)
) -> BotInfo:
    """Register ``folder`` as folder bot ``name`` running ``command``: copied into the
    database's store of copies, its version the copy's."""
    copy = BotCopies.beside(store.path).add(folder)
    return store.add_bot(
        name,
        command,
        version=copy.version,
        path=str(folder),
        games=games,
        digest=copy.digest,
        files=(),
    )
