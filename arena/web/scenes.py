"""Tables to draw: each game's state turned into a *scene* the replay viewer paints.

A scene is plain data: ``caption``, ``info`` (label/value pairs), ``seats`` (each with
``seat``, ``name``, ``active``, ``notes`` and ``zones``) and ``center`` zones. A zone is
``{"label", "kind": "row"|"grid", "cols", "items"}`` and an item ``{"t": text, "c": class}``
(class ``back`` for a card or disc whose face is hidden).

Two builders per game: ``seat_scene(game, view, names)`` from the engine's ``view(seat)``
alone -- so a seat's scene can only hold what that seat may know -- and
``full_scene(game, full, names)`` from the engine's ``full()`` (the referee's view: every
face, face-down ones marked ``down``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["full_scene", "seat_scene"]

Scene = dict[str, Any]
Item = dict[str, str]

DISC_BACK: Item = {"t": "", "c": "disc back"}
CARD_BACK: Item = {"t": "", "c": "card back"}
SJ_BACK: Item = {"t": "", "c": "sj back"}


def _zone(label: str, items: list[Item], *, kind: str = "row", cols: int = 0) -> dict[str, Any]:
    return {"label": label, "kind": kind, "cols": cols, "items": items}


def _seat(
    seat: int, names: Sequence[str], active: bool, notes: list[str], zones: list[dict[str, Any]]
) -> dict[str, Any]:
    return {
        "seat": seat,
        "name": names[seat] if seat < len(names) else f"seat {seat}",
        "active": active,
        "notes": notes,
        "zones": zones,
    }


def _scene(
    caption: str,
    info: list[tuple[str, Any]],
    seats: list[dict[str, Any]],
    center: list[dict[str, Any]],
) -> Scene:
    return {
        "caption": caption,
        "info": [[k, "-" if v is None else str(v)] for k, v in info],
        "seats": seats,
        "center": center,
    }


# -- skull and skull-bank: discs ------------------------------------------------------------

_GOOD = {"skull": "flower", "skull-bank": "rose"}


def _disc(kind: str, *, state: str = "") -> Item:
    return {"t": kind, "c": f"disc {kind} {state}".strip()}


def _disc_notes(game: str, public: dict[str, Any]) -> list[str]:
    notes = []
    if public.get("eliminated"):
        notes.append("eliminated")
    if game == "skull":
        if public.get("successes"):
            notes.append(f"{public['successes']} success")
        if public.get("passed"):
            notes.append("passed")
    elif public.get("answer"):
        notes.append(str(public["answer"]))
    return notes


def _disc_info(game: str, data: dict[str, Any]) -> list[tuple[str, Any]]:
    info: list[tuple[str, Any]] = [("round", data.get("round")), ("phase", data.get("phase"))]
    if game == "skull":
        info += [
            ("bid", data.get("bid")),
            ("bidder", data.get("bidder")),
            ("challenger", data.get("challenger")),
        ]
    else:
        info += [("dealer", data.get("dealer")), ("claim", data.get("claim"))]
    return info + [("winner", data.get("winner"))]


def _disc_seat_scene(game: str, view: dict[str, Any], names: Sequence[str]) -> Scene:
    good, me, to_act = _GOOD[game], view["seat"], set(view.get("to_act") or ())
    faces: dict[int, dict[int, str]] = {}
    if game == "skull":  # a stack is turned over from its top
        for owner in {o for o, _ in view.get("flips", [])}:
            kinds = [k for o, k in view["flips"] if o == owner]
            placed = view["seats"][owner]["placed"]
            faces[owner] = {placed - 1 - i: k for i, k in enumerate(kinds)}
    else:
        for owner, at, kind in view.get("revealed", []):
            faces.setdefault(owner, {})[at] = kind
    own_pile = view.get("stack" if game == "skull" else "row", [])
    seats = []
    for seat, public in enumerate(view["seats"]):
        shown = faces.get(seat, {})
        pile = []
        for at in range(public["placed"]):
            if at in shown:
                pile.append(_disc(shown[at], state="up"))
            elif seat == me:
                pile.append(_disc(own_pile[at], state="down"))
            else:
                pile.append(DISC_BACK)
        if seat == me:
            hand = [_disc(good)] * view["hand"].get(good, 0) + [_disc("skull")] * view["hand"].get(
                "skull", 0
            )
            lost = [_disc(k, state="gone") for k in view.get("lost", [])]
        else:
            hand = [DISC_BACK] * public["in_hand"]
            lost = [{"t": "", "c": "disc back gone"}] * (4 - public["owned"])
        seats.append(
            _seat(
                seat,
                names,
                seat in to_act,
                _disc_notes(game, public),
                [_zone("hand", hand), _zone("pile", pile), _zone("lost", lost)],
            )
        )
    return _scene(f"as seen by seat {me}", _disc_info(game, view), seats, [])


def _disc_full_scene(game: str, full: dict[str, Any], names: Sequence[str]) -> Scene:
    good = _GOOD[game]
    kinds = (good, "skull")
    seats = []
    for seat, kit in enumerate(full["kits"]):
        pile = kit["pile"]
        if game == "skull":
            up = set(range(len(pile) - kit["shown"], len(pile)))
            public = {"passed": full["passed"][seat], "successes": full["successes"][seat]}
        else:
            up = set(full["up"][seat]) if full.get("up") else set()
            public = {"answer": (full.get("answers") or [None] * len(full["kits"]))[seat]}
        public["eliminated"] = kit["out"] is not None
        hand = [_disc(good)] * kit["hand"][0] + [_disc("skull")] * kit["hand"][1]
        disc_pile = [
            _disc(kinds[k], state="up" if at in up else "down") for at, k in enumerate(pile)
        ]
        lost = [_disc(kinds[k], state="gone") for k in kit["lost"]]
        active = full.get("turn") == seat or (
            full.get("phase") in ("setup", "ante") and kit["out"] is None
        )
        seats.append(
            _seat(
                seat,
                names,
                active,
                _disc_notes(game, public),
                [_zone("hand", hand), _zone("pile", disc_pile), _zone("lost", lost)],
            )
        )
    return _scene("referee: everything", _disc_info(game, full), seats, [])


# -- skull-king: cards ----------------------------------------------------------------------


def _card(code: str, *, state: str = "") -> Item:
    suit = code[0] if code[:1] in "GYPB" and code[1:].isdigit() else code.lower()
    return {"t": code, "c": f"card sk-{suit} {state}".strip()}


def _sk_info(data: dict[str, Any]) -> list[tuple[str, Any]]:
    return [
        ("round", data.get("round")),
        ("cards", data.get("cards")),
        ("phase", data.get("phase")),
        ("dealer", data.get("dealer")),
        ("leader", data.get("leader")),
        ("to play", data.get("turn")),
    ]


def _sk_notes(data: dict[str, Any], seat: int) -> list[str]:
    bids = data.get("bids")
    bid = "?" if bids is None or bids[seat] is None else bids[seat]
    return [f"bid {bid}", f"won {data['won'][seat]}", f"score {data['scores'][seat]}"]


def _sk_seat_scene(game: str, view: dict[str, Any], names: Sequence[str]) -> Scene:
    me, players = view["seat"], view["players"]
    trick, leader = view.get("trick") or [], view.get("leader") or 0
    played_now = {(leader + i) % players for i in range(len(trick))}
    seats = []
    for seat in range(players):
        if seat == me:
            hand = [_card(c) for c in view["hand"]]
        else:
            left = view["cards"] - len(view.get("tricks") or []) - (seat in played_now)
            hand = [CARD_BACK] * max(0, left)
        seats.append(
            _seat(
                seat, names, view.get("turn") == seat, _sk_notes(view, seat), [_zone("hand", hand)]
            )
        )
    center = [
        _zone(
            "trick",
            [_card(c) | {"t": f"{c} ({(leader + i) % players})"} for i, c in enumerate(trick)],
        )
    ]
    done = view.get("tricks") or []
    if done:
        last = done[-1]
        center.append(
            _zone(f"last trick (won by seat {last['winner']})", [_card(c) for c in last["cards"]])
        )
    return _scene(f"as seen by seat {me}", _sk_info(view), seats, center)


def _sk_full_scene(game: str, full: dict[str, Any], names: Sequence[str]) -> Scene:
    seats = [
        _seat(
            seat,
            names,
            full.get("turn") == seat,
            _sk_notes(full, seat),
            [_zone("hand", [_card(c, state="down") for c in hand])],
        )
        for seat, hand in enumerate(full["hands"])
    ]
    center = [_zone("trick", [_card(c) | {"t": f"{c} ({s})"} for s, c in full["trick"]])]
    if full["tricks"]:
        center.append(
            _zone("last trick", [_card(c) | {"t": f"{c} ({s})"} for s, c in full["tricks"][-1]])
        )
    center.append(_zone(f"undealt: {len(full['undealt'])} cards", []))
    return _scene("referee: everything", _sk_info(full), seats, center)


# -- skyjo: grids ---------------------------------------------------------------------------


def _sj(value: int | None, *, state: str = "") -> Item:
    if value is None:
        return {"t": "", "c": f"sj back {state}".strip()}
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
    return {"t": str(value), "c": f"sj sj-{colour} {state}".strip()}


def _sj_info(data: dict[str, Any], turn: Any) -> list[tuple[str, Any]]:
    return [
        ("round", data.get("round")),
        ("phase", data.get("phase")),
        ("turn of", turn),
        ("ender", data.get("ender")),
        ("totals", " / ".join(map(str, data["totals"]))),
    ]


def _sj_seat_scene(game: str, view: dict[str, Any], names: Sequence[str]) -> Scene:
    seats = []
    for seat, grid in enumerate(view["grids"]):
        gone = {r["column"] for r in view["removed"][seat]}
        items = [
            {"t": "", "c": "sj gone"} if col in gone else _sj(value)
            for row in grid
            for col, value in enumerate(row)
        ]
        seats.append(
            _seat(
                seat,
                names,
                view.get("turn") == seat,
                [],
                [_zone("grid", items, kind="grid", cols=len(grid[0]))],
            )
        )
    center = [
        _zone(f"draw pile: {view['draw_count']}", [SJ_BACK]),
        _zone("discard", [_sj(view["discard_top"])] if view.get("discard_top") is not None else []),
    ]
    if view.get("drawn") is not None:
        center.append(_zone("drawn card", [_sj(view["drawn"])]))
    elif view.get("drawer") is not None:
        center.append(_zone(f"seat {view['drawer']} drew", [SJ_BACK]))
    return _scene(
        f"as seen by seat {view['seat']}", _sj_info(view, view.get("turn")), seats, center
    )


def _sj_full_scene(game: str, full: dict[str, Any], names: Sequence[str]) -> Scene:
    seats = []
    for seat, (cards, cells) in enumerate(zip(full["cards"], full["cells"])):
        items = [
            {"t": "", "c": "sj gone"}
            if cell == 2
            else _sj(value, state="up" if cell == 1 else "down")
            for value, cell in zip(cards, cells)
        ]
        seats.append(
            _seat(
                seat,
                names,
                full.get("current") == seat,
                [],
                [_zone("grid", items, kind="grid", cols=4)],
            )
        )
    pile = full["pile"]
    center = [
        _zone(f"draw pile: {len(pile)}", [_sj(pile[-1], state="down")] if pile else []),
        _zone("discard", [_sj(full["discard"][-1])] if full["discard"] else []),
    ]
    if full.get("drawn") is not None:
        center.append(_zone("drawn card", [_sj(full["drawn"])]))
    turn = full["current"] if full.get("current", -1) >= 0 else None
    return _scene("referee: everything", _sj_info(full, turn), seats, center)


_SEAT: dict[str, Callable[[str, dict[str, Any], Sequence[str]], Scene]] = {
    "skull": _disc_seat_scene,
    "skull-bank": _disc_seat_scene,
    "skull-king": _sk_seat_scene,
    "skyjo": _sj_seat_scene,
}
_FULL: dict[str, Callable[[str, dict[str, Any], Sequence[str]], Scene]] = {
    "skull": _disc_full_scene,
    "skull-bank": _disc_full_scene,
    "skull-king": _sk_full_scene,
    "skyjo": _sj_full_scene,
}


def seat_scene(game: str, view: dict[str, Any], names: Sequence[str]) -> Scene:
    """The table as one seat sees it, from that seat's ``view`` only."""
    builder = _SEAT.get(game)
    return (
        builder(game, view, names)
        if builder
        else _scene(f"as seen by seat {view.get('seat')}", [], [], [])
    )


def full_scene(game: str, full: dict[str, Any], names: Sequence[str]) -> Scene:
    """The whole table (referee), from the engine's ``full()``."""
    builder = _FULL.get(game)
    return builder(game, full, names) if builder else _scene("referee", [], [], [])
