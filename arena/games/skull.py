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

import logging
from collections.abc import Mapping
from typing import Any

from arena.games import discs_words, register
from arena.games.base import ALONE
from arena.games.discs import OVER, SKULL, DiscGame, DiscState, numbered, phase_of

log = logging.getLogger(__name__)

#: Successful challenges needed to win.
WINS_NEEDED = 2


#: The phases of a round (as views show them).
SETUP = "setup"  # everyone places one disc at once
TURNS = "turns"  # place or open the auction
AUCTION = "auction"  # raise or pass
CHALLENGE = "challenge"  # the challenger picks whose top disc to flip
DISCARD = "discard"  # the challenger met their own skull and picks a disc to remove
FIRST = "first"  # the challenger eliminated by their own skull picks the next first
PHASES = (SETUP, TURNS, AUCTION, CHALLENGE, DISCARD, FIRST, OVER)

#: The numbered actions (``BIDS[n]`` is ``bid:n``).
BIDS, FLIPS, FIRSTS = numbered("bid"), numbered("flip"), numbered("first")

#: The keys of a view in order, with the values alike in every view (copying this map and
#: filling it in is much faster than writing a map of this size out).
VIEW: dict[str, Any] = dict.fromkeys(
    (
        "seat",
        "hand",
        "stack",
        "lost",
        "game",
        "players",
        "round",
        "to_act",
        "flips",
        "left",
        "log",
        "results",
        "winner",
        "phase",
        "first",
        "seats",
        "bid",
        "bidder",
        "challenger",
    )
)
VIEW["game"] = "skull"


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
    OVER = OVER

    def __init__(self, players: int, seed: int, options: dict[str, Any]) -> None:
        super().__init__(players, seed, options)
        self.successes = [0] * players
        self.passed = [False] * players
        self.bid = 0
        self.bidder: int | None = None
        self.first = 0
        self.phase = SETUP
        self.log({"type": "round", "round": 1, "first": 0})

    # ----- whose turn, what is legal -------------------------------------------------------
    def to_act(self) -> tuple[int, ...]:
        acting = self.acting
        if acting is None:  # (asked first this step)
            phase = self.phase
            if phase == TURNS or phase == AUCTION:
                acting = ALONE[self.turn]
            elif phase == SETUP:
                acting = self.active
            elif phase == OVER:
                acting = ()
            else:  # the challenger flips, discards, picks the first
                assert self.challenge is not None
                acting = ALONE[self.challenge.by]
            self.acting = acting
        return acting

    def _legal(self, seat: int) -> list[str]:
        if seat not in (self.acting or self.to_act()):
            return []
        phase = self.phase
        if phase == SETUP:
            return self.kinds_held(seat, PLACES)
        if phase == TURNS:  # place, or bid up to the discs on the mats
            return [*self.kinds_held(seat, PLACES), *BIDS[1 : self.on_piles + 1]]
        if phase == AUCTION:
            return ["pass", *BIDS[self.bid + 1 : self.on_piles + 1]]
        if phase == CHALLENGE:
            return [
                FLIPS[other]
                for other, kit in enumerate(self.kits)
                if other != seat and len(kit.up) < len(kit.pile)
            ]
        if phase == DISCARD:
            return self.kinds_held(seat, DROPS)
        return [FIRSTS[other] for other in self.active]

    # ----- applying actions ----------------------------------------------------------------
    def _after_put_down(self) -> None:
        self.phase = TURNS
        self.turn = self.first

    def _act(self, seat: int, verb: str, argument: Any) -> None:
        if verb == "bid":
            self._bid(seat, argument)
        elif verb == "pass":
            self._pass(seat)
        elif verb == "flip":
            owner = argument
            self.turn_over(owner, self.kits[owner].top_down())
        elif verb == "discard":
            self.drop(seat, argument)
            self._after_loss()
        else:
            chosen = argument
            self.note(seat, f"first:{chosen}", {"type": "first", "seat": seat, "chosen": chosen})
            self._next_round(chosen)

    def _bid(self, seat: int, n: int) -> None:
        """An opening bid or a raise: nobody places any more."""
        self.phase = AUCTION
        self.bid, self.bidder = n, seat
        self.note(seat, BIDS[n], {"type": "bid", "seat": seat, "n": n})
        self._next_bidder(seat)

    def _pass(self, seat: int) -> None:
        self.passed[seat] = True
        self.show(seat)
        self.note(seat, "pass", {"type": "pass", "seat": seat})
        self._next_bidder(seat)

    def _next_bidder(self, seat: int) -> None:
        """The next player who has not passed bids, or the challenge starts: when all but one
        have passed, or at once when the bid equals the discs on the mats."""
        assert self.bidder is not None
        bidding = len(self.active) - self.passed.count(True)  # (only players still in pass)
        if self.bid == self.on_piles or bidding == 1:
            self.phase = CHALLENGE
            self.begin_challenge(self.bidder, self.bid)
            return
        self.turn = self.next_seat(seat)
        while self.passed[self.turn]:
            self.turn = self.next_seat(self.turn)

    # ----- end of a challenge --------------------------------------------------------------
    def succeeded(self, seat: int) -> None:
        """One success; the second wins the game."""
        self.successes[seat] += 1
        self.show(seat)
        if self.successes[seat] == WINS_NEEDED:
            self._win(seat)
        else:
            self._next_round(seat)

    def failed(self, seat: int, owner: int) -> None:
        """On another's skull, its owner takes a disc blind; on one's own, the challenger
        chooses which disc to discard (without a decision when the skull is the last disc)."""
        if owner != seat:
            self.take(seat, owner)
        elif self.kits[seat].owned > 1:
            self.phase = DISCARD
            return
        else:
            self.drop(seat, SKULL, chosen=False)
        self._after_loss()

    def _after_loss(self) -> None:
        """Who starts the next round after a failure, or who has won."""
        challenge = self.challenge
        assert challenge is not None and challenge.skull_of is not None
        seat, owner = challenge.by, challenge.skull_of
        if not self.eliminate_empty():
            self._next_round(seat)
            return
        remaining = self.active
        if len(remaining) == 1:
            self._win(remaining[0])
        elif owner == seat:
            self.phase = FIRST
        else:
            self._next_round(owner)

    def _result(self, first: int | None) -> dict[str, Any]:
        """The summary of the round that just ended, for ``results``."""
        challenge = self.challenge
        assert challenge is not None
        seat, owner = challenge.by, challenge.skull_of
        return {
            "round": self.round,
            "challenger": seat,
            "bid": challenge.target,
            "flipped": len(challenge.flips),
            "success": owner is None,
            "skull": owner,
            "lost": None if owner is None else seat,
            "eliminated": self.kits[seat].out is not None,
            "first": first,
        }

    def _next_round(self, first: int) -> None:
        self.results = [*self.results, self._result(first)]
        self.new_round_log()
        self.first = self.turn = first
        self.bid, self.bidder = 0, None
        self.passed = [False] * self.players
        self.show_all()
        self.phase = SETUP
        self.log({"type": "round", "round": self.round, "first": first})

    def _win(self, seat: int) -> None:
        self.results = [*self.results, self._result(None)]
        self.winner = seat
        self.phase = OVER
        self.log({"type": "win", "seat": seat})
        log.debug("skull game %s won by seat %s at round %s", self.seed, seat, self.round)

    # ----- information ---------------------------------------------------------------------
    def public_view(self) -> dict[str, Any]:
        challenge = self.challenge
        view = VIEW.copy()
        view["players"] = self.players
        view["round"] = self.round
        view["to_act"] = list(self.acting or self.to_act())
        view["flips"] = self.shown
        view["left"] = challenge.left if challenge else 0
        view["log"] = list(self.round_log)
        view["results"] = self.results
        view["winner"] = self.winner
        view["phase"] = self.phase
        view["first"] = self.first
        view["seats"] = self.seats or self.seat_entries()
        view["bid"] = self.bid
        view["bidder"] = self.bidder
        view["challenger"] = None if challenge is None else challenge.by
        self.public = view
        return view

    def seat_entry(
        self, seat: int, owned: int, in_hand: int, placed: int, out: int | None
    ) -> dict[str, Any]:
        return {
            "owned": owned,
            "in_hand": in_hand,
            "placed": placed,
            "eliminated": out is not None,
            "successes": self.successes[seat],
            "passed": self.passed[seat],
        }

    def load_game_view(self, view: Mapping[str, Any]) -> None:
        self.phase = phase_of(view, PHASES)
        self.first = int(view["first"])
        self.bid, self.bidder = int(view["bid"]), view["bidder"]
        self.successes = [int(entry["successes"]) for entry in view["seats"]]
        self.passed = [bool(entry["passed"]) for entry in view["seats"]]
        acting = view["to_act"]
        self.turn = int(acting[0]) if self.phase in (TURNS, AUCTION) else self.first

    def challenge_of_view(self, view: Mapping[str, Any]) -> tuple[int | None, int]:
        return view["challenger"], int(view["bid"])

    def round_losers(self, result: Mapping[str, Any]) -> list[int]:
        return [] if result["lost"] is None else [int(result["lost"])]

    def round_eliminated(self, result: Mapping[str, Any]) -> list[int]:
        return [int(result["lost"])] if result["eliminated"] else []

    def game_full(self) -> dict[str, Any]:
        return {
            "phase": self.phase,
            "first": self.first,
            "turn": self.turn,
            "bid": self.bid,
            "bidder": self.bidder,
            "passed": list(self.passed),
            "successes": list(self.successes),
        }

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


#: The actions that put down and give up a disc, by kind (``SkullState.PLACES`` and ``DROPS``),
#: which ``_legal`` reads as module names: faster than class attributes read through ``self``.
PLACES, DROPS = SkullState.PLACES, SkullState.DROPS


class Skull(DiscGame):
    """Registry entry of Skull."""

    name = "skull"
    title = "Skull"
    state_class = SkullState
    rules_summary = discs_words.SKULL_RULES

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
