"""Registry of games by name: the bundled games, and any game a program registers itself."""

from __future__ import annotations

import importlib
from collections.abc import Iterator

from arena.errors import UnknownGame
from arena.games.base import Game, OptionSpec, Outcome, State, places_from_keys

__all__ = [
    "Game",
    "OptionSpec",
    "Outcome",
    "State",
    "places_from_keys",
    "register",
    "get_game",
    "all_games",
    "names",
]

_REGISTRY: dict[str, Game] = {}

#: Modules of the bundled games; each calls ``register`` on import.
BUNDLED = (
    "arena.games.skull",
    "arena.games.skull_bank",
    "arena.games.skull_king",
    "arena.games.skyjo",
)
_loaded = False


def register(game: Game) -> Game:
    """Register a game instance under ``game.name`` (replacing any earlier one)."""
    _REGISTRY[game.name] = game
    return game


def _load_bundled() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for module in BUNDLED:
        importlib.import_module(module)


def get_game(name: str) -> Game:
    """The registered game called ``name``; raises UnknownGame."""
    _load_bundled()
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY))
        raise UnknownGame(f"unknown game {name!r} (games: {known})") from None


def names() -> list[str]:
    _load_bundled()
    return sorted(_REGISTRY)


def all_games() -> Iterator[Game]:
    _load_bundled()
    for name in sorted(_REGISTRY):
        yield _REGISTRY[name]
