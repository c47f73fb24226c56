"""A tiny deterministic game for referee tests: alternate sequential and simultaneous steps.

Each round, seat 0..n-1 in turn picks ``n:0``..``n:2`` (sequential), then everyone picks at
once (simultaneous). After ``rounds`` rounds the highest total wins. Hidden: nothing but the
simultaneous picks before they are in.
"""

from __future__ import annotations

import random
from typing import Any

from arena.games import Game, OptionSpec, Outcome, State, places_from_keys, register


class ToyState(State):
    def __init__(self, players: int, seed: int, options: dict[str, Any]) -> None:
        self.players, self.seed, self.options = players, seed, options
        self.rng = random.Random(seed)
        self.events, self.steps = [], 0
        self.totals = [0] * players
        self.turn = 0  # 0..players-1 sequential, players = simultaneous
        self.round = 0
        self.bonus = self.rng.randrange(3)
        self.log({"type": "deal", "bonus": self.bonus})

    def to_act(self) -> tuple[int, ...]:
        if self.is_over():
            return ()
        if self.turn == self.players:
            return tuple(range(self.players))
        return (self.turn,)

    def _legal(self, seat: int) -> list[str]:
        return ["n:0", "n:1", "n:2"] if seat in self.to_act() else []

    def _apply(self, actions: dict[int, str]) -> None:
        for seat, action in actions.items():
            self.totals[seat] += int(action[2:])
            self.log({"type": "pick", "seat": seat, "action": action})
        if self.turn == self.players:
            self.turn = 0
            self.round += 1
        else:
            self.turn += 1

    def view(self, seat: int) -> dict[str, Any]:
        return {"totals": list(self.totals), "round": self.round, "seat": seat}

    def is_over(self) -> bool:
        return self.round >= self.options["rounds"]

    def outcome(self) -> Outcome:
        return Outcome(tuple(self.totals), places_from_keys([-t for t in self.totals]))

    def full(self) -> dict[str, Any]:
        return {"totals": list(self.totals), "round": self.round, "turn": self.turn}

    def resample(self, seat: int, rng: random.Random) -> State:
        return self.clone()


class ToyGame(Game):
    name = "toy"
    title = "Toy"
    min_players = 2
    max_players = 6
    options = {"rounds": OptionSpec(3, "rounds to play", kind=int, minimum=1, maximum=100)}

    def _new(self, players: int, seed: int, options: dict[str, Any]) -> State:
        return ToyState(players, seed, options)

    def max_steps(self, players: int, options: Any) -> int:
        return options["rounds"] * (players + 1)


TOY = ToyGame()


def install() -> ToyGame:
    register(TOY)
    return TOY
