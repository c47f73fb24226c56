"""Tables to draw: each game's state turned into a *scene* the replay viewer paints.

A scene is plain data: ``caption``, ``info`` (label/value pairs), ``banner`` (what just
happened at the end of a round or of the game, else None), ``seats`` (each with ``seat``,
``name``, ``active``, ``notes`` and ``zones``) and ``center`` zones. A zone is
``{"label", "kind": "row"|"grid", "cols", "items"}`` and an item ``{"t": text, "c": class,
"h": the same in plain words}``, with ``"s"`` (a second, smaller line) on cards. Items are
shared between scenes (made once each): a scene is read, never changed. Class ``back``
marks a card or disc whose face is hidden, ``down`` a face the referee sees but the other
players do not, ``up`` a face everyone sees, ``gone`` a lost disc or a removed card.

Two builders per game: ``seat_scene(game, view, names, acting)`` from the engine's
``view(seat)`` alone -- so a seat's scene can only hold what that seat may know -- and
``full_scene(game, full, names, acting)`` from the engine's ``full()`` (the referee's view: every
face). ``acting`` is the seats to act (``State.to_act()``, public), so both panes agree on it;
every ``info`` entry is computed from facts both sides hold, so the panes agree on those too.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from arena.games.skull_king_cards import CARDS, judge
from arena.games.skull_king_words import SPECIAL as _SPECIAL
from arena.games.skull_king_words import SUITS as _SUITS
from arena.games.skull_king_words import card_words

__all__ = ["full_scene", "seat_scene", "trick_winner"]

Scene = dict[str, Any]
Item = dict[str, str]

#: What each state of an item is called in plain words.
_STATE_WORDS = {"up": "face up", "down": "face down", "gone": "lost", "": ""}


def _item(text: str, cls: str, words: str, sub: str | None = None) -> Item:
    item = {"t": text, "c": cls, "h": words}
    if sub is not None:
        item["s"] = sub
    return item


@functools.cache
def _back(kind: str, words: str) -> Item:
    return _item("", f"{kind} back", words)


def _zone(label: str, items: list[Item], *, kind: str = "row", cols: int = 0) -> dict[str, Any]:
    return {"label": label, "kind": kind, "cols": cols, "items": items}


def _seat(
    seat: int,
    names: Sequence[str],
    acting: frozenset[int],
    notes: list[str],
    zones: list[dict[str, Any]],
) -> dict[str, Any]:
    return {
        "seat": seat,
        "name": names[seat] if seat < len(names) else f"seat {seat}",
        "active": seat in acting,
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
        "banner": None,
        "seats": seats,
        "center": center,
    }


def _seat_word(seat: Any) -> str | None:
    return None if seat is None else f"seat {seat}"


# -- skull and skull-bank: discs ------------------------------------------------------------

_GOOD = {"skull": "flower", "skull-bank": "rose"}
_DISC = {"skull": "disc", "skull-bank": "bill"}


@functools.cache
def _disc(game: str, kind: str, *, state: str = "") -> Item:
    words = f"{kind} ({_STATE_WORDS[state]})" if state else kind
    return _item(kind, f"disc {kind} {state}".strip(), words)


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


def _disc_info(game: str, data: dict[str, Any], challenger: Any) -> list[tuple[str, Any]]:
    info: list[tuple[str, Any]] = [("round", data.get("round")), ("phase", data.get("phase"))]
    if game == "skull":
        info += [
            ("bid", data.get("bid") or None),
            ("bidder", _seat_word(data.get("bidder"))),
            ("challenger", _seat_word(challenger)),
        ]
    else:
        info += [("dealer", _seat_word(data.get("dealer"))), ("claim", data.get("claim") or None)]
    return info + [("winner", _seat_word(data.get("winner")))]


def _disc_seat_scene(
    game: str, view: dict[str, Any], names: Sequence[str], acting: frozenset[int]
) -> Scene:
    good, me, what = _GOOD[game], view["seat"], _DISC[game]
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
                pile.append(_disc(game, shown[at], state="up"))
            elif seat == me:
                pile.append(_disc(game, own_pile[at], state="down"))
            else:
                pile.append(_back("disc", f"face-down {what}"))
        if seat == me:
            hand = [_disc(game, good)] * view["hand"].get(good, 0) + [_disc(game, "skull")] * view[
                "hand"
            ].get("skull", 0)
            lost = [_disc(game, k, state="gone") for k in view.get("lost", [])]
        else:
            hand = [_back("disc", f"{what} in hand")] * public["in_hand"]
            lost = [_back("disc gone", f"lost {what}")] * (4 - public["owned"])
        seats.append(
            _seat(
                seat,
                names,
                acting,
                _disc_notes(game, public),
                [_zone("hand", hand), _zone("pile", pile), _zone("lost", lost)],
            )
        )
    return _scene(
        f"as seen by seat {me}", _disc_info(game, view, view.get("challenger")), seats, []
    )


def _disc_full_scene(
    game: str, full: dict[str, Any], names: Sequence[str], acting: frozenset[int]
) -> Scene:
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
        hand = [_disc(game, good)] * kit["hand"][0] + [_disc(game, "skull")] * kit["hand"][1]
        disc_pile = [
            _disc(game, kinds[k], state="up" if at in up else "down") for at, k in enumerate(pile)
        ]
        lost = [_disc(game, kinds[k], state="gone") for k in kit["lost"]]
        seats.append(
            _seat(
                seat,
                names,
                acting,
                _disc_notes(game, public),
                [_zone("hand", hand), _zone("pile", disc_pile), _zone("lost", lost)],
            )
        )
    challenge = full.get("challenge")
    challenger = challenge["by"] if challenge else None
    return _scene("referee: everything", _disc_info(game, full, challenger), seats, [])


# -- skull-king: cards ----------------------------------------------------------------------


@functools.cache
def _card(code: str, *, state: str = "", seat: int | None = None) -> Item:
    """A card: its number or name, its suit or kind as the second line (or the seat that
    played it, on the table), a colour per suit."""
    played = "" if seat is None else f", played by seat {seat}"
    extra = f" ({_STATE_WORDS[state]})" if state else ""
    if code[:1] in _SUITS and code[1:].isdigit():
        sub = _SUITS[code[0]] if seat is None else f"seat {seat}"
        return _item(
            code[1:], f"card sk-{code[0]} {state}".strip(), card_words(code) + extra + played, sub
        )
    title, _ = _SPECIAL.get(code, (code, code))
    kind = code.split(":")[0].lower()
    sub = ("as pirate" if code.endswith("pirate") else "as escape") if ":" in code else ""
    if seat is not None:
        sub = f"seat {seat}"
    cls = f"card named sk-{kind} {state}".strip()
    return _item(title, cls, card_words(code) + extra + played, sub)


def _sk_info(data: dict[str, Any]) -> list[tuple[str, Any]]:
    playing = data.get("phase") == "playing"
    return [
        ("round", data.get("round")),
        ("cards", data.get("cards")),
        ("phase", data.get("phase")),
        ("dealer", _seat_word(data.get("dealer"))),
        ("leader", _seat_word(data.get("leader")) if playing else None),
        ("to play", _seat_word(data.get("turn")) if playing else None),
    ]


def _sk_notes(data: dict[str, Any], seat: int) -> list[str]:
    bids = data.get("bids")
    bid = "?" if bids is None or bids[seat] is None else bids[seat]
    return [f"bid {bid}", f"won {data['won'][seat]}", f"score {data['scores'][seat]}"]


def _trick_zone(label: str, plays: Sequence[tuple[int, str]]) -> dict[str, Any]:
    return _zone(label, [_card(code, seat=seat) for seat, code in plays])


def _last_trick(plays: Sequence[tuple[int, str]], winner: int | None) -> dict[str, Any]:
    won = "nobody (the Kraken)" if winner is None else f"seat {winner}"
    return _trick_zone(f"last trick: won by {won}", plays)


def trick_winner(plays: Sequence[tuple[int, str]]) -> int | None:
    """The seat that takes a complete trick of ``(seat, card)`` (None: the Kraken)."""
    result = judge(tuple(CARDS[code] for _, code in plays))
    return None if result.winner is None else plays[result.winner][0]


def _sk_seat_scene(
    game: str, view: dict[str, Any], names: Sequence[str], acting: frozenset[int]
) -> Scene:
    me, players = view["seat"], view["players"]
    trick, leader = view.get("trick") or [], view.get("leader") or 0
    played_now = {(leader + i) % players for i in range(len(trick))}
    seats = []
    for seat in range(players):
        if seat == me:
            hand = [_card(c) for c in view["hand"]]
        else:
            left = view["cards"] - len(view.get("tricks") or []) - (seat in played_now)
            hand = [_back("card", "a card in hand")] * max(0, left)
        seats.append(_seat(seat, names, acting, _sk_notes(view, seat), [_zone("hand", hand)]))
    plays = [((leader + i) % players, c) for i, c in enumerate(trick)]
    center = [_trick_zone("trick", plays)]
    done = view.get("tricks") or []
    if done:
        last = done[-1]
        center.append(
            _last_trick(
                [((last["leader"] + i) % players, c) for i, c in enumerate(last["cards"])],
                last["winner"],
            )
        )
    return _scene(f"as seen by seat {me}", _sk_info(view), seats, center)


def _sk_full_scene(
    game: str, full: dict[str, Any], names: Sequence[str], acting: frozenset[int]
) -> Scene:
    seats = [
        _seat(
            seat,
            names,
            acting,
            _sk_notes(full, seat),
            [_zone("hand", [_card(c, state="down") for c in hand])],
        )
        for seat, hand in enumerate(full["hands"])
    ]
    center = [_trick_zone("trick", full["trick"])]
    if full["tricks"]:
        last = full["tricks"][-1]
        center.append(_last_trick(last, trick_winner(last)))
    center.append(_zone(f"undealt: {len(full['undealt'])} cards", []))
    return _scene("referee: everything", _sk_info(full), seats, center)


# -- skyjo: grids ---------------------------------------------------------------------------


@functools.cache
def _sj(value: int | None, *, state: str = "") -> Item:
    if value is None:
        return _back("sj", "face-down card")
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
    words = f"{value} ({_STATE_WORDS[state]})" if state else str(value)
    return _item(str(value), f"sj sj-{colour} {state}".strip(), words)


_SJ_GONE: Item = _item("", "sj gone", "removed column")


def _sj_info(data: dict[str, Any], turn: Any) -> list[tuple[str, Any]]:
    return [
        ("round", data.get("round")),
        ("phase", data.get("phase")),
        ("turn of", _seat_word(turn)),
        ("ender", _seat_word(data.get("ender"))),
        ("totals", " / ".join(map(str, data["totals"]))),
    ]


def _sj_seat_scene(
    game: str, view: dict[str, Any], names: Sequence[str], acting: frozenset[int]
) -> Scene:
    seats = []
    for seat, grid in enumerate(view["grids"]):
        gone = {r["column"] for r in view["removed"][seat]}
        items = [
            _SJ_GONE if col in gone else _sj(value, state="up" if value is not None else "")
            for row in grid
            for col, value in enumerate(row)
        ]
        seats.append(
            _seat(
                seat,
                names,
                acting,
                [f"total {view['totals'][seat]}"],
                [_zone("grid", items, kind="grid", cols=len(grid[0]))],
            )
        )
    center = [
        _zone(f"draw pile: {view['draw_count']}", [_back("sj", "draw pile")]),
        _zone("discard", [_sj(view["discard_top"])] if view.get("discard_top") is not None else []),
    ]
    if view.get("drawn") is not None:
        center.append(_zone("drawn card", [_sj(view["drawn"])]))
    elif view.get("drawer") is not None:
        center.append(_zone(f"seat {view['drawer']} drew", [_back("sj", "the drawn card")]))
    return _scene(
        f"as seen by seat {view['seat']}", _sj_info(view, view.get("turn")), seats, center
    )


def _sj_full_scene(
    game: str, full: dict[str, Any], names: Sequence[str], acting: frozenset[int]
) -> Scene:
    seats = []
    for seat, (cards, cells) in enumerate(zip(full["cards"], full["cells"])):
        items = [
            _SJ_GONE if cell == 2 else _sj(value, state="up" if cell == 1 else "down")
            for value, cell in zip(cards, cells)
        ]
        seats.append(
            _seat(
                seat,
                names,
                acting,
                [f"total {full['totals'][seat]}"],
                [_zone("grid", items, kind="grid", cols=4)],
            )
        )
    pile = full["pile"]
    center = [
        _zone(f"draw pile: {len(pile)}", [_sj(pile[-1], state="down")] if pile else []),
        _zone("discard", [_sj(full["discard"][-1])] if full["discard"] else []),
    ]
    if full.get("drawn") is not None:
        drawer = full["current"]
        center.append(_zone(f"seat {drawer} drew", [_sj(full["drawn"], state="down")]))
    turn = full["current"] if full.get("current", -1) >= 0 else None
    return _scene("referee: everything", _sj_info(full, turn), seats, center)


Builder = Callable[[str, dict[str, Any], Sequence[str], frozenset[int]], Scene]

_SEAT: dict[str, Builder] = {
    "skull": _disc_seat_scene,
    "skull-bank": _disc_seat_scene,
    "skull-king": _sk_seat_scene,
    "skyjo": _sj_seat_scene,
}
_FULL: dict[str, Builder] = {
    "skull": _disc_full_scene,
    "skull-bank": _disc_full_scene,
    "skull-king": _sk_full_scene,
    "skyjo": _sj_full_scene,
}


def seat_scene(
    game: str, view: dict[str, Any], names: Sequence[str], acting: frozenset[int] = frozenset()
) -> Scene:
    """The table as one seat sees it, from that seat's ``view`` only."""
    builder = _SEAT.get(game)
    if builder is None:
        return _scene(f"as seen by seat {view.get('seat')}", [], [], [])
    return builder(game, view, names, acting)


def full_scene(
    game: str, full: dict[str, Any], names: Sequence[str], acting: frozenset[int] = frozenset()
) -> Scene:
    """The whole table (referee), from the engine's ``full()``."""
    builder = _FULL.get(game)
    return builder(game, full, names, acting) if builder else _scene("referee", [], [], [])
