"""Registry of games by name: the bundled games, and any game a program registers itself."""

from __future__ import annotations

from collections.abc import Iterator

from arena.errors import UnknownGame
from arena.games.base import Game, OptionSpec, Outcome, State, options_text, places_from_keys
from arena.games.registry import Registry

__all__ = [
    "Game",
    "OptionSpec",
    "Outcome",
    "State",
    "options_text",
    "places_from_keys",
    "register",
    "get_game",
    "all_games",
    "names",
]

#: Modules of the bundled games; each calls ``register`` on import.
BUNDLED = (
    "arena.games.skull",
    "arena.games.skull_bank",
    "arena.games.skull_king",
    "arena.games.skyjo",
)
_GAMES: Registry[Game] = Registry(BUNDLED)


def register(game: Game) -> Game:
    """Register a game instance under ``game.name`` (replacing any earlier one)."""
    return _GAMES.add(game.name, game)


def get_game(name: str) -> Game:
    """The registered game called ``name``; raises UnknownGame."""
    game = _GAMES.get(name)
    if game is None:
        known = ", ".join(_GAMES.names())
        raise UnknownGame(f"unknown game {name!r} (games: {known})")
    return game


def names() -> list[str]:
    return _GAMES.names()


def all_games() -> Iterator[Game]:
    for name in _GAMES.names():
        yield get_game(name)
