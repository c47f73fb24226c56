"""The words of Skyjo, which ``SkyjoGame`` gives as its own: each action in plain words
(``action_words``), each event as a line of the full log (``format_event``) and what an event
tells beyond the actions (``event_detail``: the card drawn, the cards turned over, a column
removed), for the referee's move list; and the rules in short (``RULES``: a person's ``?`` at
the table)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from arena.games.base import plain_event

__all__ = ["RULES", "action_words", "cell_words", "event_detail", "format_event"]

#: Skyjo in short (the whole: docs/games/skyjo.md).
RULES = """\
Skyjo: the lowest total wins. Cards -2 to 12; each player has a grid of 3 rows and 4
columns, face down. A cell R,C is row R (0-2), column C (0-3): row R+1, column C+1.
- Each round begins with everyone turning over two of their cards at once (reveal:R,C+R,C).
- Your turn: take-discard:R,C (the discard's top replaces that card), or draw, then
  swap:R,C (the drawn card replaces that card) or discard-flip:R,C (discard it and turn
  over a face-down card). The card replaced goes face up on the discard pile.
- Three equal face-up cards in a column are removed.
- When a player has no face-down card left, everyone else has one more turn; then all cards
  are turned and summed. The player who ended the round doubles their score unless it is
  the lowest.
- The game ends after the round in which a total reaches 100."""


def cell_words(name: str) -> str:
    """A cell ``R,C`` in plain words: ``row R+1, column C+1``."""
    row, col = name.split(",")
    return f"row {int(row) + 1}, column {int(col) + 1}"


def action_words(action: str) -> str:
    """An action in plain words ("puts the drawn card into row 1, column 2"), or the action
    itself where it has none."""
    verb, _, argument = action.partition(":")
    if verb == "reveal":
        first, second = argument.split("+")
        return f"turns over {cell_words(first)} and {cell_words(second)}"
    if verb == "draw":
        return "draws from the pile"
    if verb == "take-discard":
        return f"takes the discard into {cell_words(argument)}"
    if verb == "swap":
        return f"puts the drawn card into {cell_words(argument)}"
    if verb == "discard-flip":
        return f"discards the drawn card and turns over {cell_words(argument)}"
    if verb == "discard":
        return "discards the drawn card"
    return action


def _cards(cards: Iterable[int]) -> str:
    return " ".join(str(c) for c in cards)


def format_event(event: Mapping[str, Any]) -> str:
    """One readable line for a Skyjo event; its type and fields
    (``plain_event``) for an event it has no words for."""
    kind = event["type"]
    seat = event.get("seat")
    if kind == "deal":
        grids = "; ".join(f"seat {s}: {_cards(g)}" for s, g in enumerate(event["grids"]))
        return (
            f"round {event['round']} dealt: {grids}; discard {event['discard']}; "
            f"pile (top last) {_cards(event['pile'])}"
        )
    if kind in ("reveal", "final-reveal"):
        shown = ", ".join(f"{c}={v}" for c, v in zip(event["cells"], event["cards"]))
        return f"seat {seat} {kind}s {shown}"
    if kind in ("take-discard", "swap"):
        return (
            f"seat {seat} {kind}s {event['card']} into {event['cell']}, "
            f"discarding {event['replaced']}"
        )
    if kind == "discard-flip":
        return (
            f"seat {seat} discards {event['card']} and turns over {event['cell']}"
            f" = {event['flipped']}"
        )
    if kind == "discard":
        return f"seat {seat} discards {event['card']} and turns nothing over"
    if kind == "remove-column":
        return f"seat {seat} removes column {event['column']} of {event['card']}s"
    if kind == "round-end":
        return (
            f"round {event['round']} ends (ender {event['ender']}, capped "
            f"{event['capped']}): cards {event['raw']}, scores {event['scores']}, "
            f"totals {event['totals']}"
        )
    return plain_event(event)


def event_detail(event: Mapping[str, Any]) -> str | None:
    """What a card drawn, taken, discarded or turned over was, a column removed, the round's
    last turns, a reshuffle; None for an event the actions tell."""
    kind = event["type"]
    if kind == "draw":
        return f"the drawn card is a {event['card']}"
    if kind in ("take-discard", "swap"):
        return f"the {event['card']} replaces a {event['replaced']}"
    if kind == "discard-flip":
        return f"a {event['card']} is discarded; the card turned over is a {event['flipped']}"
    if kind == "reveal":
        return "the cards turned over are " + " and ".join(map(str, event["cards"]))
    if kind == "remove-column":
        return f"seat {event['seat']} removes column {event['column'] + 1} of {event['card']}s"
    if kind == "round-ending":
        return f"seat {event['seat']} has turned over every card: one last turn each"
    if kind == "reshuffle":
        return "the discard pile is shuffled into a new draw pile"
    return None
