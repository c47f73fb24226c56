"""Matchmaking (``tournaments.ladder.matchmaking.plan_batch``) as property tests: every batch
keeps the fair-play and collusion rules, placement versions are seated first, and tables
are skill-close and among the versions that met least."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import long_run
from tournaments.ladder.matchmaking import Candidate, MatchParams, fair_share, pair, plan_batch
from tournaments.ratings.skill import Skill


@st.composite
def ladders(draw: st.DrawFn, max_size: int = 40) -> tuple[list[Candidate], MatchParams, dict]:
    count = draw(st.integers(0, max_size))
    groups = draw(st.integers(1, max(1, count)))
    candidates = [
        Candidate(
            key=key,
            group=f"p{draw(st.integers(0, groups - 1))}",
            skill=Skill(
                draw(st.floats(0, 50, allow_nan=False)), draw(st.floats(0.5, 8.4, allow_nan=False))
            ),
            games=draw(st.integers(0, 60)),
        )
        for key in range(count)
    ]
    low = draw(st.integers(2, 5))
    high = draw(st.integers(low, 6))
    params = MatchParams(
        sizes=tuple(range(low, high + 1)),
        games=draw(st.integers(1, 300)),
        placement_games=draw(st.integers(0, 20)),
        max_entries=draw(st.integers(2, 60)),
        window=draw(st.integers(1, 8)),
    )
    met = {}
    if count > 1:
        for a, b, n in draw(
            st.lists(
                st.tuples(st.integers(0, count - 1), st.integers(0, count - 1), st.integers(1, 9)),
                max_size=40,
            )
        ):
            if a != b:
                met[pair(a, b)] = n
    return candidates, params, met


def check_rules(candidates: list[Candidate], params: MatchParams, met: dict) -> list[tuple]:
    """Plan a batch and assert the rules every batch keeps; return its tables."""
    tables = plan_batch(candidates, params, met)
    by_key = {c.key: c for c in candidates}
    placement = {c.key for c in candidates if c.games < params.placement_games}
    share = fair_share(params, len(candidates))
    seats: dict[int, int] = {}
    for table in tables:
        assert min(params.sizes) <= len(table) <= max(params.sizes)
        assert len(set(table)) == len(table), "a version sits twice at one table"
        groups = [by_key[k].group for k in table]
        assert len(set(groups)) == len(groups), "two bots of one participant at one table"
        for key in table:
            seats[key] = seats.get(key, 0) + 1
    for key, count in seats.items():
        assert count <= share * (2 if key in placement else 1)
    assert len(seats) <= params.max_entries
    games = sum(len(t) for t in tables)
    assert games < params.games + max(params.sizes)
    assert plan_batch(candidates, params, met) == tables, "same input, same tables"
    return tables


@given(ladders())
def test_every_batch_keeps_the_rules(case: tuple) -> None:
    check_rules(*case)


@pytest.mark.slow
@long_run(100)
@given(ladders(max_size=150))
def test_every_batch_keeps_the_rules_long(case: tuple) -> None:
    check_rules(*case)


@given(
    st.lists(st.floats(0, 50, allow_nan=False), min_size=6, max_size=30),
    st.integers(1, 5),
    st.integers(3, 4),
)
def test_placement_versions_play_first(mus: list[float], fresh: int, size: int) -> None:
    """The versions in placement seed the first tables (most uncertain first), so they all
    play even in a batch with room for only as many tables as there are of them."""
    fresh = min(fresh, len(mus) - size)
    candidates = [
        Candidate(
            key=i, group=f"p{i}", skill=Skill(mu, 8.0 - i * 0.1), games=0 if i < fresh else 50
        )
        for i, mu in enumerate(mus)
    ]
    params = MatchParams(sizes=(size,), games=size * fresh, placement_games=10, max_entries=64)
    tables = check_rules(candidates, params, {})
    assert len(tables) == fresh
    assert all(t[0] < fresh for t in tables), "a version not in placement seeded a table"
    assert {k for t in tables for k in t} >= set(range(fresh))


@given(st.lists(st.floats(0, 50, allow_nan=False), min_size=5, max_size=40, unique=True))
def test_a_table_is_its_seed_and_the_nearest_in_skill(mus: list[float]) -> None:
    """With nobody met and one participant each, the first table holds the seed (the most
    uncertain version) and the versions nearest it in skill."""
    candidates = [
        Candidate(key=i, group=f"p{i}", skill=Skill(mu, 8.0 if i == 0 else 2.0), games=30)
        for i, mu in enumerate(mus)
    ]
    params = MatchParams(sizes=(4,), games=4, placement_games=0, max_entries=64)
    [table] = check_rules(candidates, params, {})
    assert table[0] == 0
    distance = sorted(abs(mu - mus[0]) for mu in mus[1:])
    assert sorted(abs(mus[k] - mus[0]) for k in table[1:]) == distance[:3]


def test_the_least_met_are_taken_first_within_the_skill_window() -> None:
    candidates = [
        Candidate(key=i, group=f"p{i}", skill=Skill(25.0 + i * 0.1, 8.0 - i * 0.01), games=30)
        for i in range(8)
    ]
    # 0 (the seed) met 1 and 2 often: 3 and 4, a little further in skill, are taken instead
    met = {pair(0, 1): 9, pair(0, 2): 9}
    params = MatchParams(sizes=(3,), games=3, placement_games=0, max_entries=64, window=4)
    assert plan_batch(candidates, params, met) == [(0, 3, 4)]
    # outside the window (1) skill wins: the nearest two, however often they met
    narrow = MatchParams(sizes=(3,), games=3, placement_games=0, max_entries=64, window=1)
    assert plan_batch(candidates, narrow, met) == [(0, 1, 2)]


def test_one_participant_never_fills_a_table_alone() -> None:
    """Four versions of one participant and two others: a table of three is the most there
    can be, with one of the four."""
    candidates = [
        Candidate(key=i, group="alice" if i < 4 else f"p{i}", skill=Skill(25.0, 3.0), games=20)
        for i in range(6)
    ]
    tables = check_rules(
        candidates, MatchParams(sizes=(3, 4), games=30, placement_games=0, max_entries=64), {}
    )
    assert tables and all(len(t) == 3 for t in tables)
    assert {k for t in tables for k in t} >= {4, 5}


def test_too_few_to_meet_gives_no_table() -> None:
    candidates = [Candidate(key=i, group="same", skill=Skill(25.0, 8.0), games=0) for i in range(9)]
    assert (
        plan_batch(
            candidates, MatchParams(sizes=(3,), games=99, placement_games=5, max_entries=9), {}
        )
        == []
    )
