"""The words of the disc games (``skull``, ``skull-bank``), which ``DiscGame`` gives as its own:
each action in plain words (``action_words``), each event as a line of the full log
(``format_event``) and what an event tells beyond the actions (``event_detail``: the disc turned
over, the disc drawn blind), for the referee's move list."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.games.base import plain_event

__all__ = ["action_words", "event_detail", "format_event"]


def action_words(action: str) -> str:
    """An action in plain words ("places a flower face down", "turns over seat 2's top
    disc"), or the action itself where it has none."""
    verb, _, argument = action.partition(":")
    if verb in ("place", "add"):
        return f"{'places' if verb == 'place' else 'adds'} a {argument} face down"
    if verb == "bid":
        return f"bids {argument}"
    if verb == "claim":
        return f"claims {argument}"
    if verb == "raise":
        return f"raises to {argument}"
    if verb == "pass":
        return "passes"
    if verb in ("agree", "disagree"):
        return verb + "s"
    if verb == "flip":
        return f"turns over seat {argument}'s top disc"
    if verb == "reveal":
        owner, at = argument.split(",")
        return f"reveals seat {owner}'s bill {int(at) + 1} (from the bottom)"
    if verb in ("discard", "give"):
        return f"{'discards' if verb == 'discard' else 'gives up'} a {argument}"
    if verb == "first":
        return f"chooses seat {argument} to start the next round"
    return action


_TEMPLATES = {
    "round": "round {round}: {first_word} is seat {starter}",
    "place": "seat {seat} places a {disc}",
    "add": "seat {seat} adds a {disc}",
    "bid": "seat {seat} bids {n}",
    "claim": "seat {seat} claims {n}",
    "raise": "seat {seat} raises to {n}",
    "pass": "seat {seat} passes",
    "agree": "seat {seat} agrees",
    "disagree": "seat {seat} disagrees",
    "button": "the button passes to seat {seat}, who must raise",
    "flip": "seat {by} flips seat {seat}'s disc: {disc}{auto_word}",
    "reveal": "seat {by} reveals seat {seat}'s bill: {disc}{auto_word}",
    "success": "seat {seat} succeeds",
    "failure": "seat {seat} fails on seat {skull}'s skull",
    "take": "seat {by} draws blind from seat {seat}: {disc}",
    "discard": "seat {seat} discards a {disc}",
    "give": "seat {seat} gives up a {disc}",
    "eliminated": "seat {seat} is eliminated",
    "first": "seat {seat} chooses seat {chosen} to start",
    "win": "seat {seat} wins",
    "end": "the game ends: {why}",
    "resampled": "state resampled for seat {seat}",
}


def format_event(event: Mapping[str, Any]) -> str:
    """One readable line for a disc-game event; its type and fields
    (``plain_event``) for an event it has no words for."""
    template = _TEMPLATES.get(str(event.get("type")))
    if template is None:
        return plain_event(event)
    fields = dict(event)
    fields["auto_word"] = " (automatic)" if event.get("auto") else ""
    fields.setdefault("first_word", "dealer" if "dealer" in event else "first player")
    fields.setdefault("starter", event.get("dealer", event.get("first")))
    try:
        return template.format(**fields)
    except (KeyError, IndexError):
        return plain_event(event)


def event_detail(event: Mapping[str, Any]) -> str | None:
    """What a disc turned over or lost was, who is out, where the button went; None for an
    event the actions tell."""
    kind = event["type"]
    if kind in ("flip", "reveal"):
        what = "disc" if kind == "flip" else "bill"
        auto = " (their own, turned first)" if event.get("auto") else ""
        return f"seat {event['seat']}'s {what} is a {event['disc']}{auto}"
    if kind == "take":
        return f"seat {event['by']} takes a {event['disc']} from seat {event['seat']}, blind"
    if kind in ("discard", "give") and not event.get("chosen", True):
        return f"seat {event['seat']} loses their last {event['disc']}"
    if kind == "eliminated":
        return f"seat {event['seat']} is out"
    if kind == "button":
        return f"everyone agreed: the button passes to seat {event['seat']}, who must raise"
    return None
