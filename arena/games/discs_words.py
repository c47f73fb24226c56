"""The words of the disc games (``skull``, ``skull-bank``), which ``DiscGame`` gives as its own:
each action in plain words (``action_words``), each event as a line of the full log
(``format_event``) and what an event tells beyond the actions (``event_detail``: the disc turned
over, the disc drawn blind), for the referee's move list; and each game's rules in short
(``SKULL_RULES``, ``BANK_RULES``: a person's ``?`` at the table)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.games.base import plain_event

__all__ = ["BANK_RULES", "SKULL_RULES", "action_words", "event_detail", "format_event"]

#: Skull in short (the whole: docs/games/skull.md).
SKULL_RULES = """\
Skull: each player owns 4 discs, 3 flowers and 1 skull; the second success wins.
- Setup: everyone places one disc face down at once. Then, in turn, place another disc on
  top of your stack (place:flower / place:skull) or open the auction with bid:N (at most
  the discs on all mats). With an empty hand you must bid.
- Auction: in turn, raise (bid:N) or pass; the last bidder is the challenger.
- Challenge: your own stack is turned over first, top first; then flip:SEAT turns over the
  top disc of another stack, until N flowers (a success) or a skull (a failure).
- Failure: on another's skull, its owner takes one of your discs blind; on your own, you
  discard one (discard:flower / discard:skull). No discs left: you are out.
- Places: the winner, then those still in by successes and discs, then the eliminated."""

#: Skull & Roses, bank variant, in short (the whole: docs/games/skull-bank.md).
BANK_RULES = """\
Skull & Roses (bank variant): each player owns 4 bills, 3 roses and 1 skull; the last
player with bills wins.
- Ante: everyone puts one bill face down at once. Then, in turn from the dealer, add a bill
  (add:rose / add:skull) or claim:N (at most the bills on the table): you become the dealer.
- Every other player answers once: agree, disagree or raise:M (the raiser becomes the
  dealer; answering starts again). If all agree, the button passes left and that player
  must raise. If anyone disagreed: showdown.
- Showdown: the dealer's own row is revealed first, then reveal:SEAT,POS any other bill
  (POS 0 is the bottom), N bills or until a skull.
- Only roses: every player who disagreed loses a bill, drawn blind. A skull: the dealer and
  everyone who agreed lose one (the skull's owner gives one, give:rose / give:skull, when a
  loser). No bills left: you are out."""


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
