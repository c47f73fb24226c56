"""Skull & Roses, bank variant, game id ``skull-bank``: the rules of ``docs/games/skull-bank.md``.

3-6 players each hold three roses and a skull (bills). A round: everyone antes a bill face down
at once, then from the dealer each player adds a bill or claims how many bills they can reveal
without a skull; the claimant takes the button. Every other player then agrees, disagrees or
raises (a raise takes the button and voids earlier answers). If all agree, the button passes left
and the new dealer must raise. The dealer reveals their own row (automatically), then any
face-down bill of any other row, in any order (a bill is named by its owner and position).
Losers (disagreers on success; dealer and agreers on a skull) each give a bill, drawn blind
or, for the skull's owner, chosen. The last player with bills wins.

[arena] decisions: seat 0 deals first; a claim equal to the bills on the table is shown down
even if all agree; 200 rounds at most, then placing by bills; players eliminated in the same
settlement share a place (if that is everyone left, they share first place); the skull's owner
gives their last bill without a decision. See ``docs/games/skull-bank.md``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from arena.games import discs_words, register
from arena.games.base import ALONE
from arena.games.discs import (
    DISCS_EACH,
    MAX_SEATS,
    OVER,
    SKULL,
    DiscGame,
    DiscState,
    numbered,
    phase_of,
)

log = logging.getLogger(__name__)

#: [arena] Rounds played at most; then the game ends and players are placed by bills.
MAX_ROUNDS = 200


#: The phases of a round (as views show them).
ANTE = "ante"  # everyone puts one bill down at once
ADD = "add"  # add a bill or claim
RESPOND = "respond"  # agree, disagree or raise
RAISE = "raise"  # everyone agreed: the new dealer must raise
SHOWDOWN = "showdown"  # the dealer picks which face-down bill of another row to reveal
GIVE = "give"  # the skull's owner, a loser, picks a bill to give up
PHASES = (ANTE, ADD, RESPOND, RAISE, SHOWDOWN, GIVE, OVER)

#: The numbered actions (``CLAIMS[n]`` is ``claim:n``).
CLAIMS, RAISES = numbered("claim"), numbered("raise")
#: The reveal actions by seat and position (``REVEALS[seat][at]`` is ``reveal:seat,at``).
REVEALS = tuple(
    tuple(f"reveal:{seat},{at}" for at in range(DISCS_EACH)) for seat in range(MAX_SEATS)
)

#: The keys of a view in order, with the values alike in every view (copying this map and
#: filling it in is much faster than writing a map of this size out).
VIEW: dict[str, Any] = dict.fromkeys(
    (
        "seat",
        "hand",
        "row",
        "lost",
        "game",
        "players",
        "round",
        "to_act",
        "revealed",
        "left",
        "log",
        "results",
        "winner",
        "phase",
        "dealer",
        "claim",
        "seats",
        "face_down",
        "max_rounds",
    )
)
VIEW["game"] = "skull-bank"
VIEW["max_rounds"] = MAX_ROUNDS


class BankState(DiscState):
    """A game of Skull & Roses (bank variant) in progress."""

    GAME = "skull-bank"
    GOOD_NAME = "rose"
    PILE = "row"
    PLACE = "add"
    FLIP = "reveal"
    DROP = "give"
    SHOWN = "revealed"
    SHOW_POSITION = True
    TOGETHER = ANTE
    OVER = OVER

    def __init__(self, players: int, seed: int, options: dict[str, Any]) -> None:
        super().__init__(players, seed, options)
        self.dealer = 0
        self.claim = 0
        self.answers: list[str | None] = [None] * players
        self.losers: list[int] = []
        self.phase = ANTE
        self.log({"type": "round", "round": 1, "dealer": 0})

    # ----- whose turn, what is legal -------------------------------------------------------
    def to_act(self) -> tuple[int, ...]:
        acting = self.acting
        if acting is None:  # (asked first this step)
            phase = self.phase
            if phase == ADD or phase == RESPOND:
                acting = ALONE[self.turn]
            elif phase == ANTE:
                acting = self.active
            elif phase == GIVE:
                assert self.challenge is not None and self.challenge.skull_of is not None
                acting = ALONE[self.challenge.skull_of]
            elif phase == OVER:
                acting = ()
            else:  # the dealer raises, or reveals
                acting = ALONE[self.dealer]
            self.acting = acting
        return acting

    def _legal(self, seat: int) -> list[str]:
        if seat not in (self.acting or self.to_act()):
            return []
        phase = self.phase
        if phase == ANTE:
            return self.kinds_held(seat, PLACES)
        if phase == ADD:  # add, or claim up to the bills on the rows
            return [*self.kinds_held(seat, PLACES), *CLAIMS[1 : self.on_piles + 1]]
        if phase == RESPOND:
            return ["agree", "disagree", *RAISES[self.claim + 1 : self.on_piles + 1]]
        if phase == RAISE:
            return list(RAISES[self.claim + 1 : self.on_piles + 1])
        if phase == SHOWDOWN:
            # every face-down bill of every other row, by seat, then position from the bottom
            actions = []
            for other, kit in enumerate(self.kits):
                if other != seat:
                    actions += map(REVEALS[other].__getitem__, kit.down)
            return actions
        return self.kinds_held(seat, DROPS)

    # ----- applying actions ----------------------------------------------------------------
    def _after_put_down(self) -> None:
        self.phase = ADD
        self.turn = self.dealer

    def _act(self, seat: int, verb: str, argument: Any) -> None:
        if verb in ("claim", "raise"):
            self._claim(seat, verb, argument)
        elif verb in ("agree", "disagree"):
            self._answer(seat, verb)
        elif verb == "reveal":
            owner, at = argument
            self.turn_over(owner, at)
        else:
            self.drop(seat, argument)
            self._finish_round()

    def _claim(self, seat: int, verb: str, n: int) -> None:
        """A claim or raise: ``seat`` takes the button, earlier answers are void, and answering
        starts again on its left."""
        self.dealer, self.claim = seat, n
        self.note(seat, f"{verb}:{n}", {"type": verb, "seat": seat, "n": n})
        self.answers = [None] * self.players
        self.show_all()
        self.phase = RESPOND
        self.turn = self.next_seat(seat)

    def _answer(self, seat: int, answer: str) -> None:
        """Once all the others have answered: a showdown if anyone disagreed (or nobody can
        raise), else the button passes left and the new dealer must raise."""
        self.answers[seat] = answer
        self.show(seat)
        self.note(seat, answer, {"type": answer, "seat": seat})
        self.turn = self.next_seat(seat)
        if self.turn != self.dealer:
            return
        if "disagree" in self.answers or self.claim == self.on_piles:
            self.phase = SHOWDOWN
            self.begin_challenge(self.dealer, self.claim)
        else:
            self.dealer = self.next_seat(self.dealer)
            self.phase = RAISE
            self.note(self.dealer, "button", {"type": "button", "seat": self.dealer})

    # ----- showdown and settlement ---------------------------------------------------------
    def _others_from(self, dealer: int) -> list[int]:
        """The other seats clockwise from the dealer's left."""
        return [(dealer + step) % self.players for step in range(1, self.players)]

    def succeeded(self, seat: int) -> None:
        """Only roses: every player who disagreed loses a bill, drawn blind by the dealer."""
        self.losers = [
            other for other in self._others_from(seat) if self.answers[other] == "disagree"
        ]
        for loser in self.losers:
            self.take(loser, seat)
        self._finish_round()

    def failed(self, seat: int, owner: int) -> None:
        """A skull: the dealer and every player who agreed lose a bill, drawn blind by the
        skull's owner, who chooses his own if he is a loser (unless it is his last)."""
        self.losers = [seat] + [
            other for other in self._others_from(seat) if self.answers[other] == "agree"
        ]
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
        """Record the round; the game ends with one player left (or none) or at the cap."""
        self.eliminate_empty()
        remaining = self.active
        over = len(remaining) <= 1 or self.round >= MAX_ROUNDS
        dealer = None if over else self._next_dealer()
        self.results = [*self.results, self._result(dealer)]
        if dealer is None:
            self._end(remaining)
            return
        self.new_round_log()
        self.dealer = self.turn = dealer
        self.claim = 0
        self.answers = [None] * self.players
        self.show_all()
        self.losers = []
        self.phase = ANTE
        self.log({"type": "round", "round": self.round, "dealer": dealer})

    def _result(self, next_dealer: int | None) -> dict[str, Any]:
        """The summary of the round that just ended, for ``results``."""
        challenge = self.challenge
        assert challenge is not None
        return {
            "round": self.round,
            "dealer": challenge.by,
            "claim": challenge.target,
            "agreed": [seat for seat, answer in enumerate(self.answers) if answer == "agree"],
            "disagreed": [seat for seat, answer in enumerate(self.answers) if answer == "disagree"],
            "revealed": len(challenge.flips),
            "success": challenge.skull_of is None,
            "skull": challenge.skull_of,
            "losers": list(self.losers),
            "eliminated": [seat for seat, kit in enumerate(self.kits) if kit.out == self.round],
            "next_dealer": next_dealer,
        }

    def _end(self, remaining: tuple[int, ...]) -> None:
        self.phase = OVER
        if len(remaining) == 1:
            self.winner = remaining[0]
            self.log({"type": "win", "seat": self.winner})
        elif not remaining:
            self.log({"type": "end", "why": "every remaining player was eliminated at once"})
        else:
            self.log({"type": "end", "why": f"round cap of {MAX_ROUNDS} reached"})
        log.debug("skull-bank game %s over at round %s", self.seed, self.round)

    # ----- information ---------------------------------------------------------------------
    def public_view(self) -> dict[str, Any]:
        challenge = self.challenge
        view = VIEW.copy()
        view["players"] = self.players
        view["round"] = self.round
        view["to_act"] = list(self.acting or self.to_act())
        view["revealed"] = self.shown
        view["left"] = challenge.left if challenge else 0
        view["log"] = list(self.round_log)
        view["results"] = self.results
        view["winner"] = self.winner
        view["phase"] = self.phase
        view["dealer"] = self.dealer
        view["claim"] = self.claim
        view["seats"] = self.seats or self.seat_entries()
        view["face_down"] = [kit.down for kit in self.kits]
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
            "answer": self.answers[seat],
        }

    def load_game_view(self, view: Mapping[str, Any]) -> None:
        self.phase = phase_of(view, PHASES)
        self.dealer, self.claim = int(view["dealer"]), int(view["claim"])
        self.answers = [entry["answer"] for entry in view["seats"]]
        acting = view["to_act"]
        self.turn = int(acting[0]) if self.phase in (ADD, RESPOND) else self.dealer
        self.losers = []
        if self.phase == GIVE:  # a skull was met: the dealer and those who agreed lose
            self.losers = [self.dealer] + [
                other for other in self._others_from(self.dealer) if self.answers[other] == "agree"
            ]

    def challenge_of_view(self, view: Mapping[str, Any]) -> tuple[int | None, int]:
        if self.phase in (SHOWDOWN, GIVE, OVER):  # a game ends on a showdown
            return self.dealer, self.claim
        return None, 0

    def round_losers(self, result: Mapping[str, Any]) -> list[int]:
        return [int(seat) for seat in result["losers"]]

    def round_eliminated(self, result: Mapping[str, Any]) -> list[int]:
        return [int(seat) for seat in result["eliminated"]]

    def game_full(self) -> dict[str, Any]:
        return {
            "phase": self.phase,
            "dealer": self.dealer,
            "turn": self.turn,
            "claim": self.claim,
            "answers": list(self.answers),
            "losers": list(self.losers),
            "up": [list(kit.up) for kit in self.kits],
            "positions": [flip.position for flip in self.challenge.flips] if self.challenge else [],
        }

    def place_key(self, seat: int) -> tuple[int, ...]:
        """Players still in by bills owned; then the eliminated, later ones ahead."""
        kit = self.kits[seat]
        return (0, -kit.owned) if kit.out is None else (1, -kit.out)

    def score(self, seat: int) -> float:
        return float(self.kits[seat].owned)


#: The actions that put down and give up a disc, by kind (``BankState.PLACES`` and ``DROPS``),
#: which ``_legal`` reads as module names: faster than class attributes read through ``self``.
PLACES, DROPS = BankState.PLACES, BankState.DROPS


class SkullBank(DiscGame):
    """Registry entry of the bank variant."""

    name = "skull-bank"
    title = "Skull & Roses (bank variant)"
    state_class = BankState
    rules_summary = discs_words.BANK_RULES

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
