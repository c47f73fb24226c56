"""Every registered game passes the generic conformance suite."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.games import all_games, get_game, names
from arena.games.base import Game
from tests.conftest import long_run
from tests.games import conformance as c

GAMES = names()


def player_counts(game: Game) -> list[int]:
    return list(range(game.min_players, game.max_players + 1))


def option_sets(game: Game) -> list[dict]:
    """The default options plus each non-default choice of every option, one at a time."""
    sets: list[dict] = [{}]
    for name, spec in game.options.items():
        if spec.kind is bool:
            sets.append({name: not spec.default})
        elif spec.choices:
            sets.extend({name: choice} for choice in spec.choices if choice != spec.default)
    return sets


def option_combinations(game: Game) -> list[dict]:
    """Every combination of every option's values."""
    combos: list[dict] = [{}]
    for name, spec in game.options.items():
        values = (False, True) if spec.kind is bool else spec.choices or (spec.default,)
        combos = [{**combo, name: value} for combo in combos for value in values]
    return combos


def test_registry_has_the_bundled_games() -> None:
    assert set(GAMES) == {"skull", "skull-bank", "skull-king", "skyjo"}
    for game in all_games():
        assert game.min_players >= 1 and game.max_players >= game.min_players
        assert game.title and game.name


@pytest.mark.parametrize("name", GAMES)
def test_playouts_end_within_bound(name: str) -> None:
    game = get_game(name)
    for players in player_counts(game):
        for options in option_sets(game):
            for seed in range(4):
                c.playout(game, players, seed * 1000 + players, options)


@pytest.mark.parametrize("name", GAMES)
def test_replay_is_exact(name: str) -> None:
    game = get_game(name)
    for players in (game.min_players, game.max_players):
        for options in option_sets(game):
            c.check_replay(game, players, 17 + players, options)


@pytest.mark.parametrize("name", GAMES)
def test_every_option_combination_plays_replays_and_hides(name: str) -> None:
    game = get_game(name)
    for options in option_combinations(game):
        for players in (game.min_players, game.max_players):
            c.playout(game, players, 31 + players, options)
        c.check_replay(game, game.min_players, 41, options)
        c.check_information(game, game.min_players, 51, options, every=7)


@pytest.mark.parametrize("name", GAMES)
def test_illegal_actions_raise_and_change_nothing(name: str) -> None:
    game = get_game(name)
    c.check_illegal(game, game.min_players, 5)
    c.check_illegal(game, game.max_players, 6)


@pytest.mark.parametrize("name", GAMES)
def test_views_hide_what_a_seat_cannot_know(name: str) -> None:
    game = get_game(name)
    changed = 0
    for players in sorted({game.min_players, min(game.min_players + 1, game.max_players)}):
        for options in option_sets(game):
            changed += c.check_information(game, players, 100 + players, options, every=3)
    assert changed > 0, "resample never changed any hidden information"


@pytest.mark.parametrize("name", GAMES)
def test_from_view_rebuilds_what_a_seat_cannot_tell_apart(name: str) -> None:
    game = get_game(name)
    differed = 0
    for players in player_counts(game):
        for options in option_sets(game):
            differed += c.check_from_view(game, players, 200 + players, options, every=5)
    assert differed > 0, "from_view never drew the hidden information differently"


@pytest.mark.parametrize("name", GAMES)
def test_from_view_refuses_a_damaged_view_with_a_game_error(name: str) -> None:
    refused = c.check_damaged_views(get_game(name), 4, 17)
    assert refused > 0, "no damaged view was refused"


@pytest.mark.parametrize("name", GAMES)
def test_clone_is_independent(name: str) -> None:
    game = get_game(name)
    c.check_clone(game, game.min_players, 3)


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_property_random_games(name: str) -> None:
    game = get_game(name)

    @long_run(15)
    @given(seed=st.integers(0, 2**63 - 1), players=st.integers(game.min_players, game.max_players))
    def run(seed: int, players: int) -> None:
        c.check_replay(game, players, seed)
        c.check_information(game, players, seed, every=5)

    run()
