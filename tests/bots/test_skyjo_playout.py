"""The search's Skyjo playout policy (``bots._skyjo_playout``): the state-reading copy of
``skyjo_greedy`` chooses exactly what ``skyjo_greedy.act`` chooses from the seat's view, at
every turn of whole games (every table size, every option that changes a decision), so that
the search's playouts play the heuristic they claim to."""

from __future__ import annotations

import random

import pytest

from arena.games import get_game
from bots import _skyjo_playout, skyjo_greedy

GAME = get_game("skyjo")
#: Option sets that change what greedy weighs: column removal off, the manual doubling rule
#: and the optional flip (whose ``discard`` answer only then exists).
OPTIONS = (
    {},
    {"columns": False},
    {"doubling": "manual", "discard_flip": "optional", "next_starter": "ender"},
)


@pytest.mark.parametrize("options", OPTIONS)
@pytest.mark.parametrize("players", [2, 3, 5, 8])
def test_it_chooses_what_the_greedy_bot_chooses(players: int, options: dict) -> None:
    """Two games per case; a seat plays a random legal action one time in four, so that the
    positions stray from greedy's own play (pairs broken, cards thrown, rounds ended by
    others, reshuffles at large tables). Every turn of every seat is compared."""
    compared = 0
    seen: set[str] = set()
    for seed in range(2):
        state = GAME.new(players, 100 * players + seed, options)
        rng = random.Random(seed)
        random.seed(seed)
        while not state.is_over():
            joint = {}
            for seat in state.to_act():
                legal = state.legal(seat)
                if state.view(seat)["phase"] == "reveal":
                    joint[seat] = rng.choice(legal)
                    continue
                chosen = skyjo_greedy.act(state.view(seat), legal)
                assert _skyjo_playout.decide(state, seat) == chosen, (seed, state.full())
                compared += 1
                seen.add(chosen.partition(":")[0])
                joint[seat] = chosen if rng.random() < 0.75 else rng.choice(legal)
            state.apply(joint)
    kinds = len(seen)
    assert compared > 100 and kinds >= 4  # draw, take-discard, swap, discard-flip at least
