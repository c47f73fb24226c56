"""Readable lines for the events of the disc games (``skull``, ``skull-bank``): what
``DiscGame.format_event`` shows in logs and replays."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

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


def describe(event: Mapping[str, Any]) -> str | None:
    """One readable line for a disc-game event, or None for an unknown type."""
    template = _TEMPLATES.get(str(event.get("type")))
    if template is None:
        return None
    fields = dict(event)
    fields["auto_word"] = " (automatic)" if event.get("auto") else ""
    fields.setdefault("first_word", "dealer" if "dealer" in event else "first player")
    fields.setdefault("starter", event.get("dealer", event.get("first")))
    try:
        return template.format(**fields)
    except (KeyError, IndexError):
        return None
