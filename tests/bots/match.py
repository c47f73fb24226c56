"""In-process matches of bundled bots against uniformly random opponents (for bot tests)."""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from arena.games import get_game

Act = Callable[[dict, list[str]], str]


def random_act(view: dict, legal: list[str]) -> str:
    return random.choice(legal)


def win_rate(game: str, act: Act, *, games: int, players: int = 4, seed: int = 0) -> float:
    """Share of games the bot places first (ties shared by count), seat rotating each game.

    Python's global ``random`` is seeded per game, as the SDK does, so the bot and the random
    opponents are deterministic; every game uses its own deal seed.
    """
    rule = get_game(game)
    score = 0.0
    for number in range(games):
        hero = number % players
        random.seed(seed * 100_003 + number)
        state = rule.new(players, seed + number)
        while not state.is_over():
            state.apply({s: (act if s == hero else random_act)(state.view(s), state.legal(s))
                         for s in state.to_act()})
        places = state.outcome().places
        if places[hero] == 1:
            score += 1.0 / places.count(1)
    return score / games


def mean_decision_seconds(game: str, act: Act, *, players: int, seeds: range) -> float:
    """Play the bot in every seat; check each answer is legal; return its mean think time."""
    rule = get_game(game)
    spent, decisions = 0.0, 0
    for seed in seeds:
        random.seed(seed)
        state = rule.new(players, seed)
        while not state.is_over():
            joint = {}
            for seat in state.to_act():
                view, legal = state.view(seat), state.legal(seat)
                start = time.perf_counter()
                joint[seat] = act(view, legal)
                spent += time.perf_counter() - start
                decisions += 1
                assert joint[seat] in legal, (joint[seat], legal)
            state.apply(joint)
    return spent / decisions
