"""Each game's score sheet, round by round. (The moves in words are the game's own:
``Game.action_words`` and ``Game.event_detail``.)"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ScoreSheet", "score_sheet"]


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
