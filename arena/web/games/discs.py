"""What the two disc games' tables share (``skull``, ``skull-bank``): each seat's hand, pile and
lost discs, the frame at the end of a challenge and the score sheet of the challenges.

``DiscTable`` draws both; ``arena.web.games.skull`` and ``arena.web.games.skull_bank`` name
their words (the good disc, the view key of one's own pile, what a disc is called) and draw
what differs: which discs are face up, the seats' notes, the auction's info, how a challenge
ends and a score sheet's cells.
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from arena.games.discs_kit import DISCS_EACH
from arena.web.games.base import Data, Ending, Presentation, ScoreSheet, seat_columns
from arena.web.scenes import STATE_WORDS, Item, Scene, back, item, scene, seat_box, seat_word, zone

__all__ = ["DiscTable", "seats_words"]


@functools.cache
def disc(kind: str, *, state: str = "") -> Item:
    """A disc of ``kind`` (flower, rose, skull) in ``state`` (made once for each)."""
    words = f"{kind} ({STATE_WORDS[state]})" if state else kind
    return item(kind, f"disc {kind} {state}".strip(), words)


def seats_words(seats: Sequence[int]) -> str:
    """``seat 1``, ``seat 1 and seat 3``, ``seat 0, seat 1 and seat 3``."""
    words = [f"seat {s}" for s in seats]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


class DiscTable(Presentation, ABC):
    """The table of a disc game. Subclasses name ``GOOD`` (the good disc: flower, rose; the
    shared legend reads it), ``PILE`` (the view key of one's own pile: stack, row), ``DISC``
    (what a disc is called: disc, bill) and ``SHEET_WHAT`` (what a score sheet's seat column
    counts), and draw what differs between the games."""

    ROUND_ENDS = frozenset({"success", "failure"})
    LEGEND = "legends/discs.html"
    GOOD: ClassVar[str]
    PILE: ClassVar[str]
    DISC: ClassVar[str]
    SHEET_WHAT: ClassVar[str]

    # -- what differs between the games -----------------------------------------------------

    @abstractmethod
    def faces(self, view: Data) -> dict[int, dict[int, str]]:
        """The discs a seat's ``view`` shows face up: their kinds by owner and pile position."""

    @abstractmethod
    def face_up(self, full: Data, seat: int, kit: Data) -> set[int]:
        """The pile positions of ``seat``'s discs that are face up, from the referee's data."""

    @abstractmethod
    def public(self, full: Data, seat: int) -> dict[str, Any]:
        """What every seat sees of ``seat`` (a view's seat entry's fields that notes read),
        from the referee's data."""

    @abstractmethod
    def game_notes(self, public: Mapping[str, Any]) -> list[str]:
        """A seat's notes beyond "eliminated", from its public entry."""

    @abstractmethod
    def auction_info(self, data: Data, challenger: Any) -> list[tuple[str, Any]]:
        """The info entries between the phase and the winner (the bid or the claim)."""

    @abstractmethod
    def show_end(self, full: Data, views: dict[int, Data], end: Data) -> None:
        """Put the referee's data and the views in the phase a round's end is shown in."""

    @abstractmethod
    def outcome_words(self, end: Data, result: Data | None, before: Data, after: Data) -> str:
        """How the challenge that ended the round went (see ``banner``)."""

    @abstractmethod
    def sheet_cell(self, successes: int, lost: int) -> str:
        """A seat's cell in a score sheet's row: its successes and discs lost so far."""

    # -- the tables ---------------------------------------------------------------------------

    def notes(self, public: Mapping[str, Any]) -> list[str]:
        """A seat's notes: "eliminated", then the game's (``game_notes``)."""
        notes = ["eliminated"] if public.get("eliminated") else []
        return notes + self.game_notes(public)

    def info(self, data: Data, challenger: Any) -> list[tuple[str, Any]]:
        info: list[tuple[str, Any]] = [("round", data.get("round")), ("phase", data.get("phase"))]
        return (
            info + self.auction_info(data, challenger) + [("winner", seat_word(data.get("winner")))]
        )

    def seat_scene(self, view: Data, names: Sequence[str], acting: frozenset[int]) -> Scene:
        good, me, what = self.GOOD, view["seat"], self.DISC
        faces = self.faces(view)
        own_pile = view.get(self.PILE, [])
        seats = []
        for seat, public in enumerate(view["seats"]):
            shown = faces.get(seat, {})
            pile = []
            for at in range(public["placed"]):
                if at in shown:
                    pile.append(disc(shown[at], state="up"))
                elif seat == me:
                    pile.append(disc(own_pile[at], state="down"))
                else:
                    pile.append(back("disc", f"face-down {what}"))
            if seat == me:
                hand = [disc(good)] * view["hand"].get(good, 0) + [disc("skull")] * view[
                    "hand"
                ].get("skull", 0)
                lost = [disc(k, state="gone") for k in view.get("lost", [])]
            else:
                hand = [back("disc", f"{what} in hand")] * public["in_hand"]
                lost = [back("disc gone", f"lost {what}")] * (DISCS_EACH - public["owned"])
            zones = [zone("hand", hand), zone("pile", pile), zone("lost", lost)]
            seats.append(seat_box(seat, names, acting, self.notes(public), zones))
        return scene(f"as seen by seat {me}", self.info(view, view.get("challenger")), seats, [])

    def full_scene(self, full: Data, names: Sequence[str], acting: frozenset[int]) -> Scene:
        good = self.GOOD
        kinds = (good, "skull")
        seats = []
        for seat, kit in enumerate(full["kits"]):
            up = self.face_up(full, seat, kit)
            public = self.public(full, seat)
            public["eliminated"] = kit["out"] is not None
            hand = [disc(good)] * kit["hand"][0] + [disc("skull")] * kit["hand"][1]
            pile = [
                disc(kinds[k], state="up" if at in up else "down")
                for at, k in enumerate(kit["pile"])
            ]
            lost = [disc(kinds[k], state="gone") for k in kit["lost"]]
            zones = [zone("hand", hand), zone("pile", pile), zone("lost", lost)]
            seats.append(seat_box(seat, names, acting, self.notes(public), zones))
        challenge = full.get("challenge")
        challenger = challenge["by"] if challenge else None
        return scene("referee: everything", self.info(full, challenger), seats, [])

    # -- the end of a round -----------------------------------------------------------------

    def banner(self, end: Data, result: Data | None, before: Data, after: Data) -> str:
        """What ended the round: from the step's ``end`` event (success or failure), the
        round's ``result`` (None while a loser still has to choose the disc to lose) and the
        referee's data before the step (with the step's bid) and after it."""
        text = f"round {before['round']} over: " + self.outcome_words(end, result, before, after)
        out = [] if result is None else result["eliminated"]
        if out:
            text += f"; {seats_words(out if isinstance(out, list) else [end['seat']])} out"
        if after.get("winner") is not None:
            text += f". Seat {after['winner']} wins the game"
        return text

    def ending(
        self, full: Data, views: dict[int, Data], events: Sequence[Data], after: Data
    ) -> Ending:
        end = next(e for e in events if e["type"] in ("success", "failure"))
        grew = len(after["results"]) > len(full["results"])
        result = after["results"][-1] if grew else None
        for event in events:
            kind, seat = event["type"], event.get("seat")
            if kind == "flip":  # skull: the top face-down disc of a stack
                full["kits"][seat]["shown"] += 1
                for view in views.values():
                    view["flips"].append([seat, event["disc"]])
            elif kind == "reveal":  # skull-bank: a bill named by its position
                full["up"][seat].append(event["position"])
                for view in views.values():
                    view["revealed"].append([seat, event["position"], event["disc"]])
            elif kind == "pass":
                full["passed"][seat] = True
                for view in views.values():
                    view["seats"][seat]["passed"] = True
            elif kind in ("agree", "disagree"):
                full["answers"][seat] = kind
                for view in views.values():
                    view["seats"][seat]["answer"] = kind
            elif kind == "bid":
                full.update(bid=event["n"], bidder=seat)
                for view in views.values():
                    view.update(bid=event["n"], bidder=seat)
        self.show_end(full, views, end)
        return Ending(full, views, self.banner(end, result, full, after))

    # -- the score sheet ----------------------------------------------------------------------

    def score_sheet(
        self, players: int, names: Sequence[str], events: Sequence[Mapping[str, Any]]
    ) -> ScoreSheet:
        """The challenger, bid and outcome of each round; each seat's cell (``sheet_cell``)."""
        successes, lost = [0] * players, [0] * players
        bidder, bid, outcome = None, 0, ""
        columns = ("round", "challenge", "outcome") + seat_columns(players, names, self.SHEET_WHAT)
        sheet = ScoreSheet(columns)
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
                cells = tuple(self.sheet_cell(successes[s], lost[s]) for s in range(players))
                sheet.rows.append(
                    (str(len(sheet.rows) + 1), f"seat {bidder}: {bid}", outcome, *cells)
                )
                outcome = ""
        return sheet
