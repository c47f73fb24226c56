"""Matches of bundled bots against uniformly random opponents, played in this process through
the referee's driver with in-process seats (for bot tests)."""

from __future__ import annotations

import random

from arena.games import get_game
from arena.procs.limits import Limits
from arena.referee import driver
from arena.referee.game import GameSetup
from arena.referee.seats import Act, InProcessSeat

#: In-process bots are timed, not raced: a loaded machine must not turn a slow answer into a
#: fault.
LIMITS = Limits(move_ms=600_000, max_faults=1)


def random_act(view: dict, legal: list[str]) -> str:
    return random.choice(legal)


def _seats(act: Act, hero: int, players: int) -> list[InProcessSeat]:
    return [
        InProcessSeat(act if seat == hero else random_act, "bot" if seat == hero else "random")
        for seat in range(players)
    ]


def win_rate(game: str, act: Act, *, games: int, players: int = 4, seed: int = 0) -> float:
    """Share of games the bot places first (ties shared by count), seat rotating each game.

    Python's global ``random`` is seeded per game, as the SDK does, so the bot and the random
    opponents are deterministic; every game uses its own deal seed. A fault fails the match.
    """
    rule = get_game(game)
    score = 0.0
    for number in range(games):
        hero = number % players
        random.seed(seed * 100_003 + number)
        table = GameSetup(rule, _seats(act, hero, players), seed + number, bot_seeds=[0] * players)
        record = driver.play(table, LIMITS)
        assert not record.faults, record.faults
        if record.places[hero] == 1:
            score += 1.0 / record.places.count(1)
    return score / games


def mean_decision_seconds(game: str, act: Act, *, players: int, seeds: range) -> float:
    """Play the bot in every seat; check each answer is legal; return its mean think time."""
    rule = get_game(game)
    think_us, decisions = 0, 0
    for seed in seeds:
        random.seed(seed)
        seats = [InProcessSeat(act, "bot") for _ in range(players)]
        record = driver.play(GameSetup(rule, seats, seed, bot_seeds=[0] * players), LIMITS)
        assert not record.faults, record.faults  # an illegal answer is a fault
        think_us += sum(record.think_us)
        decisions += sum(record.decisions)
    return think_us / 1e6 / decisions
