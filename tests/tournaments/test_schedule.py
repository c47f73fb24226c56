"""Plans: every k-subset meets, every rotation on the same deal, seeds keyed and stable."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.errors import ArenaError, OptionError
from arena.games.base import Game, OptionSpec
from arena.keys.seeds import bot_seed, deal_seed
from tournaments.errors import PlanError
from tournaments.plans.schedule import (
    PlannedGame,
    TournamentSpec,
    check_spec,
    entrant_names,
    plan_size,
)
from tournaments.plans.schedule import (
    plan as keyed_plan,
)

#: A fixed test key (a real tournament's key is random and secret).
KEY = bytes(range(32))
OTHER_KEY = bytes(range(1, 33))
#: HMAC-SHA256 seeds under KEY: deal 0 of seed 7, and its seat 0's bot seed.
PINNED_DEAL = 872993844254354625
PINNED_BOT = 7862602727993812545


def plan(spec: TournamentSpec, game: Game | None = None, key: bytes = KEY) -> list[PlannedGame]:
    return keyed_plan(spec, game, key=key)


class ThreeToFive(Game):
    """A stand-in game: only its metadata and options matter to plans."""

    name = "toy"
    title = "Toy"
    min_players = 3
    max_players = 5
    options = {
        "variant": OptionSpec("basic", "rules variant", choices=("basic", "pro")),
        "rounds": OptionSpec(3, "rounds", kind=int, minimum=1),
    }

    def _new(self, players: int, seed: int, options: dict[str, Any]) -> Any:
        raise NotImplementedError

    def max_steps(self, players: int, options: Any) -> int:
        return 1


def spec(n: int = 4, k: int = 3, rounds: int = 1, seed: int = 7, **kw: Any) -> TournamentSpec:
    return TournamentSpec(
        game="toy",
        bots=tuple(f"bot{i}" for i in range(n)),
        table_size=k,
        repetitions=rounds,
        seed=seed,
        **kw,
    )


def test_small_plan_by_hand() -> None:
    games = plan(TournamentSpec(game="toy", bots=("a", "b", "c"), table_size=2, seed=1))
    assert [g.seating for g in games] == [
        ("a", "b"),
        ("b", "a"),
        ("a", "c"),
        ("c", "a"),
        ("b", "c"),
        ("c", "b"),
    ]
    assert [g.index for g in games] == list(range(6))
    assert [(g.table, g.rotation) for g in games] == [
        (0, 0),
        (0, 1),
        (1, 0),
        (1, 1),
        (2, 0),
        (2, 1),
    ]
    assert games[0].deal_seed == games[1].deal_seed != games[2].deal_seed


def test_seeds_are_pinned() -> None:
    """Changing the derivation would silently change every stored tournament's bot seeds."""
    assert deal_seed(KEY, 7, 0, 0) == PINNED_DEAL
    assert bot_seed(KEY, PINNED_DEAL, 0) == PINNED_BOT
    assert bot_seed(KEY, 1, 0) != bot_seed(KEY, 1, 1)
    assert bot_seed(KEY, 1, 0) != bot_seed(KEY, 2, 0)
    games = plan(spec(seed=7))
    assert games[0].deal_seed == PINNED_DEAL and games[0].bot_seeds()[0] == PINNED_BOT


def test_seeds_depend_on_the_key() -> None:
    """The same key gives the same seeds; another key, other deals and other bot seeds."""
    assert plan(spec()) == plan(spec())
    mine, other = plan(spec()), plan(spec(), key=OTHER_KEY)
    assert [g.seating for g in mine] == [g.seating for g in other]
    assert all(a.deal_seed != b.deal_seed for a, b in zip(mine, other))
    assert all(not set(a.bot_seeds()) & set(b.bot_seeds()) for a, b in zip(mine, other))
    assert bot_seed(KEY, 5, 0) != bot_seed(OTHER_KEY, 5, 0)
    with pytest.raises(ValueError):
        deal_seed(b"short", 7, 0, 0)


def test_a_game_without_bot_seeds_refuses_to_invent_them() -> None:
    bare = PlannedGame(index=3, repetition=0, table=0, rotation=0, deal_seed=1, seating=("a", "b"))
    with pytest.raises(PlanError, match="no bot seeds"):
        bare.bot_seeds()


@given(
    n=st.integers(2, 7),
    k=st.integers(2, 5),
    rounds=st.integers(1, 3),
    seed=st.integers(-(2**70), 2**70),
)
def test_plan_properties(n: int, k: int, rounds: int, seed: int) -> None:
    if k > n:
        with pytest.raises(PlanError):
            plan(spec(n, k, rounds, seed))
        return
    s = spec(n, k, rounds, seed)
    games = plan(s)
    assert len(games) == plan_size(s) == rounds * math.comb(n, k) * k
    assert [g.index for g in games] == list(range(len(games)))
    tables: dict[tuple[int, int], list[PlannedGame]] = {}
    for g in games:
        tables.setdefault((g.repetition, g.table), []).append(g)
        assert 0 <= g.deal_seed < 2**63
        assert len(set(g.seating)) == k
        assert all(0 <= x < 2**63 for x in g.bot_seeds())
    # Each round, every k-subset of entrants is one table, in combinations order.
    for round_ in range(rounds):
        members = [
            tuple(sorted(tables[(round_, t)][0].seating, key=s.entrants.index))
            for t in range(math.comb(n, k))
        ]
        assert members == list(itertools.combinations(s.entrants, k))
    for group in tables.values():
        # All k cyclic rotations, one deal: each entrant sits in each seat exactly once.
        assert [g.rotation for g in group] == list(range(k))
        assert len({g.deal_seed for g in group}) == 1
        base = group[0].seating
        assert [g.seating for g in group] == [base[r:] + base[:r] for r in range(k)]
        for seat in range(k):
            assert Counter(g.seating[seat] for g in group) == Counter(base)
    # Fresh deals for every table of every round.
    assert len({g[0].deal_seed for g in tables.values()}) == len(tables)
    assert plan(s) == games


