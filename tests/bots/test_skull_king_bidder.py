"""The Skull King bidder bot: always legal, stateless and fast, and far stronger than random.

Matches are in-process: the bot's ``act`` is called on each view, opponents play
``random.choice(legal)``, Python's global ``random`` is seeded per game (as the SDK does), and
the bot's seat rotates game by game.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass

import pytest

import bots.skull_king_bidder as bidder
from arena.games import get_game

GAME = get_game("skull-king")


@dataclass(frozen=True)
class Results:
    """The bot's record against random opponents."""

    games: int
    mean_place: float
    win_rate: float
    pairwise: float  # share of pairwise comparisons won against each random opponent (ties 1/2)
    exact_bids: float  # share of rounds the bot made its bid exactly
    seconds_per_decision: float

    @property
    def elo_gap(self) -> float:
        p = min(max(self.pairwise, 1e-3), 1 - 1e-3)
        return 400 * math.log10(p / (1 - p))


def match(games: int, players: int, options: dict | None = None, seed: int = 0) -> Results:
    places, pairs, exact, rounds, thinking, decisions = [], 0.0, 0, 0, 0.0, 0
    for number in range(games):
        hero = number % players
        random.seed(seed * 100_003 + number)
        state = GAME.new(players, seed + number, options)
        while not state.is_over():
            joint = {}
            for seat in state.to_act():
                legal = state.legal(seat)
                if seat != hero:
                    joint[seat] = random.choice(legal)
                    continue
                view = state.view(seat)
                start = time.thread_time()
                joint[seat] = bidder.act(view, legal)
                thinking += time.thread_time() - start
                decisions += 1
                assert joint[seat] in legal
            state.apply(joint)
        outcome = state.outcome()
        places.append(outcome.places[hero])
        mine = outcome.scores[hero]
        pairs += sum(
            1.0 if mine > s else 0.5 if mine == s else 0.0
            for seat, s in enumerate(outcome.scores)
            if seat != hero
        )
        for event in state.events:
            if event["type"] == "round":
                rounds += 1
                exact += event["bids"][hero] == event["won"][hero]
    return Results(
        games,
        sum(places) / games,
        places.count(1) / games,
        pairs / (games * (players - 1)),
        exact / rounds,
        thinking / decisions,
    )


def test_module_contract() -> None:
    assert bidder.__doc__ and bidder.GAMES == ("skull-king",)
    assert callable(bidder.act)


def test_beats_random_by_a_wide_margin_four_players() -> None:
    results = match(100, 4)
    print(f"4 players vs 3 random: {results} elo gap {results.elo_gap:.0f}")
    assert results.mean_place < 1.3
    assert results.win_rate > 0.8
    assert results.pairwise > 0.9
    assert results.elo_gap > 300
    assert results.exact_bids > 0.45
    assert results.seconds_per_decision < 0.001


@pytest.mark.parametrize(
    "players, options", [(2, None), (3, {"advanced": True}), (5, {"scoring": "rascal"}), (8, None)]
)
def test_beats_random_at_other_tables(players: int, options: dict | None) -> None:
    results = match(16, players, options, seed=7)
    assert results.pairwise > 0.75
    assert results.mean_place < 1 + (players - 1) / 3


def test_stateless_same_view_same_action() -> None:
    state = GAME.new(4, 3, {"advanced": True})
    rng = random.Random(3)
    while not state.is_over():
        for seat in state.to_act():
            view, legal = state.view(seat), state.legal(seat)
            assert bidder.act(view, legal) == bidder.act(view, list(legal))
        state.apply({s: rng.choice(state.legal(s)) for s in state.to_act()})


def test_bids_from_hand_strength() -> None:
    state = GAME.new(4, 0)
    state.rig_deal(
        [["SK", "PIR", "TIG"], ["ESC", "ESC", "G1"], ["B14", "Y2", "P3"], ["G5", "Y6", "P7"]], 3
    )
    bids = [bidder.act(state.view(s), state.legal(s)) for s in range(4)]
    assert bids[0] == "bid:3" and bids[1] == "bid:0"


def test_plays_to_the_bid() -> None:
    # round 2 of 2 players: seat 1 leads; seat 0 bid 0 and ducks under the black 9
    state = GAME.new(2, 0)
    state.rig_deal([["B14", "B3"], ["B9", "G2"]], 2)
    state.apply({0: "bid:0", 1: "bid:1"})
    state.apply({1: "play:B9"})
    assert bidder.act(state.view(0), state.legal(0)) == "play:B3"
    # seat 0 bid 1: it takes the trick with the black 14
    state = GAME.new(2, 0)
    state.rig_deal([["B14", "B3"], ["B9", "G2"]], 2)
    state.apply({0: "bid:1", 1: "bid:1"})
    state.apply({1: "play:B9"})
    assert bidder.act(state.view(0), state.legal(0)) == "play:B14"


def test_tigress_declared_to_suit_the_bid() -> None:
    state = GAME.new(2, 0)
    state.rig_deal([["TIG", "G3"], ["G9", "G2"]], 2)
    state.apply({0: "bid:0", 1: "bid:1"})
    state.apply({1: "play:G9"})
    assert bidder.act(state.view(0), state.legal(0)) in ("play:TIG:escape", "play:G3")
    state = GAME.new(2, 0)
    state.rig_deal([["TIG", "G3"], ["G9", "G2"]], 2)
    state.apply({0: "bid:2", 1: "bid:0"})
    state.apply({1: "play:G9"})
    assert bidder.act(state.view(0), state.legal(0)) == "play:TIG:pirate"
