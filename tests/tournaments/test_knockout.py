"""Knockouts (``tournaments.plans.knockout``): fields that end at one full table, the best of
each table going on (points, then wins, then seed), byes to the best seeds, serpentine tables,
the winner first in the final order; knockouts that cannot end are refused with fields that
work."""

from __future__ import annotations

import random

import pytest

from tournaments.errors import PlanError
from tournaments.plans.knockout import bracket, field_sizes, final_order, pair_round
from tournaments.plans.rounds import PlayedRound, RoundGame, RoundPlan
from tournaments.plans.schedule import TournamentSpec, check_spec, plan, plan_size

KEY = bytes(range(32))


def names(n: int) -> list[str]:
    return [f"e{i:02d}" for i in range(n)]


def play(plan: RoundPlan, strength: dict[str, float]) -> PlayedRound:
    """Every rotation of every table, the stronger always placed better."""
    games = []
    for number, table in enumerate(plan.tables):
        for r in range(len(table)):
            seating = table[r:] + table[:r]
            ranked = sorted(seating, key=lambda name: -strength[name])
            games.append(RoundGame(number, seating, tuple(ranked.index(n) + 1 for n in seating)))
    return PlayedRound(plan=plan, games=tuple(games), complete=True)


def knockout(n: int, k: int, advance: int, seed: int = 0) -> tuple[list[str], list[PlayedRound]]:
    rng = random.Random(seed)
    entrants = names(n)
    draw = entrants[:]
    rng.shuffle(draw)
    strength = {name: rng.random() for name in entrants}
    done: list[PlayedRound] = []
    while (nxt := pair_round(entrants, k, advance, draw, done)) is not None:
        done.append(play(nxt, strength))
    return draw, done


@pytest.mark.parametrize(
    ("n", "k", "advance", "sizes"),
    [
        (27, 3, 1, [27, 9, 3]),
        (32, 4, 2, [32, 16, 8, 4]),
        (11, 3, 1, [11, 5, 3]),
        (64, 8, 4, [64, 32, 16, 8]),
    ],
)
def test_fields_end_at_one_full_table(n: int, k: int, advance: int, sizes: list[int]) -> None:
    assert field_sizes(n, k, advance) == sizes
    draw, done = knockout(n, k, advance)
    assert [sum(map(len, r.plan.tables)) + len(r.plan.byes) for r in done] == sizes
    assert len(done[-1].plan.tables) == 1


def test_the_strongest_wins_when_the_stronger_always_places_better() -> None:
    rng = random.Random(0)
    entrants = names(27)
    strength = {name: rng.random() for name in entrants}
    draw = entrants[:]
    done: list[PlayedRound] = []
    while (nxt := pair_round(entrants, 3, 1, draw, done)) is not None:
        done.append(play(nxt, strength))
    order = final_order(entrants, 3, 1, draw, done)
    best = sorted(entrants, key=lambda name: -strength[name])
    assert order[0] == best[0]
    assert sorted(order) == sorted(entrants)
    assert set(order[:3]) == set(done[-1].plan.tables[0])


def test_the_best_of_each_table_go_on_by_points_then_wins_then_seed() -> None:
    entrants = ["a", "b", "c", "d", "e", "f", "g", "h"]
    plan = RoundPlan(number=0, tables=(("a", "b", "c", "d"), ("e", "f", "g", "h")))
    games = (
        RoundGame(0, ("a", "b", "c", "d"), (1, 2, 3, 4)),
        RoundGame(0, ("b", "c", "d", "a"), (1, 2, 3, 4)),
        RoundGame(0, ("c", "d", "a", "b"), (4, 1, 2, 3)),
        RoundGame(0, ("d", "a", "b", "c"), (4, 2, 1, 3)),
        # the other table ties every game: its points and wins are equal, seeds decide
        *(RoundGame(1, ("e", "f", "g", "h")[r:] + ("e", "f", "g", "h")[:r], (1,) * 4)
          for r in range(4)),
    )  # fmt: skip
    draw = ["h", "g", "f", "e", "d", "c", "b", "a"]
    # a: 3+0+2+2 = 7 points, b 2+3+1+3 = 9, c 1+2+0+1 = 4, d 0+1+3+0 = 4 (c won no game, d one)
    first = bracket(entrants, 4, 2, draw, [PlayedRound(plan=plan, games=games, complete=True)])[0]
    scores = first.tables[0].scores
    assert [s.entrant for s in scores] == ["b", "a", "d", "c"]
    assert [s.points for s in scores] == [9, 7, 4, 4]
    assert [d["on"] for d in first.tables[0].to_dict()["scores"]] == [True, True, False, False]
    assert [s.entrant for s in first.tables[1].scores] == ["h", "g", "f", "e"]
    final = pair_round(entrants, 4, 2, draw, [PlayedRound(plan=plan, games=games, complete=True)])
    assert final is not None and sorted(final.tables[0]) == ["a", "b", "g", "h"]


def test_byes_go_to_the_best_seeds_and_tables_snake() -> None:
    entrants = names(11)
    draw = entrants[:]
    first = pair_round(entrants, 3, 1, draw, [])
    assert first.byes == tuple(draw[:2])
    seated = draw[2:]
    assert first.tables == (
        (seated[0], seated[5], seated[6]),
        (seated[1], seated[4], seated[7]),
        (seated[2], seated[3], seated[8]),
    )


def test_the_plan_lists_the_first_round_and_counts_them_all() -> None:
    spec = check_spec(
        TournamentSpec(
            game="skull", bots=tuple(names(27)), table_size=3, kind="knockout", advance=1
        )
    )
    assert spec.rounds == 3
    games = plan(spec, key=KEY)
    assert len(games) == 9 * 3 and plan_size(spec) == (9 + 3 + 1) * 3


@pytest.mark.parametrize(
    ("n", "k", "advance", "words"),
    [
        (30, 3, 1, "cannot end at one table of 3 .*fields 30 -> 10 -> 4 -> 2.*27, 29, 31"),
        (3, 3, 1, "needs more than 3 entrants"),
        (9, 3, 3, "sends on 1-2 of each table"),
        (9, 3, 0, "sends on 1-2 of each table"),
        (9, 3, None, "needs its number going on from each table"),
    ],
)
def test_a_knockout_that_cannot_advance_is_refused(
    n: int, k: int, advance: int | None, words: str
) -> None:
    spec = TournamentSpec(
        game="skull", bots=tuple(names(n)), table_size=k, kind="knockout", advance=advance
    )
    with pytest.raises(PlanError, match=words):
        check_spec(spec)


def test_a_knockout_of_other_rounds_is_refused() -> None:
    spec = TournamentSpec(
        game="skull", bots=tuple(names(27)), table_size=3, kind="knockout", advance=1, rounds=5
    )
    with pytest.raises(PlanError, match="takes 3 rounds, not 5"):
        check_spec(spec)
