"""Skull & Roses, bank variant, game id ``skull-bank``: the rules of ``rules/skull-bank.md``.

3-6 players each hold three roses and a skull (bills). A round: everyone antes a bill face down
at once, then from the dealer each player adds a bill or claims how many bills they can reveal
without a skull; the claimant takes the button. Every other player then agrees, disagrees or
raises (a raise takes the button and voids earlier answers). If all agree, the button passes left
and the new dealer must raise. The dealer reveals their own row (automatically), then top bills
of other rows. Losers (disagreers on success; dealer and agreers on a skull) each give a bill,
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
from arena.games.discs import DISCS_EACH, SKULL, DiscGame, DiscState, seat_of

log = logging.getLogger(__name__)

#: [arena] Rounds played at most; then the game ends and players are placed by bills.
MAX_ROUNDS = 200
_TOP = DISCS_EACH * 6
_CLAIMS = tuple(f"claim:{n}" for n in range(_TOP + 1))
_RAISES = tuple(f"raise:{n}" for n in range(_TOP + 1))


class Phase(str, enum.Enum):
    ANTE = "ante"            # everyone puts one bill down at once
    ADD = "add"              # add a bill or claim
    RESPOND = "respond"      # agree, disagree or raise
    RAISE = "raise"          # everyone agreed: the new dealer must raise
    SHOWDOWN = "showdown"    # the dealer picks whose top bill to reveal
    GIVE = "give"            # the skull's owner, a loser, picks a bill to give up
    OVER = "over"


class BankState(DiscState):
    """A game of Skull & Roses (bank variant) in progress."""

    GAME = "skull-bank"
    GOOD_NAME = "rose"
    PILE = "row"
    PLACE = "add"
    FLIP = "reveal"
    DROP = "give"
    SHOWN = "revealed"

    def __init__(self, players: int, seed: int, options: dict[str, Any]) -> None:
        super().__init__(players, seed, options)
        self.dealer = 0
        self.turn = 0
        self.claim = 0
        self.answers: list[str | None] = [None] * players
        self.losers: list[int] = []
        self.phase = Phase.ANTE
        self.log("round", round=1, dealer=0)

    # ----- whose turn, what is legal ----------------------------------------------------------
    def to_act(self) -> tuple[int, ...]:
        phase = self.phase
        if phase is Phase.ANTE:
            return self.active_seats()
        if phase is Phase.ADD or phase is Phase.RESPOND:
            return (self.turn,)
        if phase is Phase.GIVE:
            assert self.challenge is not None and self.challenge.skull_of is not None
            return (self.challenge.skull_of,)
        if phase is Phase.OVER:
            return ()
        return (self.dealer,)

    def legal(self, seat: int) -> list[str]:
        if seat not in self.to_act():
            return []
        phase = self.phase
        raises = list(_RAISES[self.claim + 1:self.on_mats() + 1])
        if phase is Phase.ANTE:
            return self.kind_actions(seat, "add")
        if phase is Phase.ADD:
            return self.kind_actions(seat, "add") + list(_CLAIMS[1:self.on_mats() + 1])
        if phase is Phase.RESPOND:
            return ["agree", "disagree", *raises]
        if phase is Phase.RAISE:
            return raises
        if phase is Phase.SHOWDOWN:
            return self.flip_actions()
        return self.kind_actions(seat, "give")

    # ----- applying actions ---------------------------------------------------------------
    def _apply(self, actions: Mapping[int, str]) -> None:
        if self.phase is Phase.ANTE:
            for seat in sorted(actions):
                self.place(seat, actions[seat])
            self.phase = Phase.ADD
            self.turn = self.dealer
            return
        ((seat, action),) = actions.items()
        verb, _, rest = action.partition(":")
        if verb == "add":
            self.place(seat, action)
            self.turn = self.next_seat(seat)
        elif verb in ("claim", "raise"):
            self._claim(seat, verb, int(rest))
        elif verb in ("agree", "disagree"):
            self._answer(seat, verb)
        elif verb == "reveal":
            self.flip(seat_of(action))
            self._after_reveal()
        else:
            self.drop(seat, self.kind_of(action))
            self._finish_round()

    def _claim(self, seat: int, verb: str, n: int) -> None:
        """A claim or raise: ``seat`` takes the button, answers start again on its left."""
        self.dealer, self.claim = seat, n
        self.log(verb, seat=seat, n=n)
        self.note(seat, f"{verb}:{n}")
        self.answers = [None] * self.players
        self.phase = Phase.RESPOND
        self.turn = self.next_seat(seat)

    def _answer(self, seat: int, answer: str) -> None:
        self.answers[seat] = answer
        self.log(answer, seat=seat)
        self.note(seat, answer)
        self.turn = self.next_seat(seat)
        if self.turn != self.dealer:
            return
        if "disagree" in self.answers or self.claim == self.on_mats():
            self.phase = Phase.SHOWDOWN
            self.begin_challenge(self.dealer, self.claim)
            self._after_reveal()
        else:
            self.dealer = self.next_seat(self.dealer)
            self.phase = Phase.RAISE
            self.log("button", seat=self.dealer)
            self.note(self.dealer, "button")

    # ----- showdown and settlement ---------------------------------------------------------
    def _after_reveal(self) -> None:
        challenge = self.challenge
        assert challenge is not None
        if not challenge.done:
            return
        self.close_piles()
        dealer, owner = challenge.by, challenge.skull_of
        order = [(dealer + i) % self.players for i in range(1, self.players)]
        if owner is None:
            self.log("success", seat=dealer)
            self.losers = [s for s in order if self.answers[s] == "disagree"]
            for loser in self.losers:
                self.take(loser, dealer)
            self._finish_round()
            return
        self.log("failure", seat=dealer, skull=owner)
        self.losers = [dealer] + [s for s in order if self.answers[s] == "agree"]
        for loser in self.losers:
            if loser != owner:
                self.take(loser, owner)
        self.eliminate_empty()
        if owner in self.losers:
            if self.kits[owner].owned > 1:
                self.phase = Phase.GIVE
                return
            self.drop(owner, SKULL, chosen=False)
        self._finish_round()

    def _next_dealer(self) -> int | None:
        challenge = self.challenge
        assert challenge is not None
        dealer, owner = challenge.by, challenge.skull_of
        if owner is None or owner == dealer:
            return self.next_active(dealer)
        return owner if self.active(owner) else self.next_active(owner)

    def _finish_round(self) -> None:
        challenge = self.challenge
        assert challenge is not None
        self.eliminate_empty()
        gone = [s for s, kit in enumerate(self.kits) if kit.out == self.round]
        remaining = self.active_seats()
        over = len(remaining) <= 1 or self.round >= MAX_ROUNDS
        dealer = None if over else self._next_dealer()
        self.results.append({
            "round": self.round, "dealer": challenge.by, "claim": challenge.target,
            "agreed": [s for s, a in enumerate(self.answers) if a == "agree"],
            "disagreed": [s for s, a in enumerate(self.answers) if a == "disagree"],
            "revealed": len(challenge.flips), "success": challenge.skull_of is None,
            "skull": challenge.skull_of, "losers": list(self.losers), "eliminated": gone,
            "next_dealer": dealer})
        if dealer is None:
            self._end(remaining)
            return
        self.new_round_log()
        self.dealer = self.turn = dealer
        self.claim = 0
        self.answers = [None] * self.players
        self.losers = []
        self.phase = Phase.ANTE
        self.log("round", round=self.round, dealer=dealer)

    def _end(self, remaining: tuple[int, ...]) -> None:
        self.phase = Phase.OVER
        if len(remaining) == 1:
            self.winner = remaining[0]
            self.log("win", seat=self.winner)
        else:
            why = "every remaining player was eliminated at once" if not remaining else \
                f"round cap of {MAX_ROUNDS} reached"
            self.log("end", why=why)
        log.debug("skull-bank game %s over at round %s", self.seed, self.round)

    # ----- information ----------------------------------------------------------------------
    def view(self, seat: int) -> dict[str, Any]:
        view = self.common_view(seat)
        seats = []
        for s in range(self.players):
            entry = self.public_seat(s)
            entry["answer"] = self.answers[s]
            seats.append(entry)
        view.update(phase=self.phase.value, dealer=self.dealer, claim=self.claim, seats=seats,
                    max_rounds=MAX_ROUNDS)
        return view

    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    def game_full(self) -> dict[str, Any]:
        return {"phase": self.phase.value, "dealer": self.dealer, "turn": self.turn,
                "claim": self.claim, "answers": list(self.answers),
                "losers": list(self.losers)}

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