def test_seed_changes_deals_only() -> None:
    a, b = plan(spec(seed=1)), plan(spec(seed=2))
    assert [g.seating for g in a] == [g.seating for g in b]
    assert all(x.deal_seed != y.deal_seed for x, y in zip(a, b))


def test_copies_of_a_bot_get_unique_labels() -> None:
    assert entrant_names(["random", "random", "greedy", "random"]) == (
        "random",
        "random#2",
        "greedy",
        "random#3",
    )
    s = TournamentSpec(game="toy", bots=("random", "random", "greedy"), table_size=3)
    assert s.entrant_bots() == {"random": "random", "random#2": "random", "greedy": "greedy"}
    assert plan(s)[0].seating == ("random", "random#2", "greedy")


@pytest.mark.parametrize("bots", [["x", "x", "x#2"], ["", "a"], [" a", "b"]])
def test_bad_entrant_names(bots: list[str]) -> None:
    with pytest.raises(PlanError):
        entrant_names(bots)


@pytest.mark.parametrize(
    "kw, message",
    [
        ({"n": 2, "k": 3}, "cannot fill a table of 3"),
        ({"k": 1}, "at least 2"),
        ({"rounds": 0}, "repetitions must be at least 1"),
        ({"move_ms": 0}, "move time"),
    ],
)
def test_invalid_specs(kw: dict[str, Any], message: str) -> None:
    with pytest.raises(PlanError, match=message):
        plan(spec(**kw))


def test_huge_plan_is_refused_before_listing() -> None:
    with pytest.raises(PlanError, match="games"):
        plan(spec(n=60, k=5, rounds=2))


def test_game_checks_table_size_and_options() -> None:
    game = ThreeToFive()
    with pytest.raises(PlanError, match="3-5 players"):
        plan(spec(n=6, k=6), game)
    with pytest.raises(PlanError, match="3-5 players"):
        plan(spec(n=4, k=2), game)
    with pytest.raises(OptionError, match="no option 'colour'"):
        plan(spec(options={"colour": "red"}), game)
    with pytest.raises(ArenaError):
        plan(spec(options={"rounds": "zero"}), game)
    with pytest.raises(PlanError, match="not 'toy'"):
        check_spec(TournamentSpec(game="other", bots=("a", "b", "c"), table_size=3), game)


def test_checked_spec_has_all_options_typed() -> None:
    checked = check_spec(spec(options={"rounds": "5"}), ThreeToFive())
    assert checked.options == {"variant": "basic", "rounds": 5}
    assert checked.to_dict()["options"] == {"variant": "basic", "rounds": 5}


# -- gauntlets (tests/authoring covers the command) --------------------------------------------


def test_gauntlet_tables_all_hold_the_gauntlet_entrant() -> None:
    from arena.games import get_game
    from tournaments.plans.schedule import TournamentKind, plan_size

    spec = TournamentSpec(
        game="skull",
        bots=("new", "a", "b", "c", "d"),
        table_size=3,
        repetitions=2,
        seed=5,
        kind=TournamentKind.GAUNTLET,
        gauntlet="new",
    )
    games = plan(spec, get_game("skull"), key=b"k" * 32)
    assert len(games) == plan_size(spec) == 2 * 6 * 3  # C(4, 2) tables of 3, 3 rotations
    assert all("new" in game.seating for game in games)
    tables = {frozenset(game.seating) for game in games}
    assert len(tables) == 6 and {"new", "a", "b"} <= set().union(*tables)
    # every rotation of a table plays one deal; new sits in every seat of it
    by_deal = {}
    for game in games:
        by_deal.setdefault(game.deal_seed, []).append(game.seating.index("new"))
    assert all(sorted(seats) == [0, 1, 2] for seats in by_deal.values())


def test_gauntlet_spec_errors() -> None:
    from tournaments.plans.schedule import TournamentKind

    with pytest.raises(PlanError, match="not entered"):
        check_spec(
            TournamentSpec(
                game="skull",
                bots=("a", "b", "c"),
                table_size=3,
                kind=TournamentKind.GAUNTLET,
                gauntlet="zz",
            )
        )
    with pytest.raises(PlanError, match="only a gauntlet"):
        check_spec(TournamentSpec(game="skull", bots=("a", "b", "c"), table_size=3, gauntlet="a"))
