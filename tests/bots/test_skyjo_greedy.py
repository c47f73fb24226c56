"""The Skyjo greedy bot: well-formed answers, speed, and a wide margin over uniform random.

Games are played in-process: ``act`` is called directly on views of a ``State``, Python's
global ``random`` is seeded per game (as the SDK does), and a random seat answers
``random.choice(legal)``. Each deal is played with every seat rotation.
"""

from __future__ import annotations

import logging
import math
import random
import time
from typing import Any

import pytest

from arena.games import State, get_game
from bots import skyjo_greedy
from tests.bots.match import mean_decision_seconds

log = logging.getLogger(__name__)
GAME = get_game("skyjo")


def play(
    players: int, seed: int, bot_seat: int, options: dict | None = None
) -> tuple[tuple[int, ...], float, int]:
    """One game of the bot against randoms: places, the bot's thinking time (CPU time of this
    thread, which a loaded machine does not stretch), its decisions."""
    state = GAME.new(players, seed, options)
    random.seed(seed)
    thinking, decisions = 0.0, 0
    while not state.is_over():
        joint = {}
        for seat in state.to_act():
            legal = state.legal(seat)
            if seat == bot_seat:
                view = state.view(seat)
                start = time.thread_time()
                action = skyjo_greedy.act(view, legal)
                thinking += time.thread_time() - start
                decisions += 1
                assert action in legal
                joint[seat] = action
            else:
                joint[seat] = random.choice(legal)
        state.apply(joint)
    return state.outcome().places, thinking, decisions


def pairwise_score(players: int, deals: int, options: dict | None = None) -> tuple[float, float]:
    """The bot's pairwise score against each random seat, and its mean time per decision."""
    score, pairs, thinking, decisions = 0.0, 0, 0.0, 0
    for deal in range(deals):
        for bot_seat in range(players):
            places, spent, made = play(players, 7000 + deal, bot_seat, options)
            thinking += spent
            decisions += made
            for other in range(players):
                if other != bot_seat:
                    pairs += 1
                    mine, theirs = places[bot_seat], places[other]
                    score += 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
    return score / pairs, thinking / decisions


def elo_gap(p: float, games: int) -> float:
    """400*log10(p/(1-p)), with p kept off 0 and 1 by half a game."""
    p = min(max(p, 0.5 / games), 1 - 0.5 / games)
    return 400 * math.log10(p / (1 - p))


def test_module_contract() -> None:
    assert skyjo_greedy.__doc__
    assert skyjo_greedy.GAMES == ("skyjo",)


@pytest.mark.parametrize(
    "players, deals, options",
    [
        (2, 100, None),
        (4, 20, None),
        (8, 3, None),
        (3, 15, {"columns": False}),
        (2, 30, {"next_starter": "ender"}),
        (2, 30, {"doubling": "manual"}),
        (3, 15, {"discard_flip": "optional"}),
    ],
)
def test_beats_random_by_a_wide_margin(players: int, deals: int, options: dict | None) -> None:
    p, per_decision = pairwise_score(players, deals, options)
    gap = elo_gap(p, deals * players * (players - 1))
    log.info(
        "skyjo_greedy vs random, %d players %s: p=%.3f, Elo gap >= %.0f, %.0f us/decision",
        players,
        options or "",
        p,
        gap,
        per_decision * 1e6,
    )
    assert p >= 0.95
    assert gap >= 400
    assert per_decision < 0.001


def test_self_play_answers_legal_actions_quickly() -> None:
    assert mean_decision_seconds("skyjo", skyjo_greedy.act, players=3, seeds=range(2)) < 0.001


def test_fast_placement_table_matches_the_plain_search() -> None:
    state = GAME.new(4, 99)
    random.seed(99)
    checked = 0
    while not state.is_over():
        (seat, *_) = state.to_act()
        if state.view(seat)["phase"] != "reveal":
            sit = skyjo_greedy.read(state.view(seat))
            table = skyjo_greedy.placement_table(sit)
            for value, _ in sit.unseen:
                assert table[value] == pytest.approx(skyjo_greedy.best_placement(sit, value)[0])
            checked += 1
        state.apply({s: skyjo_greedy.act(state.view(s), state.legal(s)) for s in state.to_act()})
    assert checked > 50


def test_skips_the_flip_only_where_the_option_allows_it() -> None:
    chosen = {"mandatory": 0, "optional": 0}
    for rule in chosen:
        state = GAME.new(3, 5, {"discard_flip": rule})
        random.seed(5)
        while not state.is_over():
            moves = {}
            for seat in state.to_act():
                action = skyjo_greedy.act(state.view(seat), state.legal(seat))
                assert action in state.legal(seat)
                chosen[rule] += action == "discard"
                moves[seat] = action
            state.apply(moves)
    assert chosen["mandatory"] == 0 and chosen["optional"] > 0


def decisions(players: int, seed: int, every: int) -> list[tuple[State, int]]:
    """Every ``every``-th decision of a turn (phases ``turn`` and ``drawn``) along a game of the
    bot against itself: copies of the true state and the seat to act."""
    state = GAME.new(players, seed)
    random.seed(seed)
    found = []
    while not state.is_over():
        (seat, *others) = state.to_act()
        if not others and state.view(seat)["phase"] in ("turn", "drawn"):
            if state.steps % every == 0:
                found.append((state.clone(), seat))
        state.apply({s: skyjo_greedy.act(state.view(s), state.legal(s)) for s in state.to_act()})
    return found


def action_class(grid: list[int | None], action: str) -> tuple[Any, ...]:
    """An action's kind and the class of the cell it names (``skyjo_greedy.cell_class``)."""
    name, _, cell = action.partition(":")
    if not cell:
        return (name,)
    row, col = (int(part) for part in cell.split(","))
    return (name, skyjo_greedy.cell_class(grid, row * 4 + col))


def test_skyjo_ranking_keeps_one_action_per_class_of_equivalent_cells() -> None:
    checked = 0
    for state, seat in decisions(2, 14, every=3):
        view, legal = state.view(seat), state.legal(seat)
        grid = [value for row in view["grids"][seat] for value in row]
        ranked = skyjo_greedy.ranked(view, legal)
        assert set(ranked) <= set(legal)
        kinds = {action_class(grid, action) for action in ranked}
        assert len(kinds) == len(ranked)
        assert kinds == {action_class(grid, action) for action in legal}
        checked += 1
    assert checked > 20


def test_ranking_starts_with_the_bots_own_choice() -> None:
    checked = 0
    for state, seat in decisions(3, 15, every=2):
        view, legal = state.view(seat), state.legal(seat)
        assert skyjo_greedy.ranked(view, legal)[0] == skyjo_greedy.act(view, legal)
        checked += 1
    assert checked > 50
