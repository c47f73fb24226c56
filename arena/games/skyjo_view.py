"""Skyjo: what one seat's view shows of the table, read for a state rebuilt from it.

Search bots determinize with ``Game.from_view``: ``SkyjoState.load_view`` takes the view's
round, phase, scores and turn as shown, and the table from ``lay_out``: every card the view
shows where it shows it, and the cards it hides (face-down grid cards, the draw pile, another
seat's drawn card) as the deck less every card in sight, to be dealt again by
``SkyjoState._redraw_hidden`` as ``resample`` deals them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from arena.games.skyjo_actions import CELLS, COLUMN_CELLS
from arena.games.skyjo_cards import DECK, Cell


@dataclass(frozen=True)
class Table:
    """The cards of a rebuilt state: per seat its grid's cards and cells and its removed
    columns ``(column, value)``; the drawn card (``None`` if none); the draw pile (last on
    top). Hidden cards hold unseen cards in deck order, to be redrawn."""

    cards: list[list[int]]
    cells: list[list[Cell]]
    removed: list[list[tuple[int, int]]]
    drawn: int | None
    pile: list[int]


def check_view(view: Mapping[str, Any], options: Mapping[str, Any]) -> None:
    """Raise ValueError unless ``view`` is a Skyjo view of a game with ``options``."""
    if view["game"] != "skyjo":
        raise ValueError(f"it is a view of {view['game']!r}")
    if view["options"] != options:
        raise ValueError(f"its options are {view['options']}")


def starter_reason(round_: int, options: Mapping[str, Any]) -> str:
    """Why this round's starter starts (only logged). [rebuild] After a capped round the
    previous winner starts even under ``next_starter: ender``; the view cannot tell."""
    if round_ == 1:
        return "highest-reveal"
    return "ender" if options["next_starter"] == "ender" else "winner"


def lay_out(view: Mapping[str, Any], seat: int, players: int) -> Table:
    """Grids, removed columns, the drawn card and the draw pile as ``seat``'s ``view`` shows
    them; what it hides filled in from the unseen cards in deck order. Raises ValueError if the
    cards do not add up to the deck.

    After a reshuffle in the round the view shows the draw pile's cards (``pile_cards``, with a
    drawn card not yet shown): the pile and another seat's drawn card are dealt from those, the
    face-down cards from the rest.
    """
    unseen = Counter(DECK)
    unseen.subtract(view["discard"])
    grids: list[list[int]] = []
    cells: list[list[Cell]] = []
    removed: list[list[tuple[int, int]]] = []
    for s in range(players):
        shown = [value for row in view["grids"][s] for value in row]
        if len(shown) != CELLS:
            raise ValueError(f"seat {s}'s grid has {len(shown)} cells")
        gone = [(entry["column"], entry["value"]) for entry in view["removed"][s]]
        grid = [0 if value is None else value for value in shown]
        grid_cells = [Cell.DOWN if value is None else Cell.UP for value in shown]
        for col, value in gone:
            for i in COLUMN_CELLS[col]:
                grid[i], grid_cells[i] = value, Cell.GONE
        unseen.subtract(v for v, c in zip(grid, grid_cells) if c is Cell.UP)
        grids.append(grid)
        cells.append(grid_cells)
        removed.append(gone)
    drawer = view["drawer"]
    drawn = view["drawn"] if drawer == seat else None
    if drawn is not None:
        unseen[drawn] -= 1
    if any(count < 0 for count in unseen.values()):
        raise ValueError("it shows more cards of a value than the deck holds")
    down = [(s, i) for s in range(players) for i in range(CELLS) if cells[s][i] is Cell.DOWN]
    if sum(unseen.values()) != len(down) + view["draw_count"] + (drawer not in (None, seat)):
        raise ValueError("its cards do not add up to the deck")
    if view["pile_cards"] is None:
        hidden = list(unseen.elements())
    else:
        piled = Counter(view["pile_cards"])
        if drawn is not None:
            piled[drawn] -= 1  # our own drawn card: in the pile's pool, but in sight
        face_down = unseen - piled
        if (
            min(piled.values(), default=0) < 0
            or piled - unseen
            or sum(face_down.values()) != len(down)
        ):
            raise ValueError("its draw pile's cards do not match the cards out of sight")
        hidden = list(face_down.elements()) + list(piled.elements())
    for (s, i), card in zip(down, hidden):
        grids[s][i] = card
    pile = hidden[len(down) :]
    if drawer not in (None, seat):
        drawn = pile.pop()
    return Table(grids, cells, removed, drawn, pile)


__all__ = ["Table", "check_view", "lay_out", "starter_reason"]
