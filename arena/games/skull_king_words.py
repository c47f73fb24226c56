"""The words of Skull King, which ``SkullKing`` gives as its own: each card in plain words
(``card_words``), each action (``action_words``), each event as a line of the full log
(``format_event``) and what an event tells beyond the actions (``event_detail``: who took a
trick), for the referee's move list; and the rules in short (``RULES``: a person's ``?`` at the
table)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.games.base import plain_event

__all__ = [
    "RULES",
    "SPECIAL",
    "SUITS",
    "action_words",
    "card_words",
    "event_detail",
    "format_event",
]

#: Skull King in short (the whole: docs/games/skull-king.md).
RULES = """\
Skull King: ten rounds; round r deals r cards each. Bid exactly the tricks you will take.
- Bidding: everyone bids at once (bid:N, 0 to the cards dealt); then all bids are shown.
- Tricks: the leader plays any card, then each in turn (play:CARD). Follow the lead suit
  with a numbered card if you can; special cards may always be played.
- Winner: Mermaid with the Skull King: the first Mermaid; else the Skull King; else the first
  Pirate (or Tigress as a Pirate); else the first Mermaid; else the highest black (trump);
  else the highest of the lead suit; only Escapes: the first card played.
- Suits: green G, yellow Y, purple P, black B (trump), 1-14. ESC Escape, PIR Pirate,
  TIG Tigress (play:TIG:pirate or play:TIG:escape), SK Skull King, MER Mermaid.
- Scoring: bid b >= 1 made: 20 per trick plus bonuses; missed: -10 per trick off. Bid 0
  made: 10 per card dealt; missed: -10 per card dealt. Highest total wins."""

#: The colour of each suit, by its letter.
SUITS = {"G": "green", "Y": "yellow", "P": "purple", "B": "black"}
#: Each card that is not numbered (and each way the Tigress is played): its title, and its
#: name in a sentence.
SPECIAL = {
    "ESC": ("Escape", "an Escape"),
    "PIR": ("Pirate", "a Pirate"),
    "TIG": ("Tigress", "the Tigress"),
    "TIG:pirate": ("Tigress", "the Tigress as a Pirate"),
    "TIG:escape": ("Tigress", "the Tigress as an Escape"),
    "SK": ("Skull King", "the Skull King"),
    "MER": ("Mermaid", "a Mermaid"),
    "LOOT": ("Loot", "a Loot"),
    "KRAKEN": ("Kraken", "the Kraken"),
    "WHALE": ("Whale", "the White Whale"),
}


def card_words(code: str) -> str:
    """A card in plain words: ``green 7``, ``the Kraken``, ``the Tigress as a Pirate``."""
    if code[:1] in SUITS and code[1:].isdigit():
        return f"{SUITS[code[0]]} {code[1:]}"
    return SPECIAL.get(code, (code, code))[1]


def action_words(action: str) -> str:
    """An action in plain words ("bids 2", "plays the Skull King"), or the action itself
    where it has none."""
    verb, _, argument = action.partition(":")
    if verb == "bid":
        return f"bids {argument}"
    if verb == "play":
        return f"plays {card_words(argument)}"
    return action


def format_event(event: Mapping[str, Any]) -> str:
    """One readable line for a Skull King event; its type and fields
    (``plain_event``) for an event it has no words for."""
    kind = event.get("type")
    if kind == "deal":
        hands = " | ".join(" ".join(h) for h in event["hands"])
        return (
            f"round {event['round']}: dealer {event['dealer']} deals {event['cards']} each: {hands}"
        )
    if kind == "bids":
        return f"bids {event['bids']}"
    if kind == "play":
        return f"seat {event['seat']} plays {event['card']}"
    if kind == "trick":
        who = "nobody" if event["winner"] is None else f"seat {event['winner']}"
        extra = f" (+{event['bonus']})" if event.get("bonus") else ""
        loot = f", loot {event['loot']}" if event.get("loot") else ""
        return f"trick to {who}{extra}{loot}; seat {event['next']} leads"
    if kind == "round":
        return f"round {event['round']} points {event['points']} totals {event['scores']}"
    if kind == "end":
        return f"game over: scores {event['scores']} places {event['places']}"
    return plain_event(event)


def event_detail(event: Mapping[str, Any]) -> str | None:
    """Who took a trick, with what bonus, and who leads next; None for any other event."""
    if event["type"] == "trick":
        who = "nobody (the Kraken)" if event["winner"] is None else f"seat {event['winner']}"
        bonus = f" with a bonus of {event['bonus']}" if event.get("bonus") else ""
        return f"the trick goes to {who}{bonus}; seat {event['next']} leads"
    return None
