"""Skull King: what one seat's view shows, read for a state rebuilt from it.

Search bots determinize with ``Game.from_view``: ``SkullKingState.load_view`` checks the view
(``check_view``), judges the round's finished tricks again as the view shows them
(``shown_tricks``: tricks won, capture bonuses, Loot alliances), so the round scores as it
really will, and knows earlier rounds by their points, which is all the outcome needs. The other
hands and the undealt cards are drawn from the cards out of sight as ``resample`` draws them, so
no seat holds a suit it has shown it lacks this round.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from arena.games.skull_king_cards import CARDS, PHASES, Card


@dataclass(frozen=True)
class ShownTrick:
    """A finished trick of this round as a view shows it: who led, the table cards in play
    order, who won it (``None``: nobody) and who leads next."""

    leader: int
    cards: tuple[Card, ...]
    winner: int | None
    next: int


def check_view(view: Mapping[str, Any], options: Mapping[str, Any]) -> None:
    """Raise ValueError unless ``view`` is of a game with ``options``, in a phase of the game."""
    if (view["advanced"], view["scoring"]) != (options["advanced"], options["scoring"]):
        raise ValueError("its options are not these")
    if view["phase"] not in PHASES:
        raise ValueError(f"it shows no phase of the game: {view['phase']!r}")


def shown_tricks(view: Mapping[str, Any]) -> Iterator[ShownTrick]:
    """The round's finished tricks, in order, as ``view`` shows them."""
    for shown in view["tricks"]:
        cards = tuple(CARDS[name] for name in shown["cards"])
        yield ShownTrick(shown["leader"], cards, shown["winner"], shown["next"])


def shown_cards(names: list[str]) -> list[Card]:
    """The cards a view names (a hand, the trick in play)."""
    return [CARDS[name] for name in names]


__all__ = ["ShownTrick", "check_view", "shown_cards", "shown_tricks"]
