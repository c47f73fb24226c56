"""Skull's table in the replay viewer: stacks turned over from the top, successes and passes,
the bid and its challenger, a challenge's end (``arena.web.games.discs`` draws the rest)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.games.skull import SkullState
from arena.web.games import register
from arena.web.games.base import Data
from arena.web.games.discs import DiscTable
from arena.web.scenes import seat_word

__all__ = ["SkullTable"]


class SkullTable(DiscTable):
    name = "skull"
    GOOD = SkullState.GOOD_NAME
    PILE = SkullState.PILE
    DISC = "disc"
    SHEET_WHAT = "successes / discs lost"

    def faces(self, view: Data) -> dict[int, dict[int, str]]:
        """A stack is turned over from its top."""
        faces: dict[int, dict[int, str]] = {}
        for owner in {o for o, _ in view.get("flips", [])}:
            kinds = [k for o, k in view["flips"] if o == owner]
            placed = view["seats"][owner]["placed"]
            faces[owner] = {placed - 1 - i: k for i, k in enumerate(kinds)}
        return faces

    def face_up(self, full: Data, seat: int, kit: Data) -> set[int]:
        pile = kit["pile"]
        return set(range(len(pile) - kit["shown"], len(pile)))

    def public(self, full: Data, seat: int) -> dict[str, Any]:
        return {"passed": full["passed"][seat], "successes": full["successes"][seat]}

    def game_notes(self, public: Mapping[str, Any]) -> list[str]:
        notes = []
        if public.get("successes"):
            notes.append(f"{public['successes']} success")
        if public.get("passed"):
            notes.append("passed")
        return notes

    def auction_info(self, data: Data, challenger: Any) -> list[tuple[str, Any]]:
        return [
            ("bid", data.get("bid") or None),
            ("bidder", seat_word(data.get("bidder"))),
            ("challenger", seat_word(challenger)),
        ]

    def show_end(self, full: Data, views: dict[int, Data], end: Data) -> None:
        full.update(phase="challenge", challenge={"by": end["seat"]})
        for view in views.values():
            view.update(phase="challenge", challenger=end["seat"])

    def outcome_words(self, end: Data, result: Data | None, before: Data, after: Data) -> str:
        who, skull = end["seat"], end.get("skull")
        if end["type"] == "success":
            return f"seat {who} turned {before['bid']} discs without a skull: a success"
        if skull == who:
            lost = " and chooses the disc to lose" if result is None else " and lost a disc"
            return f"seat {who} met their own skull{lost}"
        return f"seat {who} met seat {skull}'s skull and loses a disc, drawn blind"

    def sheet_cell(self, successes: int, lost: int) -> str:
        return f"{successes} / {lost}"


register(SkullTable())
