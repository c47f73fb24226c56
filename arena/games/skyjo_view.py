"""Skyjo: a state rebuilt from one seat's view, the hidden cards drawn at random.

Search bots determinize with this (``Game.from_view``). Everything the view shows is kept;
the cards it hides (face-down grid cards, the draw pile, another seat's drawn card) are the
deck less every card in sight, dealt again by ``SkyjoState._redraw_hidden`` as ``resample``
deals them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from random import Random
from typing import TYPE_CHECKING, Any

from arena.games.skyjo_actions import CELLS, COLUMN_CELLS
from arena.games.skyjo_cards import DECK, Cell, Phase, round_winner

if TYPE_CHECKING:
    from arena.games.skyjo import SkyjoState


def load_view(state: SkyjoState, view: Mapping[str, Any], seat: int, rng: Random) -> None:
    """Fill the ``bare`` ``state`` in from ``seat``'s ``view`` (see ``State.load_view``), the
    hidden cards drawn by ``rng``. Raises KeyError, TypeError or ValueError if the view is not
    such a view.

    The view does not tell whether the draw pile was made from the discard pile this round
    (whose contents a seat that watched would know): the pile is drawn from all unseen cards.
    """
    players, options = state.players, state.options
    if view["game"] != "skyjo":
        raise ValueError(f"it is a view of {view['game']!r}")
    if view["options"] != options:
        raise ValueError(f"its options are {view['options']}")
    state.round, state.phase = view["round"], Phase(view["phase"])
    state.totals = [int(total) for total in view["totals"]]
    state.history = [list(scores) for scores in view["round_scores"]]
    # the previous round's ender and winner are read only when the next round starts, after
    # the end of this one has set them again
    state.last_ender = None
    state.last_winner = round_winner(state.history[-1]) if state.history else None
    state.current = -1 if view["turn"] is None else view["turn"]
    state.starter, state.ender, state.turns = view["starter"], view["ender"], view["turns"]
    state.starter_reason = _starter_reason(state.round, options)
    state.lap_left = 0
    if state.ender is not None and state.phase is not Phase.OVER:
        state.lap_left = players - (state.current - state.ender) % players
    state.discard, state.pile_public = list(view["discard"]), False
    _lay_out(state, view, seat)
    state._redraw_hidden(seat, rng)


def _starter_reason(round_: int, options: Mapping[str, Any]) -> str:
    """Why this round's starter starts (only logged). [rebuild] After a capped round the
    previous winner starts even under ``next_starter: ender``; the view cannot tell."""
    if round_ == 1:
        return "highest-reveal"
    return "ender" if options["next_starter"] == "ender" else "winner"


def _lay_out(state: SkyjoState, view: Mapping[str, Any], seat: int) -> None:
    """Grids, removed columns, the drawn card and the draw pile as the view shows them; what it
    hides is filled in from the unseen cards in deck order (to be redrawn)."""
    unseen = Counter(DECK)
    unseen.subtract(view["discard"])
    state.cards, state.cells, state.removed = [], [], []
    for s in range(state.players):
        shown = [value for row in view["grids"][s] for value in row]
        if len(shown) != CELLS:
            raise ValueError(f"seat {s}'s grid has {len(shown)} cells")
        removed = [(entry["column"], entry["value"]) for entry in view["removed"][s]]
        cards = [0 if value is None else value for value in shown]
        cells = [Cell.DOWN if value is None else Cell.UP for value in shown]
        for col, value in removed:
            for i in COLUMN_CELLS[col]:
                cards[i], cells[i] = value, Cell.GONE
        unseen.subtract(v for v, c in zip(cards, cells) if c is Cell.UP)
        state.cards.append(cards)
        state.cells.append(cells)
        state.removed.append(removed)
    drawer = view["drawer"]
    state.drawn = view["drawn"] if drawer == seat else None
    if state.drawn is not None:
        unseen[state.drawn] -= 1
    if any(count < 0 for count in unseen.values()):
        raise ValueError("it shows more cards of a value than the deck holds")
    hidden = list(unseen.elements())
    slots = [(s, i) for s in range(state.players) for i in range(CELLS)]
    down = [(s, i) for s, i in slots if state.cells[s][i] is Cell.DOWN]
    if len(hidden) != len(down) + view["draw_count"] + (drawer not in (None, seat)):
        raise ValueError("its cards do not add up to the deck")
    for (s, i), card in zip(down, hidden):
        state.cards[s][i] = card
    state.pile = hidden[len(down) :]
    if drawer not in (None, seat):
        state.drawn = state.pile.pop()


__all__ = ["load_view"]
