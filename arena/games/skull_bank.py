"""Skull & Roses, bank variant, game id ``skull-bank``: the rules of ``docs/games/skull-bank.md``.

3-6 players each hold three roses and a skull (bills). A round: everyone antes a bill face down
at once, then from the dealer each player adds a bill or claims how many bills they can reveal
without a skull; the claimant takes the button. Every other player then agrees, disagrees or
raises (a raise takes the button and voids earlier answers). If all agree, the button passes left
and the new dealer must raise. The dealer reveals their own row (automatically), then any
face-down bill of any other row, in any order (a bill is named by its owner and position). Losers
(disagreers on success; dealer and agreers on a skull) each give a bill,
drawn blind or, for the skull's owner, chosen. The last player with bills wins.

[arena] decisions: seat 0 deals first; a claim equal to the bills on the table is shown down
even if all agree; 200 rounds at most, then placing by bills; players eliminated in the same
settlement share a place (if that is everyone left, they share first place); the skull's owner
gives their last bill without a decision. See ``docs/games/skull-bank.md``.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Mapping
from typing import Any

from arena.games import register
from arena.games.discs import (
    DISCS_EACH,
    GOOD,
    MAX_SEATS,
    ONE_SEAT,
    SKULL,
    DiscGame,
    DiscState,
    kind_table,
)

log = logging.getLogger(__name__)

#: [arena] Rounds played at most; then the game ends and players are placed by bills.
MAX_ROUNDS = 200
_TOP = DISCS_EACH * MAX_SEATS
_CLAIMS = tuple(f"claim:{n}" for n in range(_TOP + 1))
_RAISES = tuple(f"raise:{n}" for n in range(_TOP + 1))
#: Legal lists, by hand mask and bills on the table (add) and by claim and bills (answers).
_ADDS = tuple(tuple(kinds + _CLAIMS[1:bills + 1] for bills in range(_TOP + 1))
              for kinds in kind_table("add", "rose"))
_RAISE_RUNS = tuple(tuple(_RAISES[claim + 1:bills + 1] for bills in range(_TOP + 1))
                    for claim in range(_TOP + 1))
_ANSWERS = tuple(tuple(("agree", "disagree") + run for run in runs) for runs in _RAISE_RUNS)
#: The other seats clockwise from a seat, by number of players and seat.
_AFTER = tuple(tuple(tuple((seat + i) % n for i in range(1, n)) for seat in range(n))
               for n in range(MAX_SEATS + 1))


class Phase(str, enum.Enum):
    ANTE = "ante"            # everyone puts one bill down at once
    ADD = "add"              # add a bill or claim
    RESPOND = "respond"      # agree, disagree or raise
    RAISE = "raise"          # everyone agreed: the new dealer must raise
    SHOWDOWN = "showdown"    # the dealer picks which face-down bill of another row to reveal
    GIVE = "give"            # the skull's owner, a loser, picks a bill to give up
    OVER = "over"


ANTE, ADD, RESPOND, RAISE, SHOWDOWN, GIVE, OVER = Phase  # fast global lookups
_VALUES = {phase: phase.value for phase in Phase}
#: The keys of a view in order (copying it is faster than building a dict of 18 keys).
_TEMPLATE: dict[str, Any] = dict.fromkeys((
    "game", "seat", "players", "round", "to_act", "hand", "row", "lost", "revealed", "left",
    "log", "results", "winner", "phase", "dealer", "claim", "seats", "face_down",
    "max_rounds"))
_TEMPLATE["game"] = "skull-bank"
_TEMPLATE["max_rounds"] = MAX_ROUNDS

#: What a (legal) action does: its operation and argument.
_ADD, _CLAIM, _ANSWER, _REVEAL, _GIVE = range(5)
_DECODE: dict[str, tuple[int, Any]] = {
    "add:rose": (_ADD, GOOD), "add:skull": (_ADD, SKULL), "agree": (_ANSWER, "agree"),
    "disagree": (_ANSWER, "disagree"), "give:rose": (_GIVE, GOOD), "give:skull": (_GIVE, SKULL),
    **{claim: (_CLAIM, ("claim", n)) for n, claim in enumerate(_CLAIMS)},
    **{raise_: (_CLAIM, ("raise", n)) for n, raise_ in enumerate(_RAISES)},
    **{f"reveal:{s},{at}": (_REVEAL, (s, at))
       for s in range(MAX_SEATS) for at in range(DISCS_EACH)},
}


class BankState(DiscState):
    """A game of Skull & Roses (bank variant) in progress."""

    GAME = "skull-bank"
    GOOD_NAME = "rose"
    PILE = "row"
    PLACE = "add"
    FLIP = "reveal"
    DROP = "give"
    SHOWN = "revealed"
    TOGETHER = ANTE
    LISTS = ("answers", "losers")
    FLIP_POSITIONS = True

    def __init__(self, players: int, seed: int, options: dict[str, Any]) -> None:
        super().__init__(players, seed, options)
        self.dealer = 0
        self.turn = 0
        self.claim = 0
        self.answers: list[str | None] = [None] * players
        self.losers: list[int] = []
        self.phase = ANTE
        self.events.append({"type": "round", "round": 1, "dealer": 0})

    # ----- whose turn, what is legal ----------------------------------------------------------
    def to_act(self) -> tuple[int, ...]:
        acting = self._acting
        if acting is None:
            phase = self.phase
            if phase is ADD or phase is RESPOND:
                acting = ONE_SEAT[self.turn]
            elif phase is ANTE:
                acting = self.active_seats()
            elif phase is GIVE:
                assert self.challenge is not None and self.challenge.skull_of is not None
                acting = ONE_SEAT[self.challenge.skull_of]
            elif phase is OVER:
                acting = ()
            else:
                acting = ONE_SEAT[self.dealer]
            self._acting = acting
        return acting

    def _seat_legal(self, seat: int) -> list[str]:
        phase = self.phase
        if phase is RESPOND:
            actions = list(_ANSWERS[self.claim][self.mats])
        elif phase is ADD:
            hand = self.kits[seat].hand
            actions = list(_ADDS[(hand[GOOD] > 0) + 2 * (hand[SKULL] > 0)][self.mats])
        elif phase is RAISE:
            actions = list(_RAISE_RUNS[self.claim][self.mats])
        elif phase is SHOWDOWN:
            actions = self._reveal_actions()
        else:
            actions = list(self.kinds(seat, self.DROPS))
        return actions

    # ----- applying actions ---------------------------------------------------------------
    def _after_put_down(self) -> None:
        self.phase = ADD
        self.turn = self.dealer

    def _act(self, seat: int, action: str) -> None:
        op, arg = _DECODE[action]
        if op == _ADD:
            self.place(seat, arg)
            self.turn = self.next_seat(seat)
        elif op == _ANSWER:
            self._answer(seat, arg)
        elif op == _CLAIM:
            self._claim(seat, *arg)
        elif op == _REVEAL:
            self.flip(arg[0], position=arg[1])
            self._after_reveal()
        else:
            self.drop(seat, arg)
            self._finish_round()

    def _claim(self, seat: int, verb: str, n: int) -> None:
        """A claim or raise: ``seat`` takes the button, answers start again on its left."""
        self.dealer, self.claim = seat, n
        self.events.append({"type": verb, "seat": seat, "n": n})
        self.round_log.append(f"{seat}:{verb}:{n}")
        for other, answer in enumerate(self.answers):
            if answer is not None:  # voided: only these entries change
                self._touch_entry(other)
        self.answers = [None] * self.players
        self.phase = RESPOND
        self.turn = self.next_seat(seat)

    def _answer(self, seat: int, answer: str) -> None:
        self.answers[seat] = answer
        self.events.append({"type": answer, "seat": seat})
        self.round_log.append(f"{seat}:{answer}")
        self._touch_entry(seat)
        self.turn = self.next_seat(seat)
        if self.turn != self.dealer:
            return
        if "disagree" in self.answers or self.claim == self.mats:
            self.phase = SHOWDOWN
            self.begin_challenge(self.dealer, self.claim)
            self._after_reveal()
        else:
            self.dealer = self.next_seat(self.dealer)
            self.phase = RAISE
            self.events.append({"type": "button", "seat": self.dealer})
            self.note(self.dealer, "button")

    # ----- showdown and settlement ---------------------------------------------------------
    def _reveal_actions(self) -> list[str]:
        """``reveal:SEAT,POS`` for every face-down bill of every other row, by seat then
        position (0 is the bottom of a row, the bill put down first)."""
        by = self.challenge.by if self.challenge else -1
        return [f"reveal:{seat},{at}" for seat, kit in enumerate(self.kits) if seat != by
                for at in kit.face_down()]

    def _after_reveal(self) -> None:
        challenge = self.challenge
        assert challenge is not None
        if not challenge.done:
            return
        self.close_piles()
        dealer, owner = challenge.by, challenge.skull_of
        answers = self.answers
        if owner is None:
            self.events.append({"type": "success", "seat": dealer})
            self.losers = losers = []
            for seat in _AFTER[self.players][dealer]:
                if answers[seat] == "disagree":
                    losers.append(seat)
                    self.take(seat, dealer)
            self._finish_round()
            return
        self.events.append({"type": "failure", "seat": dealer, "skull": owner})
        self.losers = [dealer]
        for seat in _AFTER[self.players][dealer]:
            if answers[seat] == "agree":
                self.losers.append(seat)
        for loser in self.losers:
            if loser != owner:
                self.take(loser, owner)
        self.eliminate_empty()
        if owner in self.losers:
            if self.kits[owner].owned > 1:
                self.phase = GIVE
                return
            self.drop(owner, SKULL, chosen=False)
        self._finish_round()

    def _next_dealer(self) -> int | None:
        challenge = self.challenge
        assert challenge is not None
        dealer, owner = challenge.by, challenge.skull_of
        if owner is None or owner == dealer:
            return self.next_active(dealer)
        return owner if self.kits[owner].out is None else self.next_active(owner)

    def _finish_round(self) -> None:
        challenge = self.challenge
        assert challenge is not None
        self.eliminate_empty()
        gone, remaining = [], []
        for seat, kit in enumerate(self.kits):
            if kit.out is None:
                remaining.append(seat)
            elif kit.out == self.round:
                gone.append(seat)
        over = len(remaining) <= 1 or self.round >= MAX_ROUNDS
        dealer = None if over else self._next_dealer()
        agreed, disagreed = [], []
        for seat, answer in enumerate(self.answers):
            if answer == "agree":
                agreed.append(seat)
            elif answer == "disagree":
                disagreed.append(seat)
        self.add_result({
            "round": self.round, "dealer": challenge.by, "claim": challenge.target,
            "agreed": agreed, "disagreed": disagreed,
            "revealed": len(challenge.flips), "success": challenge.skull_of is None,
            "skull": challenge.skull_of, "losers": list(self.losers), "eliminated": gone,
            "next_dealer": dealer})
        if dealer is None:
            self._end(tuple(remaining))
            return
        self.new_round_log()
        self.dealer = self.turn = dealer
        self.claim = 0
        self.answers = [None] * self.players
        self.losers = []
        self._touch_entries()
        self.phase = ANTE
        self.events.append({"type": "round", "round": self.round, "dealer": dealer})

    def _end(self, remaining: tuple[int, ...]) -> None:
        self.phase = OVER
        if len(remaining) == 1:
            self.winner = remaining[0]
            self.events.append({"type": "win", "seat": self.winner})
        else:
            why = "every remaining player was eliminated at once" if not remaining else \
                f"round cap of {MAX_ROUNDS} reached"
            self.events.append({"type": "end", "why": why})
        log.debug("skull-bank game %s over at round %s", self.seed, self.round)

    # ----- information ----------------------------------------------------------------------
    def _build_base(self) -> dict[str, Any]:
        base = self._base = _TEMPLATE.copy()  # every key but the seat's own is set below
        base["players"] = self.players
        base["round"] = self.round
        base["to_act"] = list(self._acting or self.to_act())
        base["revealed"], base["left"], base["results"] = self._parts or self.shared_parts()
        base["log"] = list(self.round_log)
        base["winner"] = self.winner
        base["phase"] = _VALUES[self.phase]
        base["dealer"] = self.dealer
        base["claim"] = self.claim
        base["seats"] = self._seats_view or self.seats_view()
        base["face_down"] = [kit.face_down() for kit in self.kits]
        return base

    def _build_entry(self, seat: int) -> dict[str, Any]:
        kit = self.kits[seat]
        in_hand = kit.hand[GOOD] + kit.hand[SKULL]
        placed = len(kit.pile)
        entry = self._entries[seat] = {
            "owned": in_hand + placed, "in_hand": in_hand, "placed": placed,
            "eliminated": kit.out is not None, "answer": self.answers[seat]}
        return entry

    def is_over(self) -> bool:
        return self.phase is OVER

    def game_full(self) -> dict[str, Any]:
        challenge = self.challenge
        return {"phase": self.phase.value, "dealer": self.dealer, "turn": self.turn,
                "claim": self.claim, "answers": list(self.answers),
                "losers": list(self.losers),
                "up": [list(kit.up) for kit in self.kits],
                "positions": list(challenge.positions) if challenge else []}

    def place_key(self, seat: int) -> tuple[int, ...]:
        """Players still in by bills owned; then the eliminated, later ones ahead."""
        kit = self.kits[seat]
        return (0, -kit.owned) if kit.out is None else (1, -kit.out)

    def score(self, seat: int) -> float:
        return float(self.kits[seat].owned)


class SkullBank(DiscGame):
    """Registry entry of the bank variant."""

    name = "skull-bank"
    title = "Skull & Roses (bank variant)"
    state_class = BankState

    def max_steps(self, players: int, options: Mapping[str, Any]) -> int:
        """At most ``MAX_ROUNDS`` rounds of at most ``4n^2 + 7n + 2`` steps.

        A round: 1 ante; at most 3n adds (hands hold at most 3 after the ante) and 1 claim;
        claims and raises strictly increase up to the 4n bills, so at most 4n-1 raises (forced
        ones included) and at most 4n answer cycles of at most n-1 answers (4n^2 - 1 response
        steps); fewer than 4n reveal decisions; 1 give.
        """
        n = players
        return MAX_ROUNDS * (4 * n * n + 7 * n + 2)


register(SkullBank())
