"""Skyjo's table in the replay viewer: each seat's grid (removed columns shown), the draw pile,
the discard and the drawn card; a round's end (the last cards turned and the round's points);
the score sheet of round points, doubled or not, and totals."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from arena.games.skyjo_actions import COLS, COLUMN_CELLS
from arena.web.games import register
from arena.web.games.base import Data, Ending, Presentation, ScoreSheet, seat_columns
from arena.web.scenes import STATE_WORDS, Item, Scene, back, item, scene, seat_box, seat_word, zone

__all__ = ["SkyjoTable"]


@functools.cache
def card(value: int | None, *, state: str = "") -> Item:
    """A card of ``value`` (None: face down), coloured by its value."""
    if value is None:
        return back("sj", "face-down card")
    colour = (
        "neg"
        if value < 0
        else "zero"
        if value == 0
        else "low"
        if value <= 4
        else "mid"
        if value <= 8
        else "high"
    )
    words = f"{value} ({STATE_WORDS[state]})" if state else str(value)
    return item(str(value), f"sj sj-{colour} {state}".strip(), words)


GONE: Item = item("", "sj gone", "removed column")


def _info(data: Data, turn: Any) -> list[tuple[str, Any]]:
    return [
        ("round", data.get("round")),
        ("phase", data.get("phase")),
        ("turn of", seat_word(turn)),
        ("ender", seat_word(data.get("ender"))),
        ("totals", " / ".join(map(str, data["totals"]))),
    ]


def _cell(name: str) -> tuple[int, int]:
    row, col = name.split(",")
    return int(row), int(col)


class SkyjoTable(Presentation):
    name = "skyjo"
    ROUND_ENDS = frozenset({"round-end"})
    LEGEND = "legends/skyjo.html"

    def seat_scene(self, view: Data, names: Sequence[str], acting: frozenset[int]) -> Scene:
        seats = []
        for seat, grid in enumerate(view["grids"]):
            gone = {r["column"] for r in view["removed"][seat]}
            items = [
                GONE if col in gone else card(value, state="up" if value is not None else "")
                for row in grid
                for col, value in enumerate(row)
            ]
            seats.append(
                seat_box(
                    seat,
                    names,
                    acting,
                    [f"total {view['totals'][seat]}"],
                    [zone("grid", items, kind="grid", cols=len(grid[0]))],
                )
            )
        center = [
            zone(f"draw pile: {view['draw_count']}", [back("sj", "draw pile")]),
            zone(
                "discard",
                [card(view["discard_top"])] if view.get("discard_top") is not None else [],
            ),
        ]
        if view.get("drawn") is not None:
            center.append(zone("drawn card", [card(view["drawn"])]))
        elif view.get("drawer") is not None:
            center.append(zone(f"seat {view['drawer']} drew", [back("sj", "the drawn card")]))
        return scene(
            f"as seen by seat {view['seat']}", _info(view, view.get("turn")), seats, center
        )

    def full_scene(self, full: Data, names: Sequence[str], acting: frozenset[int]) -> Scene:
        seats = []
        for seat, (cards, cells) in enumerate(zip(full["cards"], full["cells"])):
            items = [
                GONE if cell == 2 else card(value, state="up" if cell == 1 else "down")
                for value, cell in zip(cards, cells)
            ]
            seats.append(
                seat_box(
                    seat,
                    names,
                    acting,
                    [f"total {full['totals'][seat]}"],
                    [zone("grid", items, kind="grid", cols=4)],
                )
            )
        pile = full["pile"]
        center = [
            zone(f"draw pile: {len(pile)}", [card(pile[-1], state="down")] if pile else []),
            zone("discard", [card(full["discard"][-1])] if full["discard"] else []),
        ]
        if full.get("drawn") is not None:
            drawer = full["current"]
            center.append(zone(f"seat {drawer} drew", [card(full["drawn"], state="down")]))
        turn = full["current"] if full.get("current", -1) >= 0 else None
        return scene("referee: everything", _info(full, turn), seats, center)

    def ending(
        self, full: Data, views: dict[int, Data], events: Sequence[Data], after: Data
    ) -> Ending:
        """The cards turned and discarded in the round's last step, and its points."""
        end = next(e for e in events if e["type"] == "round-end")

        def show(seat: int, name: str, value: int) -> None:
            row, col = _cell(name)
            full["cards"][seat][row * COLS + col] = value
            full["cells"][seat][row * COLS + col] = 1
            for view in views.values():
                view["grids"][seat][row][col] = value

        def discard(*cards: int, taken: bool = False) -> None:
            pile = full["discard"][:-1] if taken else full["discard"]
            full["discard"] = [*pile, *cards]
            for view in views.values():
                view["discard_top"] = cards[-1]

        for event in events:
            kind, seat = event["type"], event.get("seat")
            if kind in ("take-discard", "swap"):
                show(seat, event["cell"], event["card"])
                discard(event["replaced"], taken=kind == "take-discard")
            elif kind == "discard-flip":
                show(seat, event["cell"], event["flipped"])
                discard(event["card"])
            elif kind == "discard":
                discard(event["card"])
            elif kind == "final-reveal":
                for name, value in zip(event["cells"], event["cards"]):
                    show(seat, name, value)
            elif kind == "remove-column":
                for index in COLUMN_CELLS[event["column"]]:
                    full["cells"][seat][index] = 2
                for view in views.values():
                    view["removed"][seat].append(
                        {"column": event["column"], "value": event["card"]}
                    )
                discard(event["card"], event["card"], event["card"])
        changes = {"phase": "scoring", "totals": list(end["totals"]), "ender": end["ender"]}
        full.update(changes, drawn=None, current=-1)
        for view in views.values():
            view.update(changes, drawn=None, drawer=None, turn=None)
        scores = ", ".join(
            f"seat {s} {score}" + (f" (doubled: 2 × {raw})" if score != raw else "")
            for s, (raw, score) in enumerate(zip(end["raw"], end["scores"]))
        )
        how = (
            "the turn cap" if end["capped"] else f"seat {end['ender']} turned over their last card"
        )
        banner = f"round {end['round']} over ({how}): round points {scores}"
        return Ending(full, views, banner)

    def score_sheet(
        self, players: int, names: Sequence[str], events: Sequence[Mapping[str, Any]]
    ) -> ScoreSheet:
        """Each round's ender and points (doubled or not), with the totals."""
        sheet = ScoreSheet(("round", "ended by") + seat_columns(players, names, "points"))
        for e in events:
            if e["type"] == "round-end":
                cells = tuple(
                    f"{score}" + (f" (2 × {raw})" if score != raw else "") + f" ({total})"
                    for raw, score, total in zip(e["raw"], e["scores"], e["totals"])
                )
                ender = "turn cap" if e["capped"] else f"seat {e['ender']}"
                sheet.rows.append((str(e["round"]), ender, *cells))
        return sheet


register(SkyjoTable())
