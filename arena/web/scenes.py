"""Tables to draw: what a *scene* is (the table the replay viewer paints at one frame) and the
parts every game's scenes are made of.

A scene is plain data: ``caption``, ``info`` (label/value pairs), ``banner`` (what just
happened at the end of a round or of the game, else None), ``seats`` (each with ``seat``,
``name``, ``active``, ``notes`` and ``zones``) and ``center`` zones. A zone is
``{"label", "kind": "row"|"grid", "cols", "items"}`` and an item ``{"t": text, "c": class,
"h": the same in plain words}``, with ``"s"`` (a second, smaller line) on cards. Items are
shared between scenes (made once each): a scene is read, never changed. Class ``back``
marks a card or disc whose face is hidden, ``down`` a face the referee sees but the other
players do not, ``up`` a face everyone sees, ``gone`` a lost disc or a removed card.

Each game draws its own scenes (``arena.web.games``): a seat's from the engine's
``view(seat)`` alone -- so a seat's scene can only hold what that seat may know -- and the
referee's from the engine's ``full()`` (every face).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

__all__ = ["STATE_WORDS", "Item", "Scene", "back", "item", "scene", "seat_box", "seat_word", "zone"]

Scene = dict[str, Any]
Item = dict[str, str]

#: What each state of an item is called in plain words.
STATE_WORDS = {"up": "face up", "down": "face down", "gone": "lost", "": ""}


def item(text: str, cls: str, words: str, sub: str | None = None) -> Item:
    """A card or disc: its text, its classes, the same in plain words (and a second line)."""
    made = {"t": text, "c": cls, "h": words}
    if sub is not None:
        made["s"] = sub
    return made


@functools.cache
def back(kind: str, words: str) -> Item:
    """A card or disc of ``kind`` whose face is hidden (made once for each)."""
    return item("", f"{kind} back", words)


def zone(label: str, items: list[Item], *, kind: str = "row", cols: int = 0) -> dict[str, Any]:
    """A row (or a grid of ``cols`` columns) of items under a label."""
    return {"label": label, "kind": kind, "cols": cols, "items": items}


def seat_box(
    seat: int,
    names: Sequence[str],
    acting: frozenset[int],
    notes: list[str],
    zones: list[dict[str, Any]],
) -> dict[str, Any]:
    """A seat at the table: its entrant's name, whether it is to act, notes and zones."""
    return {
        "seat": seat,
        "name": names[seat] if seat < len(names) else f"seat {seat}",
        "active": seat in acting,
        "notes": notes,
        "zones": zones,
    }


def scene(
    caption: str,
    info: list[tuple[str, Any]],
    seats: list[dict[str, Any]],
    center: list[dict[str, Any]],
) -> Scene:
    """A scene without a banner (the frame's builder sets it); an info value of None shows
    as ``-``."""
    return {
        "caption": caption,
        "info": [[k, "-" if v is None else str(v)] for k, v in info],
        "banner": None,
        "seats": seats,
        "center": center,
    }


def seat_word(seat: Any) -> str | None:
    """``seat N``, or None for no seat."""
    return None if seat is None else f"seat {seat}"
