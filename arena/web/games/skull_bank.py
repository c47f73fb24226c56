"""The bank variant's table in the replay viewer: rows of bills revealed by position, the
seats' answers, the dealer and the claim, a showdown's end (``arena.web.games.discs`` draws
the rest)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.games.skull_bank import BankState
from arena.web.games import register
from arena.web.games.base import Data
from arena.web.games.discs import DiscTable, seats_words
from arena.web.scenes import seat_word

__all__ = ["BankTable"]


class BankTable(DiscTable):
    name = "skull-bank"
    GOOD = BankState.GOOD_NAME
    PILE = BankState.PILE
    DISC = "bill"
    SHEET_WHAT = "bills lost"

    def faces(self, view: Data) -> dict[int, dict[int, str]]:
        """A bill is revealed by its position in its row."""
        faces: dict[int, dict[int, str]] = {}
        for owner, at, kind in view.get("revealed", []):
            faces.setdefault(owner, {})[at] = kind
        return faces

    def face_up(self, full: Data, seat: int, kit: Data) -> set[int]:
        return set(full["up"][seat]) if full.get("up") else set()

    def public(self, full: Data, seat: int) -> dict[str, Any]:
        return {"answer": (full.get("answers") or [None] * len(full["kits"]))[seat]}

    def game_notes(self, public: Mapping[str, Any]) -> list[str]:
        return [str(public["answer"])] if public.get("answer") else []

    def auction_info(self, data: Data, challenger: Any) -> list[tuple[str, Any]]:
        return [("dealer", seat_word(data.get("dealer"))), ("claim", data.get("claim") or None)]

    def show_end(self, full: Data, views: dict[int, Data], end: Data) -> None:
        full.update(phase="showdown")
        for view in views.values():
            view.update(phase="showdown")

    def outcome_words(self, end: Data, result: Data | None, before: Data, after: Data) -> str:
        who, skull = end["seat"], end.get("skull")
        if end["type"] == "success":
            text = f"seat {who} revealed {before['claim']} roses: the claim holds"
        else:
            text = f"seat {who} revealed seat {skull}'s skull: the claim fails"
        losers = result["losers"] if result is not None else after.get("losers", [])
        if losers:
            text += f"; {seats_words(losers)} each lose a bill"
        if result is None:
            text += f" (seat {skull} chooses the bill to give up)"
        return text

    def sheet_cell(self, successes: int, lost: int) -> str:
        return str(lost)


register(BankTable())
