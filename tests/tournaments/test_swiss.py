"""Swiss rounds (``tournaments.plans.swiss``): the first round is the draw, later rounds seat
close scores together without rematches while a swap avoids them, nobody sits out twice while
another has not, byes score an average table, ties go to Buchholz then the draw; bad settings
are refused."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.errors import PlanError
from tournaments.plans.rounds import PlayedRound, RoundGame, RoundPlan
from tournaments.plans.schedule import TournamentSpec, check_spec, plan, plan_size
from tournaments.plans.swiss import BYE_SHARE, pair_round, standings

KEY = bytes(range(32))


def names(n: int) -> list[str]:
    return [f"e{i:02d}" for i in range(n)]


def played(plan: RoundPlan, strength: dict[str, float], rng: random.Random) -> PlayedRound:
    """``plan`` played: each table's k rotations, places from strength plus noise."""
    games = []
    for number, table in enumerate(plan.tables):
        for r in range(len(table)):
            seating = table[r:] + table[:r]
            keys = [-(strength[name] + rng.gauss(0, 1)) for name in seating]
            order = sorted(range(len(seating)), key=keys.__getitem__)
            places = [0] * len(seating)
            for place, seat in enumerate(order, 1):
                places[seat] = place
            games.append(RoundGame(number, seating, tuple(places)))
    return PlayedRound(plan=plan, games=tuple(games), complete=True)


def swiss(n: int, k: int, rounds: int, seed: int) -> tuple[list[str], list[str], list[PlayedRound]]:
    rng = random.Random(seed)
    entrants = names(n)
    draw = entrants[:]
    rng.shuffle(draw)
    strength = {name: rng.gauss(0, 1) for name in entrants}
    done: list[PlayedRound] = []
    for _ in range(rounds):
        done.append(played(pair_round(entrants, k, draw, done), strength, rng))
    return entrants, draw, done


def test_the_first_round_seats_the_draw_and_its_last_sit_out() -> None:
    entrants = names(11)
    draw = list(reversed(entrants))
    first = pair_round(entrants, 3, draw, [])
    assert first.tables == (tuple(draw[0:3]), tuple(draw[3:6]), tuple(draw[6:9]))
    assert first.byes == tuple(draw[9:])


@given(
    n=st.integers(6, 26), k=st.integers(3, 5), rounds=st.integers(1, 6), seed=st.integers(0, 999)
)
def test_nobody_sits_out_twice_while_another_has_not(
    n: int, k: int, rounds: int, seed: int
) -> None:
    if n < 2 * k:
        return
    entrants, _, done = swiss(n, k, rounds, seed)
    for r in range(1, len(done) + 1):
        byes = Counter(name for p in done[:r] for name in p.plan.byes)
        counts = [byes[name] for name in entrants]
        assert max(counts) - min(counts) <= 1
    for p in done:
        seated = [name for table in p.plan.tables for name in table]
        assert sorted(seated + list(p.plan.byes)) == entrants, "everyone, once"
        assert all(len(table) == k for table in p.plan.tables)


def rematches(done: Sequence[PlayedRound]) -> int:
    met: Counter[tuple[str, str]] = Counter()
    for p in done:
        for table in p.plan.tables:
            met.update(combinations(sorted(table), 2))
    return sum(count - 1 for count in met.values() if count > 1)


@pytest.mark.parametrize("seed", range(6))
def test_no_two_meet_again_while_others_are_available(seed: int) -> None:
    """30 entrants at tables of three meet 2 new ones a round: 7 rounds need no rematch."""
    _, _, done = swiss(30, 3, 7, seed)
    assert rematches(done) == 0


def test_close_scores_sit_together() -> None:
    entrants, draw, done = swiss(30, 3, 5, 1)
    lines = standings(entrants, draw, done[:4])
    rank = {line.entrant: line.rank for line in lines}
    spread = [max(rank[e] for e in t) - min(rank[e] for e in t) for t in done[4].plan.tables]
    # consecutive places would spread 2, swaps that avoid rematches widen some tables; three
    # places drawn at random from 30 spread 15.5 on average
    assert sum(spread) / len(spread) < 8


def test_standings_score_shares_byes_as_an_average_table_and_break_ties() -> None:
    entrants = ["a", "b", "c", "d", "e", "f", "g"]
    plan = RoundPlan(number=0, tables=(("a", "b", "c"), ("d", "e", "f")), byes=("g",))
    games = (
        RoundGame(0, ("a", "b", "c"), (1, 2, 3)),
        RoundGame(0, ("b", "c", "a"), (2, 3, 1)),
        RoundGame(0, ("c", "a", "b"), (1, 1, 3)),  # c and a tie first
        RoundGame(1, ("d", "e", "f"), (1, 2, 3)),
        RoundGame(1, ("e", "f", "d"), (1, 2, 3)),
        RoundGame(1, ("f", "d", "e"), (1, 2, 3)),
    )
    done = [PlayedRound(plan=plan, games=games, complete=True)]
    lines = standings(entrants, list("gfedcba"), done)
    score = {line.entrant: line.score for line in lines}
    assert score["a"] == pytest.approx(5.5 / 6)  # 2 + 2 + 1.5 points of 6
    assert score["c"] == pytest.approx(1.5 / 6)
    assert score["b"] == pytest.approx(2 / 6)
    assert score["d"] == score["e"] == score["f"] == pytest.approx(0.5)
    assert score["g"] == BYE_SHARE
    # d, e, f and g tie on 0.5: Buchholz (their table mates' mean score) puts d, e, f first
    # (mates' mean 0.5) over g (no table: 0); then the draw (g, f, e, d...) orders d, e, f
    assert [line.entrant for line in lines] == ["a", "f", "e", "d", "g", "b", "c"]
    assert [line.rank for line in lines] == list(range(1, 8))


def test_the_lowest_placed_of_those_who_sat_out_least_sit_out() -> None:
    entrants, draw, done = swiss(10, 3, 1, 4)
    lines = standings(entrants, draw, done)
    second = pair_round(entrants, 3, draw, done)
    sat_out = set(done[0].plan.byes)
    expected = [line.entrant for line in reversed(lines) if line.entrant not in sat_out][:1]
    assert list(second.byes) == expected


def test_a_round_waits_for_the_one_before() -> None:
    entrants, draw, done = swiss(9, 3, 1, 0)
    unfinished = PlayedRound(plan=done[0].plan, games=done[0].games[:2], complete=False)
    with pytest.raises(PlanError, match="once every round before it is complete"):
        pair_round(entrants, 3, draw, [unfinished])


def test_the_plan_lists_the_first_round_and_counts_them_all() -> None:
    spec = check_spec(
        TournamentSpec(
            game="skull", bots=tuple(names(10)), table_size=3, kind="swiss", rounds=4, repetitions=2
        )
    )
    games = plan(spec, key=KEY)
    assert len(games) == 3 * 3 * 2  # three tables, three rotations, two deals each
    assert plan_size(spec) == 4 * len(games)
    assert {g.repetition for g in games} == {0, 1}
    assert len({g.deal_seed for g in games}) == 6


@pytest.mark.parametrize(
    ("n", "rounds", "words"),
    [
        (5, 3, "needs at least 6 entrants"),
        (12, 0, "1-1000 rounds"),
        (12, None, "needs its rounds"),
    ],
)
def test_bad_settings_are_refused(n: int, rounds: int | None, words: str) -> None:
    spec = TournamentSpec(
        game="skull", bots=tuple(names(n)), table_size=3, kind="swiss", rounds=rounds
    )
    with pytest.raises(PlanError, match=words):
        check_spec(spec)
