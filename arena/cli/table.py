"""A seat's table as text, for a person at the terminal (``arena play --human``): the scene the
replay viewer draws for that seat (the game's presentation, ``arena.web.games``, from the seat's
view alone) written as lines (``table_lines``), and what changed between two such scenes
(``changes``: the short history a person is shown since their last decision).

Every word comes from the presentation's scene: its info, its notes, and each card's or disc's
plain words (an item's ``h``); a grid is drawn by its cells' texts, ``?`` for a face hidden. So
the terminal says what the replays say, and shows no more than the seat's view holds.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from arena.games import get_game
from arena.web.games import presentation
from arena.web.scenes import Scene

__all__ = ["changes", "seat_scene", "table_lines"]

#: How a grid cell whose face is hidden, or which is gone, is drawn.
HIDDEN, GONE = "?", "x"


def seat_scene(game: str, view: Mapping[str, Any], names: Sequence[str], acting: Iterable[int]):
    """The scene of ``view`` (a seat's) as the replay viewer draws it for that seat."""
    return presentation(get_game(game)).seat_scene(dict(view), names, frozenset(acting))


def _classes(item: Mapping[str, str]) -> list[str]:
    return item["c"].split()


def _words(items: Sequence[Mapping[str, str]]) -> str:
    """A row's items in plain words, runs of the same words counted: ``3 × disc in hand``."""
    runs: list[list[Any]] = []
    for item in items:
        if runs and runs[-1][0] == item["h"]:
            runs[-1][1] += 1
        else:
            runs.append([item["h"], 1])
    return "; ".join(words if n == 1 else f"{n} × {words}" for words, n in runs) or "none"


def _cell(item: Mapping[str, str]) -> str:
    classes = _classes(item)
    if "gone" in classes:
        return GONE
    if "back" in classes or not item["t"]:
        return HIDDEN
    return item["t"]


def _grid(zone: Mapping[str, Any]) -> list[str]:
    """A grid zone as numbered rows and columns of cells, aligned, and what its marks mean."""
    cols = zone["cols"] or len(zone["items"]) or 1
    cells = [_cell(item) for item in zone["items"]]
    width = max([2, len(str(cols)), *map(len, cells)])
    head = "  ".join(str(col + 1).rjust(width) for col in range(cols))
    rows = [
        f"row {at // cols + 1}:".ljust(8) + "  ".join(c.rjust(width) for c in cells[at : at + cols])
        for at in range(0, len(cells), cols)
    ]
    marks = {_cell(item): item["h"] for item in zone["items"] if _cell(item) in (HIDDEN, GONE)}
    legend = ", ".join(f"{mark} {words}" for mark, words in sorted(marks.items()))
    label = f"{zone['label']}:" + (f" ({legend})" if legend else "")
    return [label, "  " + "column".ljust(8) + head, *(f"  {row}" for row in rows)]


def _zone(zone: Mapping[str, Any]) -> list[str]:
    if zone["kind"] == "grid":
        return _grid(zone)
    items = zone["items"]
    if len(items) == 1 and items[0]["h"] in zone["label"]:  # "draw pile: 113"
        return [zone["label"]]
    return [f"{zone['label']}: {_words(items)}"]


def table_lines(scene: Scene, seat: int) -> list[str]:
    """The scene as lines: its info, each seat (``>`` marks those to act, ``(you)`` the
    person's) with its notes and zones, then the table's centre."""
    lines = [" · ".join(f"{key} {value}" for key, value in scene["info"])]
    for box in scene["seats"]:
        mark = ">" if box["active"] else " "
        you = " (you)" if box["seat"] == seat else ""
        notes = ", ".join(box["notes"])
        lines.append(
            f"{mark} seat {box['seat']} {box['name']}{you}" + (f": {notes}" if notes else "")
        )
        for zone in box["zones"]:
            lines.extend(f"      {line}" for line in _zone(zone))
    for zone in scene["center"]:
        lines.extend(f"  {line}" for line in _zone(zone))
    return lines


def _key(label: str) -> str:
    """A zone's label without its numbers (``draw pile: 112``): the same zone a step later."""
    return re.sub(r"\d+", "#", label)


def _zone_changes(where: str, before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    old, new = before["items"], after["items"]
    if [i["h"] for i in old] == [i["h"] for i in new] and before["label"] == after["label"]:
        return []
    label = after["label"]
    if after["kind"] == "grid" and len(old) == len(new):
        cols = after["cols"] or 1
        return [
            f"{where}{label} row {at // cols + 1}, column {at % cols + 1}: {a['h']} -> {b['h']}"
            for at, (a, b) in enumerate(zip(old, new))
            if a["h"] != b["h"]
        ]
    if before["label"] != label and [i["h"] for i in old] == [i["h"] for i in new]:
        return [f"{where}{before['label']} -> {label}"]
    return [f"{where}{label}: {_words(old)} -> {_words(new)}"]


def _zones_changes(
    where: str, before: Sequence[Mapping[str, Any]], after: Sequence[Mapping[str, Any]]
) -> list[str]:
    was = {_key(z["label"]): z for z in before}
    lines = []
    for zone in after:
        old = was.pop(_key(zone["label"]), None)
        if old is None:
            lines.append(f"{where}{zone['label']}: {_words(zone['items'])}")
        else:
            lines.extend(_zone_changes(where, old, zone))
    lines.extend(f"{where}{zone['label']}: gone" for zone in was.values())
    return lines


def changes(before: Scene, after: Scene) -> list[str]:
    """What changed from one scene of a seat to a later one, a line per change: the info
    (``bid: - -> 3``), each seat's notes and zones (a grid cell by cell), the centre. A new
    round is said by its info and notes (scores, successes); its new deal is the table."""
    was = dict(map(tuple, before["info"]))
    now = dict(map(tuple, after["info"]))
    lines = [
        f"{key}: {was[key]} -> {value}"
        for key, value in now.items()
        if key in was and was[key] != value
    ]
    new_round = "round" in now and was.get("round") != now["round"]
    for old, box in zip(before["seats"], after["seats"]):
        where = f"seat {box['seat']} "
        if old["notes"] != box["notes"]:
            gone = [note for note in old["notes"] if note not in box["notes"]]
            added = [note for note in box["notes"] if note not in old["notes"]]
            lines.append(f"{where}{', '.join(gone) or '-'} -> {', '.join(added) or '-'}")
        if not new_round:
            lines.extend(_zones_changes(where, old["zones"], box["zones"]))
    if not new_round:
        lines.extend(_zones_changes("", before["center"], after["center"]))
    return lines
