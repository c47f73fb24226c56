"""Every game's states keep their attributes in the interpreter's shared key table.

CPython keeps the attributes of a class's instances in one key table shared by the class, of at
most 30 names; an instance that adds a name past it gets a dict of its own, and every attribute
read of it is several times slower (a Skull King state with three names more plays its random
playouts about 8 % slower by instruction count). So the names every state of a game sets, new,
played, copied, resampled and rebuilt from a view, stay fewer than 30.
"""

from __future__ import annotations

import random

import pytest

from arena.games import get_game, names

#: The names one class's instances may share in CPython's key table (SHARED_KEYS_MAX_SIZE).
SHARED_KEYS = 30


@pytest.mark.parametrize("name", names())
def test_every_state_of_a_game_sets_fewer_names_than_the_shared_key_table_holds(
    name: str,
) -> None:
    game = get_game(name)
    rng = random.Random(7)
    seen: set[str] = set()
    for seed, players in enumerate((game.min_players, game.max_players)):
        state = game.new(players, seed)
        while not state.is_over():
            joint = {}
            for seat in state.to_act():
                view = state.view(seat)
                joint[seat] = rng.choice(state.legal(seat))
                if state.steps % 4:
                    continue
                for copy in (state.clone(), state.resample(seat, rng)):
                    copy.legal(seat)
                    seen |= vars(copy).keys()
                rebuilt = game.from_view(view, seat, state.players, state.options, rng)
                rebuilt.legal(seat)
                seen |= vars(rebuilt).keys()
            state.apply(joint)
            seen |= vars(state).keys()
    assert len(seen) < SHARED_KEYS, sorted(seen)
