"""Skull King's table in the replay viewer: hands of cards, the trick on the table and the
last one taken, bids, tricks won and scores; a round's end (its last trick and its points);
frames labelled by round and trick; the score sheet of bids, tricks and points."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from arena.games.skull_king_cards import CARDS, hand_card, judge
from arena.games.skull_king_words import SPECIAL, SUITS, card_words
from arena.web.games import register
from arena.web.games.base import Data, Ending, Presentation, ScoreSheet, seat_columns
from arena.web.scenes import STATE_WORDS, Item, Scene, back, item, scene, seat_box, seat_word, zone

__all__ = ["SkullKingTable", "trick_winner"]


@functools.cache
def card(code: str, *, state: str = "", seat: int | None = None) -> Item:
    """A card: its number or name, its suit or kind as the second line (or the seat that
    played it, on the table), a colour per suit."""
    played = "" if seat is None else f", played by seat {seat}"
    extra = f" ({STATE_WORDS[state]})" if state else ""
    if code[:1] in SUITS and code[1:].isdigit():
        sub = SUITS[code[0]] if seat is None else f"seat {seat}"
        return item(
            code[1:], f"card sk-{code[0]} {state}".strip(), card_words(code) + extra + played, sub
        )
    title, _ = SPECIAL.get(code, (code, code))
    kind = code.split(":")[0].lower()
    sub = ("as pirate" if code.endswith("pirate") else "as escape") if ":" in code else ""
    if seat is not None:
        sub = f"seat {seat}"
    cls = f"card named sk-{kind} {state}".strip()
    return item(title, cls, card_words(code) + extra + played, sub)


def trick_winner(plays: Sequence[tuple[int, str]]) -> int | None:
    """The seat that takes a complete trick of ``(seat, card)`` (None: the Kraken)."""
    result = judge(tuple(CARDS[code] for _, code in plays))
    return None if result.winner is None else plays[result.winner][0]


def _info(data: Data) -> list[tuple[str, Any]]:
    playing = data.get("phase") == "playing"
    return [
        ("round", data.get("round")),
        ("cards", data.get("cards")),
        ("phase", data.get("phase")),
        ("dealer", seat_word(data.get("dealer"))),
        ("leader", seat_word(data.get("leader")) if playing else None),
        ("to play", seat_word(data.get("turn")) if playing else None),
    ]


def _notes(data: Data, seat: int) -> list[str]:
    bids = data.get("bids")
    bid = "?" if bids is None or bids[seat] is None else bids[seat]
    return [f"bid {bid}", f"won {data['won'][seat]}", f"score {data['scores'][seat]}"]


def _trick_zone(label: str, plays: Sequence[tuple[int, str]]) -> dict[str, Any]:
    return zone(label, [card(code, seat=seat) for seat, code in plays])


def _last_trick(plays: Sequence[tuple[int, str]], winner: int | None) -> dict[str, Any]:
    won = "nobody (the Kraken)" if winner is None else f"seat {winner}"
    return _trick_zone(f"last trick: won by {won}", plays)


class SkullKingTable(Presentation):
    name = "skull-king"
    ROUND_ENDS = frozenset({"round"})
    LEGEND = "legends/skull-king.html"

    def seat_scene(self, view: Data, names: Sequence[str], acting: frozenset[int]) -> Scene:
        me, players = view["seat"], view["players"]
        trick, leader = view.get("trick") or [], view.get("leader") or 0
        played_now = {(leader + i) % players for i in range(len(trick))}
        seats = []
        for seat in range(players):
            if seat == me:
                hand = [card(c) for c in view["hand"]]
            else:
                left = view["cards"] - len(view.get("tricks") or []) - (seat in played_now)
                hand = [back("card", "a card in hand")] * max(0, left)
            seats.append(seat_box(seat, names, acting, _notes(view, seat), [zone("hand", hand)]))
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
        return scene(f"as seen by seat {me}", _info(view), seats, center)

    def full_scene(self, full: Data, names: Sequence[str], acting: frozenset[int]) -> Scene:
        seats = [
            seat_box(
                seat,
                names,
                acting,
                _notes(full, seat),
                [zone("hand", [card(c, state="down") for c in hand])],
            )
            for seat, hand in enumerate(full["hands"])
        ]
        center = [_trick_zone("trick", full["trick"])]
        if full["tricks"]:
            last = full["tricks"][-1]
            center.append(_last_trick(last, trick_winner(last)))
        center.append(zone(f"undealt: {len(full['undealt'])} cards", []))
        return scene("referee: everything", _info(full), seats, center)

    def label(self, data: Data) -> str:
        """The round and the trick."""
        return f"{self.round_label(data)} trick {len(data.get('tricks') or []) + 1}"

    def ending(
        self, full: Data, views: dict[int, Data], events: Sequence[Data], after: Data
    ) -> Ending:
        """The round's last trick, complete, and its points."""
        scored = next(e for e in events if e["type"] == "round")
        play = next(e for e in events if e["type"] == "play")
        trick = next(e for e in events if e["type"] == "trick")
        seat, code = play["seat"], play["card"]
        held = hand_card(CARDS[code]).name
        changes = {
            "phase": "scoring",
            "bids": list(scored["bids"]),
            "won": list(scored["won"]),
            "scores": list(scored["scores"]),
            "turn": None,
        }
        # the last trick, complete, as the round's last taken trick (with who took it)
        full["tricks"] = [*full["tricks"], [*full["trick"], [seat, code]]]
        full["trick"] = []
        full["hands"][seat].remove(held)
        full.update(changes)
        taken = {k: trick[k] for k in ("leader", "cards", "winner", "next")}
        for viewer, view in views.items():
            view["tricks"] = [*view["tricks"], taken]
            view["trick"] = []
            if viewer == seat:
                hand = view["hand"]
                view["hand"] = [c for i, c in enumerate(hand) if i != hand.index(held)]
            view.update(changes)
        taker = "nobody (the Kraken)" if trick["winner"] is None else f"seat {trick['winner']}"
        points = ", ".join(
            f"seat {s} {p:+d} (bid {b}, won {w})"
            for s, (p, b, w) in enumerate(zip(scored["points"], scored["bids"], scored["won"]))
        )
        banner = f"round {scored['round']} over: the last trick goes to {taker}; points: {points}"
        return Ending(full, views, banner)

    def score_sheet(
        self, players: int, names: Sequence[str], events: Sequence[Mapping[str, Any]]
    ) -> ScoreSheet:
        """Each round's bids, tricks won and points, with the totals."""
        sheet = ScoreSheet(("round",) + seat_columns(players, names, "bid / won → points"))
        for e in events:
            if e["type"] == "round":
                cells = tuple(
                    f"{b} / {w} → {p:+d} ({t})"
                    for b, w, p, t in zip(e["bids"], e["won"], e["points"], e["scores"])
                )
                sheet.rows.append((str(e["round"]), *cells))
        return sheet


register(SkullKingTable())
