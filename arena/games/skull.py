"""Skull (Hervé Marly), game id ``skull``: the rules of ``docs/games/skull.md``.

3-6 players each hold three flowers and a skull. A round: everyone puts a disc face down at
once (setup), then in turn each player places another disc or bids how many discs they can flip
without meeting a skull; bids rise until all but one have passed. The challenger flips their own
stack first (automatically), then the top disc of other stacks of their choice. Two successful
challenges win; failing costs a disc (drawn blind on another's skull, chosen on one's own).

[arena] decisions: seat 0 is the first player of round 1; a raise is written ``bid:N`` like the
opening bid; when the challenger meets their own skull and owns that skull only, it is removed
without a decision. See ``docs/games/skull.md``.
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

#: Successful challenges needed to win.
WINS_NEEDED = 2
_TOP = DISCS_EACH * MAX_SEATS
_BIDS = tuple(f"bid:{n}" for n in range(_TOP + 1))
_FIRSTS = tuple(f"first:{s}" for s in range(MAX_SEATS))
#: Legal lists, by hand mask and discs on the mats (turns) and by bid and discs (auction).
_TURNS = tuple(tuple(kinds + _BIDS[1:mats + 1] for mats in range(_TOP + 1))
               for kinds in kind_table("place", "flower"))
_AUCTION = tuple(tuple(("pass",) + _BIDS[bid + 1:mats + 1] for mats in range(_TOP + 1))
                 for bid in range(_TOP + 1))


class Phase(str, enum.Enum):
    SETUP = "setup"          # everyone places one disc at once
    TURNS = "turns"          # place or open the auction
    AUCTION = "auction"      # raise or pass
    CHALLENGE = "challenge"  # the challenger picks whose top disc to flip
    DISCARD = "discard"      # the challenger met their own skull and picks a disc to remove
    FIRST = "first"          # the challenger eliminated by their own skull picks the next first
    OVER = "over"


SETUP, TURNS, AUCTION, CHALLENGE, DISCARD, FIRST, OVER = Phase  # fast global lookups
_VALUES = {phase: phase.value for phase in Phase}
#: The keys of a view in order (copying it is faster than building a dict of 19 keys).
_TEMPLATE: dict[str, Any] = dict.fromkeys((
    "game", "seat", "players", "round", "to_act", "hand", "stack", "lost", "flips", "left",
    "log", "results", "winner", "phase", "first", "seats", "bid", "bidder", "challenger"))
_TEMPLATE["game"] = "skull"

#: What a (legal) action does: its operation and argument.
_PLACE, _BID, _PASS, _FLIP, _DISCARD, _FIRST = range(6)
_DECODE: dict[str, tuple[int, int]] = {
    "place:flower": (_PLACE, GOOD), "place:skull": (_PLACE, SKULL), "pass": (_PASS, 0),
    "discard:flower": (_DISCARD, GOOD), "discard:skull": (_DISCARD, SKULL),
    **{bid: (_BID, n) for n, bid in enumerate(_BIDS)},
    **{f"flip:{s}": (_FLIP, s) for s in range(MAX_SEATS)},
    **{first: (_FIRST, s) for s, first in enumerate(_FIRSTS)},
}


class SkullState(DiscState):
    """A game of Skull in progress."""

    GAME = "skull"
    GOOD_NAME = "flower"
    PILE = "stack"
    PLACE = "place"
    FLIP = "flip"
    DROP = "discard"
    SHOWN = "flips"
    TOGETHER = SETUP
    LISTS = ("successes", "passed")

    def __init__(self, players: int, seed: int, options: dict[str, Any]) -> None:
        super().__init__(players, seed, options)
        self.successes = [0] * players
        self.passed = [False] * players
        self.bid = 0
        self.bidder: int | None = None
        self.first = 0
        self.turn = 0
        self.bidding = 0  # players in the auction who have not passed
        self.phase = SETUP
        self.events.append({"type": "round", "round": 1, "first": 0})

    # ----- whose turn, what is legal ----------------------------------------------------------
    def to_act(self) -> tuple[int, ...]:
        acting = self._acting
        if acting is None:
            phase = self.phase
            if phase is TURNS or phase is AUCTION:
                acting = ONE_SEAT[self.turn]
            elif phase is SETUP:
                acting = self.active_seats()
            elif phase is OVER:
                acting = ()
            else:
                assert self.challenge is not None
                acting = ONE_SEAT[self.challenge.by]
            self._acting = acting
        return acting

    def _seat_legal(self, seat: int) -> list[str]:
        phase = self.phase
        if phase is TURNS:
            hand = self.kits[seat].hand
            actions = list(_TURNS[(hand[GOOD] > 0) + 2 * (hand[SKULL] > 0)][self.mats])
        elif phase is AUCTION:
            actions = list(_AUCTION[self.bid][self.mats])
        elif phase is CHALLENGE:
            actions = self.flip_actions()
        elif phase is DISCARD:
            actions = list(self.kinds(seat, self.DROPS))
        else:
            actions = [_FIRSTS[s] for s in self.active_seats()]
        return actions

    # ----- applying actions ---------------------------------------------------------------
    def _after_put_down(self) -> None:
        self.phase = TURNS
        self.turn = self.first

    def _act(self, seat: int, action: str) -> None:
        op, arg = _DECODE[action]
        if op == _PLACE:
            self.place(seat, arg)
            self.turn = self.next_seat(seat)
        elif op == _BID:
            self._bid(seat, arg)
        elif op == _PASS:
            self._pass(seat)
        elif op == _FLIP:
            self.flip(arg)
            self._after_flip()
        elif op == _DISCARD:
            self.drop(seat, arg)
            self._after_loss()
        else:
            self.events.append({"type": "first", "seat": seat, "chosen": arg})
            self.note(seat, action)
            self._next_round(arg)

    def _bid(self, seat: int, n: int) -> None:
        if self.phase is TURNS:  # the auction opens: everyone still in takes part
            self.bidding = 0
            for kit, passed in zip(self.kits, self.passed):
                if kit.out is None and not passed:
                    self.bidding += 1
        self.phase = AUCTION
        self.bid, self.bidder = n, seat
        self.events.append({"type": "bid", "seat": seat, "n": n})
        self.round_log.append(f"{seat}:{_BIDS[n]}")
        self._next_bidder(seat)

    def _pass(self, seat: int) -> None:
        self.passed[seat] = True
        self.bidding -= 1
        self.events.append({"type": "pass", "seat": seat})
        self.round_log.append(f"{seat}:pass")
        self._touch_entry(seat)
        self._next_bidder(seat)

    def _next_bidder(self, seat: int) -> None:
        """Move the auction on, or start the challenge once it is over."""
        assert self.bidder is not None
        if self.bid == self.mats or self.bidding == 1:
            self.phase = CHALLENGE
            self.begin_challenge(self.bidder, self.bid)
            self._after_flip()
            return
        passed = self.passed
        nxt = self.next_seat(seat)
        while passed[nxt]:
            nxt = self.next_seat(nxt)
        self.turn = nxt

    # ----- end of a challenge -----------------------------------------------------------------
    def _after_flip(self) -> None:
        challenge = self.challenge
        assert challenge is not None
        if not challenge.done:
            return
        self.close_piles()
        seat = challenge.by
        if challenge.skull_of is None:
            self.successes[seat] += 1
            self.events.append({"type": "success", "seat": seat})
            if self.successes[seat] == WINS_NEEDED:
                self._win(seat)
            else:
                self._next_round(seat)
            return
        owner = challenge.skull_of
        self.events.append({"type": "failure", "seat": seat, "skull": owner})
        if owner != seat:
            self.take(seat, owner)
        elif self.kits[seat].owned > 1:
            self.phase = DISCARD
            return
        else:
            self.drop(seat, SKULL, chosen=False)
        self._after_loss()

    def _after_loss(self) -> None:
        challenge = self.challenge
        assert challenge is not None and challenge.skull_of is not None
        seat, owner = challenge.by, challenge.skull_of
        if not self.eliminate_empty():
            self._next_round(seat)
            return
        remaining = self.active_seats()
        if len(remaining) == 1:
            self._win(remaining[0])
        elif owner == seat:
            self.phase = FIRST
        else:
            self._next_round(owner)

    def _result(self, first: int | None) -> dict[str, Any]:
        challenge = self.challenge
        assert challenge is not None
        seat, owner = challenge.by, challenge.skull_of
        return {"round": self.round, "challenger": seat, "bid": challenge.target,
                "flipped": len(challenge.flips), "success": owner is None, "skull": owner,
                "lost": None if owner is None else seat,
                "eliminated": self.kits[seat].out is not None, "first": first}

    def _next_round(self, first: int) -> None:
        self.add_result(self._result(first))
        self.new_round_log()
        self.first = self.turn = first
        self.bid, self.bidder = 0, None
        self.passed = [False] * self.players
        self._touch_entries()
        self.phase = SETUP
        self.events.append({"type": "round", "round": self.round, "first": first})

    def _win(self, seat: int) -> None:
        self.add_result(self._result(None))
        self.winner = seat
        self.phase = OVER
        self.events.append({"type": "win", "seat": seat})
        log.debug("skull game %s won by seat %s at round %s", self.seed, seat, self.round)

    # ----- information ----------------------------------------------------------------------
    def _build_base(self) -> dict[str, Any]:
        base = self._base = _TEMPLATE.copy()  # every key but the seat's own is set below
        base["players"] = self.players
        base["round"] = self.round
        base["to_act"] = list(self._acting or self.to_act())
        base["flips"], base["left"], base["results"] = self._parts or self.shared_parts()
        base["log"] = list(self.round_log)
        base["winner"] = self.winner
        base["phase"] = _VALUES[self.phase]
        base["first"] = self.first
        base["seats"] = self._seats_view or self.seats_view()
        base["bid"] = self.bid
        base["bidder"] = self.bidder
        challenge = self.challenge
        base["challenger"] = None if challenge is None else challenge.by
        return base

    def _build_entry(self, seat: int) -> dict[str, Any]:
        kit = self.kits[seat]
        in_hand = kit.hand[GOOD] + kit.hand[SKULL]
        placed = len(kit.pile)
        entry = self._entries[seat] = {
            "owned": in_hand + placed, "in_hand": in_hand, "placed": placed,
            "eliminated": kit.out is not None, "successes": self.successes[seat],
            "passed": self.passed[seat]}
        return entry

    def is_over(self) -> bool:
        return self.phase is OVER

    def game_full(self) -> dict[str, Any]:
        return {"phase": self.phase.value, "first": self.first, "turn": self.turn,
                "bid": self.bid, "bidder": self.bidder, "passed": list(self.passed),
                "successes": list(self.successes)}

    def place_key(self, seat: int) -> tuple[int, ...]:
        """Winner; then players in the game by successes and discs; then later eliminated."""
        kit = self.kits[seat]
        if seat == self.winner:
            return (0, 0, 0)
        if kit.out is None:
            return (1, -self.successes[seat], -kit.owned)
        return (2, -kit.out, 0)

    def score(self, seat: int) -> float:
        return 1.0 if seat == self.winner else 0.0


class Skull(DiscGame):
    """Registry entry of Skull."""

    name = "skull"
    title = "Skull"
    state_class = SkullState

    def max_steps(self, players: int, options: Mapping[str, Any]) -> int:
        """Rounds x steps per round.

        Rounds: a successful round gives the challenger a success, and nobody can hold two
        without winning, so at most ``n`` successful rounds plus the winning one. A failed round
        removes exactly one disc; the game ends once one player is left, so at most
        ``4(n-1) + 3`` discs are ever removed. Hence at most ``(n+1) + (4n-1) = 5n`` rounds.
        Steps in a round: 1 setup; at most 3 placings per player (hand after setup <= 3);
        1 opening bid; raises strictly increase a bid bounded by the 4n discs (< 4n raises);
        at most n-1 passes; at most 4n flips; 1 discard; 1 first choice: at most 12n + 4.
        """
        n = players
        return 5 * n * (12 * n + 4)


register(Skull())
