"""A replay in words: each action as a sentence ("bids 3", "plays the Kraken", "swaps the
drawn card into row 1, column 2"), the referee's details of a step (what was turned over, drawn
or taken), and each game's score sheet, round by round.

``action_words`` reads only the action a seat chose (what that seat knew); ``event_words`` reads
the engine's full-information events, for the referee's move list.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.web.scenes import card_words

__all__ = ["ScoreSheet", "action_words", "event_words", "score_sheet"]


def _cell_words(name: str) -> str:
    row, col = name.split(",")
    return f"row {int(row) + 1}, column {int(col) + 1}"


def _disc_words(verb: str, argument: str) -> str | None:
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
    return None


def _sk_words(verb: str, argument: str) -> str | None:
    if verb == "bid":
        return f"bids {argument}"
    if verb == "play":
        return f"plays {card_words(argument)}"
    return None


def _sj_words(verb: str, argument: str) -> str | None:
    if verb == "reveal":
        first, second = argument.split("+")
        return f"turns over {_cell_words(first)} and {_cell_words(second)}"
    if verb == "draw":
        return "draws from the pile"
    if verb == "take-discard":
        return f"takes the discard into {_cell_words(argument)}"
    if verb == "swap":
        return f"puts the drawn card into {_cell_words(argument)}"
    if verb == "discard-flip":
        return f"discards the drawn card and turns over {_cell_words(argument)}"
    if verb == "discard":
        return "discards the drawn card"
    return None


_WORDS = {"skull": _disc_words, "skull-bank": _disc_words, "skull-king": _sk_words}


def action_words(game: str, action: str) -> str:
    """An action in plain words (the action string itself if the game's words miss it)."""
    verb, _, argument = action.partition(":")
    words = _WORDS.get(game, _sj_words if game == "skyjo" else None)
    return (words(verb, argument) if words else None) or action


def _disc_event(event: Mapping[str, Any]) -> str | None:
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


def _sk_event(event: Mapping[str, Any]) -> str | None:
    if event["type"] == "trick":
        who = "nobody (the Kraken)" if event["winner"] is None else f"seat {event['winner']}"
        bonus = f" with a bonus of {event['bonus']}" if event.get("bonus") else ""
        return f"the trick goes to {who}{bonus}; seat {event['next']} leads"
    return None


def _sj_event(event: Mapping[str, Any]) -> str | None:
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


_EVENTS = {"skull": _disc_event, "skull-bank": _disc_event, "skull-king": _sk_event}


def event_words(game: str, events: Sequence[Mapping[str, Any]]) -> list[str]:
    """The referee's details of a step, from its full-information events."""
    words = _EVENTS.get(game, _sj_event if game == "skyjo" else None)
    if words is None:
        return []
    return [text for text in map(words, events) if text]


@dataclass(frozen=True)
class ScoreSheet:
    """A game's score sheet: a header row and one row per round (text cells), and the frame
    each row's round ends at (for a link into the replay)."""

    columns: tuple[str, ...]
    rows: list[tuple[str, ...]] = field(default_factory=list)
    frames: list[int | None] = field(default_factory=list)


def _seat_columns(players: int, names: Sequence[str], what: str) -> tuple[str, ...]:
    return tuple(f"seat {s} ({names[s]}): {what}" for s in range(players))


def score_sheet(
    game: str, players: int, names: Sequence[str], events: Sequence[Mapping[str, Any]]
) -> ScoreSheet:
    """The score sheet of a finished game, from its full event log (which each row's frame
    is filled in by the caller)."""
    if game == "skull-king":
        sheet = ScoreSheet(("round",) + _seat_columns(players, names, "bid / won → points"))
        for e in events:
            if e["type"] == "round":
                cells = tuple(
                    f"{b} / {w} → {p:+d} ({t})"
                    for b, w, p, t in zip(e["bids"], e["won"], e["points"], e["scores"])
                )
                sheet.rows.append((str(e["round"]), *cells))
        return sheet
    if game == "skyjo":
        sheet = ScoreSheet(("round", "ended by") + _seat_columns(players, names, "points"))
        for e in events:
            if e["type"] == "round-end":
                cells = tuple(
                    f"{score}" + (f" (2 × {raw})" if score != raw else "") + f" ({total})"
                    for raw, score, total in zip(e["raw"], e["scores"], e["totals"])
                )
                ender = "turn cap" if e["capped"] else f"seat {e['ender']}"
                sheet.rows.append((str(e["round"]), ender, *cells))
        return sheet
    if game in ("skull", "skull-bank"):
        return _disc_sheet(game, players, names, events)
    return ScoreSheet(())


def _disc_sheet(
    game: str, players: int, names: Sequence[str], events: Sequence[Mapping[str, Any]]
) -> ScoreSheet:
    """Skull: challenger, bid, outcome; each seat's successes and discs lost so far.
    Skull-bank: dealer, claim, outcome; each seat's bills lost so far."""
    successes, lost = [0] * players, [0] * players
    bidder, bid, outcome = None, 0, ""
    what = "successes / discs lost" if game == "skull" else "bills lost"
    sheet = ScoreSheet(("round", "challenge", "outcome") + _seat_columns(players, names, what))
    for e in events:
        kind = e["type"]
        if kind in ("bid", "claim", "raise"):
            bidder, bid = e["seat"], e["n"]
        elif kind == "success":
            successes[e["seat"]] += 1
            outcome = "success"
        elif kind == "failure":
            outcome = f"met seat {e['skull']}'s skull"
        elif kind in ("take", "discard", "give"):
            lost[e["seat"]] += 1
        elif kind in ("round", "win", "end") and outcome:
            cells = tuple(
                f"{successes[s]} / {lost[s]}" if game == "skull" else str(lost[s])
                for s in range(players)
            )
            sheet.rows.append((str(len(sheet.rows) + 1), f"seat {bidder}: {bid}", outcome, *cells))
            outcome = ""
    return sheet
