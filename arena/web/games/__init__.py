"""Each game's presentation in the replay viewer, found through the game: its tables, its
round ends, its frame labels and its score sheet (``Presentation``).

A game's presentation is a module of this package named after the game (``skull_king`` for
``skull-king``), as its rules are a module of ``arena.games``; it registers itself on import,
as a game does. The game's words (its actions and events in plain words) are the game's own
(``Game.action_words``, ``Game.format_event``, ``Game.event_detail``): a presentation draws,
it does not word moves. A program that registers a game of its own may register its
presentation with ``register``; a game without one replays with the plain ``Presentation``
(empty tables, no round ends).
"""

from __future__ import annotations

from arena.games import Game
from arena.games.registry import Registry
from arena.web.games.base import Ending, Presentation, ScoreSheet

__all__ = [
    "BUNDLED",
    "PRESENTATIONS",
    "Ending",
    "Presentation",
    "ScoreSheet",
    "presentation",
    "register",
]

#: Modules of the bundled games' presentations; each calls ``register`` on import.
BUNDLED = (
    "arena.web.games.skull",
    "arena.web.games.skull_bank",
    "arena.web.games.skull_king",
    "arena.web.games.skyjo",
)
PRESENTATIONS: Registry[Presentation] = Registry(BUNDLED)
_PLAIN = Presentation()


def register(shown: Presentation) -> Presentation:
    """Register a presentation under its game's name (replacing any earlier one)."""
    return PRESENTATIONS.add(shown.name, shown)


def presentation(game: Game) -> Presentation:
    """How the replay viewer draws ``game``: its registered presentation, else the plain one."""
    return PRESENTATIONS.get(game.name) or _PLAIN
