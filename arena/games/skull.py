"""Skull (Hervé Marly), game id ``skull``: the rules of ``/work/shared/rules/skull.md``.

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
from arena.games.discs import DISCS_EACH, SKULL, DiscGame, DiscState, seat_of

log = logging.getLogger(__name__)

#: Successful challenges needed to win.
WINS_NEEDED = 2
_BIDS = tuple(f"bid:{n}" for n in range(DISCS_EACH * 6 + 1))


class Phase(str, enum.Enum):
    SETUP = "setup"          # everyone places one disc at once
    TURNS = "turns"          # place or open the auction
    AUCTION = "auction"      # raise or pass
    CHALLENGE = "challenge"  # the challenger picks whose top disc to flip
    DISCARD = "discard"      # the challenger met their own skull and picks a disc to remove
    FIRST = "first"          # the challenger eliminated by their own skull picks the next first
    OVER = "over"


class SkullState(DiscState):
    """A game of Skull in progress."""

    GAME = "skull"
    GOOD_NAME = "flower"
    PILE = "stack"
    PLACE = "place"
    FLIP = "flip"
    DROP = "discard"
    SHOWN = "flips"

    def __init__(self, players: int, seed: int, options: dict[str, Any]) -> None:
        super().__init__(players, seed, options)
        self.successes = [0] * players
        self.passed = [False] * players
        self.bid = 0
        self.bidder: int | None = None
        self.first = 0
        self.turn = 0
        self.phase = Phase.SETUP
        self.log("round", round=1, first=0)

    # ----- whose turn, what is legal ----------------------------------------------------------
    def to_act(self) -> tuple[int, ...]:
        phase = self.phase
        if phase is Phase.SETUP:
            return self.active_seats()
        if phase is Phase.TURNS or phase is Phase.AUCTION:
            return (self.turn,)
        if phase is Phase.OVER:
            return ()
        assert self.challenge is not None
        return (self.challenge.by,)

    def legal(self, seat: int) -> list[str]:
        if seat not in self.to_act():
            return []
        phase = self.phase
        total = self.on_mats()
        if phase is Phase.SETUP:
            return self.kind_actions(seat, "place")
        if phase is Phase.TURNS:
            return self.kind_actions(seat, "place") + list(_BIDS[1:total + 1])
        if phase is Phase.AUCTION:
            return ["pass", *_BIDS[self.bid + 1:total + 1]]
        if phase is Phase.CHALLENGE:
            return self.flip_actions()
        if phase is Phase.DISCARD:
            return self.kind_actions(seat, "discard")
        return [f"first:{s}" for s in self.active_seats()]

    # ----- applying actions ---------------------------------------------------------------
    def _apply(self, actions: Mapping[int, str]) -> None:
        if self.phase is Phase.SETUP:
            for seat in sorted(actions):
                self.place(seat, actions[seat])
            self.phase = Phase.TURNS
            self.turn = self.first
            return
        ((seat, action),) = actions.items()
        if action.startswith("place:"):
            self.place(seat, action)
            self.turn = self.next_seat(seat)
        elif action.startswith("bid:"):
            self._bid(seat, int(action[4:]))
        elif action == "pass":
            self._pass(seat)
        elif action.startswith("flip:"):
            self.flip(seat_of(action))
            self._after_flip()
        elif action.startswith("discard:"):
            self.drop(seat, self.kind_of(action))
            self._after_loss()
        else:
            chosen = seat_of(action)
            self.log("first", seat=seat, chosen=chosen)
            self.note(seat, action)
            self._next_round(chosen)

    def _bid(self, seat: int, n: int) -> None:
        self.phase = Phase.AUCTION
        self.bid, self.bidder = n, seat
        self.log("bid", seat=seat, n=n)
        self.note(seat, f"bid:{n}")
        self._next_bidder(seat)

    def _pass(self, seat: int) -> None:
        self.passed[seat] = True
        self.log("pass", seat=seat)
        self.note(seat, "pass")
        self._next_bidder(seat)

    def _next_bidder(self, seat: int) -> None:
        """Move the auction on, or start the challenge once it is over."""
        assert self.bidder is not None
        bidding = [s for s in self.active_seats() if not self.passed[s]]
        if self.bid == self.on_mats() or len(bidding) == 1:
            self.phase = Phase.CHALLENGE
            self.begin_challenge(self.bidder, self.bid)
            self._after_flip()
            return
        nxt = self.next_seat(seat)
        while self.passed[nxt]:
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
            self.log("success", seat=seat)
            if self.successes[seat] == WINS_NEEDED:
                self._win(seat)
            else:
                self._next_round(seat)
            return
        owner = challenge.skull_of
        self.log("failure", seat=seat, skull=owner)
        if owner != seat:
            self.take(seat, owner)
        elif self.kits[seat].owned > 1:
            self.phase = Phase.DISCARD
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
            self.phase = Phase.FIRST
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
        self.results.append(self._result(first))
        self.new_round_log()
        self.first = self.turn = first
        self.bid, self.bidder = 0, None
        self.passed = [False] * self.players
        self.phase = Phase.SETUP
        self.log("round", round=self.round, first=first)

    def _win(self, seat: int) -> None:
        self.results.append(self._result(None))
        self.winner = seat
        self.phase = Phase.OVER
        self.log("win", seat=seat)
        log.debug("skull game %s won by seat %s at round %s", self.seed, seat, self.round)

    # ----- information ----------------------------------------------------------------------
    def view(self, seat: int) -> dict[str, Any]:
        view = self.common_view(seat)
        seats = []
        for s in range(self.players):
            entry = self.public_seat(s)
            entry["successes"] = self.successes[s]
            entry["passed"] = self.passed[s]
            seats.append(entry)
        view.update(phase=self.phase.value, first=self.first, seats=seats, bid=self.bid,
                    bidder=self.bidder,
                    challenger=None if self.challenge is None else self.challenge.by)
        return view

    def is_over(self) -> bool:
        return self.phase is Phase.OVER

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
