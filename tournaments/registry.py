"""Bot submission: a folder bot's manifest, the entry check, and registration.

A bot is registered only after it passes a check: it starts, says hello with the right protocol
version, and plays a short game of each of its games with no fault. Its version
(``tournaments.catalogue``) is a hash of its files (a folder bot) or of its command and the
files the command names, so results stay attributable after the bot changes.
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.botproc import BotSpec
from arena.errors import ArenaError, BotStartError
from arena.games import get_game, names
from arena.match import play_match
from arena.record import GameRecord, Limits
from arena.sandbox import Sandbox
from tournaments.catalogue import bundled_spec
from tournaments.store import Store
from tournaments.values import BotInfo

MANIFEST = "bot.toml"


class BotCheckError(ArenaError):
    """A bot failed its entry check; nothing was registered."""


@dataclass(frozen=True, kw_only=True)
class Manifest:
    """The ``bot.toml`` of a bot folder."""

    name: str
    command: str
    games: tuple[str, ...]
    folder: Path


def load_manifest(folder: Path) -> Manifest:
    """Read and check ``folder/bot.toml`` (keys: name, command, games)."""
    path = folder / MANIFEST
    if not path.is_file():
        raise BotCheckError(f"{folder} has no {MANIFEST} (needs name, command and games)")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise BotCheckError(f"{path} is not valid TOML: {exc}") from None
    name, command, games = data.get("name"), data.get("command"), data.get("games", [])
    if not isinstance(name, str) or not name.strip():
        raise BotCheckError(f"{path}: 'name' must be a non-empty string")
    if not isinstance(command, str) or not command.strip():
        raise BotCheckError(f"{path}: 'command' must be a command line (a string)")
    if isinstance(games, str):
        games = [games]
    if not isinstance(games, list) or not all(isinstance(g, str) for g in games) or not games:
        raise BotCheckError(f"{path}: 'games' must list the games the bot plays")
    return Manifest(name=name.strip(), command=command, games=tuple(games),
                    folder=folder.resolve())


def check_bot(spec: BotSpec, games: Sequence[str], *, move_ms: int = 2000,
              seed: int = 1, sandbox: Sandbox | None = None) -> list[GameRecord]:
    """Play one game of each of ``games`` with the bot at seat 0 against ``random`` bots, in
    ``sandbox`` (None: unsandboxed), as a tournament would run it.

    Raises BotCheckError naming the first problem (it did not start, was refused, or faulted).
    """
    if not games:
        raise BotCheckError("name at least one game the bot plays")
    records = []
    for name in games:
        game = get_game(name)
        others = [bundled_spec("random")] * (game.min_players - 1)
        try:
            record = play_match(name, [spec, *others], seed=seed, sandbox=sandbox,
                                limits=Limits(move_ms=move_ms, max_faults=1, startup_ms=10_000))
        except BotStartError as exc:
            raise BotCheckError(f"check failed: {exc}") from None
        mine = [f for f in record.faults if f.seat == 0]
        if mine:
            fault = mine[0]
            raise BotCheckError(f"check failed in {name}: {fault.kind.value} at step "
                                f"{fault.step}: {fault.detail}")
        records.append(record)
    return records


def register(store: Store, name: str, spec: BotSpec, command: str, games: Sequence[str],
             version: str, *, replace: bool = False,
             sandbox: Sandbox | None = None) -> BotInfo:
    """Check the bot (in ``sandbox``, as ``tournament run`` would run it), then store it.
    Nothing is written if the check fails."""
    unknown = [g for g in games if g not in names()]
    if unknown:
        raise BotCheckError(f"unknown game(s) {', '.join(unknown)} (games: {', '.join(names())})")
    check_bot(spec, games, sandbox=sandbox)
    return store.add_bot(name, command, version=version, replace=replace, path=spec.cwd,
                         games=list(games))
