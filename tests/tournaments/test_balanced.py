"""Balanced plans (``tournaments.plans.balanced``): every entrant at N tables (N + 1 for the few
the arithmetic leaves), pairs meeting as evenly as the sizes allow, the known small designs
found exactly, the same plan from the same key and seed, and plans that cannot be made refused."""

from __future__ import annotations

import math
import random
from collections import Counter
from itertools import combinations
from unittest.mock import patch

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.errors import PlanError
from tournaments.plans import balanced
from tournaments.plans.balanced import balance_of, balanced_tables
from tournaments.plans.schedule import TournamentSpec, check_spec, plan, plan_size

KEY = bytes(range(32))


def names(n: int) -> list[str]:
    return [f"bot{i:02d}" for i in range(n)]


def seats(tables: list[tuple[str, ...]]) -> Counter[str]:
    return Counter(name for table in tables for name in table)


def pair_counts(entrants: list[str], tables: list[tuple[str, ...]]) -> Counter[tuple[str, str]]:
    met = Counter({pair: 0 for pair in combinations(sorted(entrants), 2)})
    for table in tables:
        met.update(combinations(sorted(table), 2))
    return met


@given(
    n=st.integers(4, 24),
    k=st.integers(2, 6),
    per_entrant=st.integers(1, 12),
    seed=st.integers(0, 2**32),
)
def test_every_entrant_sits_at_n_tables_or_one_more_where_the_seats_do_not_divide(
    n: int, k: int, per_entrant: int, seed: int
) -> None:
    """(With a short search: the seats are the fill's, whatever the search does.)"""
    if n <= k:
        return
    entrants = names(n)
    with patch.object(balanced, "SEARCH_STEPS", 2000), patch.object(balanced, "MIN_STEPS", 500):
        tables = balanced_tables(entrants, k, per_entrant, random.Random(seed))
    assert len(tables) == math.ceil(n * per_entrant / k)
    assert all(len(set(table)) == k for table in tables), "an entrant twice at one table"
    count = seats(tables)
    assert set(count) == set(entrants)
    extra = len(tables) * k - n * per_entrant
    assert sorted(count.values()) == [per_entrant] * (n - extra) + [per_entrant + 1] * extra
    balance = balance_of(entrants, tables)
    met = pair_counts(entrants, tables)
    assert (balance.pairs_min, balance.pairs_max) == (min(met.values()), max(met.values()))
    assert (balance.seats_min, balance.seats_max) == (min(count.values()), max(count.values()))


@pytest.mark.parametrize(
    ("n", "k", "per_entrant", "meet"),
    [
        (7, 3, 3, 1),  # the Fano plane
        (9, 3, 4, 1),  # the affine plane of order 3
        (13, 4, 4, 1),  # the projective plane of order 3
        (15, 3, 7, 1),  # a Steiner triple system
        (16, 4, 5, 1),  # the affine plane of order 4
        (21, 5, 5, 1),  # the projective plane of order 4
        (25, 5, 6, 1),  # the affine plane of order 5
        (12, 3, 11, 2),
        (6, 3, 5, 2),
    ],
)
def test_the_known_small_designs_are_found_exactly(
    n: int, k: int, per_entrant: int, meet: int
) -> None:
    entrants = names(n)
    tables = balanced_tables(entrants, k, per_entrant, random.Random(3))
    balance = balance_of(entrants, tables)
    assert balance.exact and (balance.pairs_min, balance.pairs_max) == (meet, meet)
    assert "a balanced incomplete block design" in balance.text()


def test_a_multiple_of_the_round_robin_is_the_complete_design() -> None:
    entrants = names(6)
    tables = balanced_tables(entrants, 3, 20, random.Random(1))  # C(5, 2) = 10 tables each
    assert Counter(tuple(sorted(t)) for t in tables) == {
        table: 2 for table in combinations(entrants, 3)
    }


def test_fifty_bots_at_tables_of_four_meet_three_or_four_times() -> None:
    """The issue's case: 50 bots, about 200 games each (50 tables of four rotations)."""
    spec = check_spec(
        TournamentSpec(
            game="skull", bots=tuple(names(50)), table_size=4, kind="balanced", per_entrant=50
        )
    )
    games = plan(spec, key=KEY)
    assert len(games) == plan_size(spec) == 2500
    tables = [g.seating for g in games if g.rotation == 0]
    balance = balance_of(spec.entrants, tables)
    assert (balance.seats_min, balance.seats_max) == (50, 50)
    assert (balance.pairs_min, balance.pairs_max) == (3, 4) and balance.best_possible
    per_bot = Counter(name for g in games for name in g.seating)
    assert set(per_bot.values()) == {200}
    seat_of = Counter((name, seat) for g in games for seat, name in enumerate(g.seating))
    assert set(seat_of.values()) == {50}, "every entrant in every seat equally often"


def test_the_plan_comes_from_the_key_and_seed() -> None:
    spec = TournamentSpec(
        game="skull", bots=tuple(names(16)), table_size=4, kind="balanced", per_entrant=5, seed=5
    )
    first, again = plan(spec, key=KEY), plan(spec, key=KEY)
    assert first == again
    other_key = plan(spec, key=bytes(32))
    other_seed = plan(TournamentSpec(**{**spec.to_dict(), "seed": 6}), key=KEY)
    assert [g.seating for g in other_key] != [g.seating for g in first]
    assert [g.seating for g in other_seed] != [g.seating for g in first]


def test_each_table_plays_every_rotation_on_one_deal() -> None:
    spec = TournamentSpec(
        game="skull",
        bots=tuple(names(9)),
        table_size=3,
        kind="balanced",
        per_entrant=4,
        repetitions=2,
    )
    games = plan(spec, key=KEY)
    deals = Counter(g.deal_seed for g in games)
    assert len(deals) == 2 * 12 and set(deals.values()) == {3}
    by_deal: dict[int, list[tuple[str, ...]]] = {}
    for game in games:
        by_deal.setdefault(game.deal_seed, []).append(game.seating)
    for seatings in by_deal.values():
        first = seatings[0]
        assert seatings == [first[r:] + first[:r] for r in range(3)]
    first_rep = [g.seating for g in games if g.repetition == 0]
    assert first_rep == [g.seating for g in games if g.repetition == 1], "the same tables"


@pytest.mark.parametrize(
    ("n", "k", "per_entrant", "words"),
    [
        (4, 4, 3, "more than 4 entrants"),
        (3, 4, 3, "cannot fill a table of 4"),
        (10, 4, 0, "tables per entrant must be at least 1"),
        (10, 4, None, "needs its tables per entrant"),
    ],
)
def test_a_plan_that_cannot_be_made_is_refused(
    n: int, k: int, per_entrant: int | None, words: str
) -> None:
    spec = TournamentSpec(
        game="skull", bots=tuple(names(n)), table_size=k, kind="balanced", per_entrant=per_entrant
    )
    with pytest.raises(PlanError, match=words):
        check_spec(spec)


def test_a_setting_of_another_format_is_refused() -> None:
    spec = TournamentSpec(game="skull", bots=tuple(names(8)), table_size=4, per_entrant=3)
    with pytest.raises(PlanError, match="tables per entrant .* is not a setting of a round-robin"):
        check_spec(spec)
