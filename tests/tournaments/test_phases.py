"""Phases (``tournaments.run.phases``): blocks of deals, each played in as many phases as a
deal has rotations; every game once, no deal twice in a phase, an entrant's seat not the same
through a phase, and a resumed run regroups what is left the same way."""

from __future__ import annotations

import random
from collections import Counter

from tournaments.plans.schedule import TournamentSpec, plan, tables_per_repetition
from tournaments.run.phases import (
    FIRST_DEALS,
    MIN_DEALS,
    block_starts,
    deals_per_block,
    phases,
    shuffled,
)

KEY = bytes(range(32))
SPEC = TournamentSpec(game="skull", bots=("a", "b", "c", "d", "e"), table_size=3, repetitions=4)


def pending(spec: TournamentSpec = SPEC) -> list:
    return [(1000 + g.index, g) for g in plan(spec, key=KEY)]


def deal(game) -> int:
    return game.repetition * tables_per_repetition(SPEC) + game.table


def test_every_game_once_and_each_deal_once_in_a_phase() -> None:
    games = pending()  # 10 tables x 4 repetitions = 40 deals, 120 games
    result = phases(games, tables=10, per_block=16, rotations=3)
    assert sorted(g for phase in result for g in phase.games) == sorted(games)
    for phase in result:
        assert max(Counter(deal(game) for _, game in phase.games).values()) == 1
        assert [g.index for _, g in phase.games] == sorted(g.index for _, g in phase.games)
        assert all((g.rotation - deal(g)) % 3 == phase.step for _, g in phase.games)
    assert [(p.block, p.step) for p in result] == [(b, r) for b in range(3) for r in range(3)]
    assert [p.index for p in result] == list(range(9))
    assert [p.last_of_block for p in result] == [False, False, True] * 3
    # a block's deals are all its own: a deal's rotations never straddle two blocks
    block_of = {deal(g): p.block for p in result for _, g in p.games}
    assert all(block_of[deal(g)] == p.block for p in result for _, g in p.games)
    assert Counter(block_of.values()) == {0: 16, 1: 16, 2: 8}


def test_a_resumed_run_resumes_in_its_earliest_incomplete_phase() -> None:
    games = pending()
    first = phases(games, tables=10, per_block=16, rotations=3)
    played = {g for phase in first[:4] for g, _ in phase.games} | {first[4].games[0][0]}
    left = [item for item in games if item[0] not in played]
    again = phases(left, tables=10, per_block=16, rotations=3)
    assert (again[0].block, again[0].step) == (first[4].block, first[4].step)
    assert again[0].games == first[4].games[1:]
    assert [(p.block, p.step) for p in again] == [(p.block, p.step) for p in first[4:]]


def test_an_entrants_seat_is_not_the_same_through_a_phase() -> None:
    """One table per repetition: each entrant's seat in rotation r is the same at every table,
    so phases of one rotation each would tell a process which phase it plays in."""
    spec = TournamentSpec(game="skull", bots=("a", "b", "c"), table_size=3, repetitions=9)
    games = [(g.index, g) for g in plan(spec, key=KEY)]
    for phase in phases(games, tables=1, per_block=9, rotations=3):
        seats = Counter(game.seating.index("a") for _, game in phase.games)
        assert seats == {0: 3, 1: 3, 2: 3}, "every seat, as often"


def test_a_phase_is_played_in_an_order_of_its_own() -> None:
    phase = phases(pending(), tables=10, per_block=16, rotations=3)[0]
    orders = {shuffled(phase, random.Random(seed)).games for seed in range(5)}
    assert len(orders) == 5 and all(sorted(order) == sorted(phase.games) for order in orders)


def test_blocks_hold_about_eight_waves_of_the_games_in_flight_evenly() -> None:
    assert deals_per_block(135, 64) == 135  # one block
    assert deals_per_block(1200, 64) == 600  # two even blocks rather than 512 + 512 + 176
    assert deals_per_block(1024, 1) == 256 == MIN_DEALS
    assert deals_per_block(1000, 1) == 250  # 4 even blocks
    assert deals_per_block(3, 64) == 3
    assert phases([], tables=10, per_block=4, rotations=3) == []


def test_a_run_that_may_stop_early_starts_with_small_blocks() -> None:
    assert block_starts(100, 40) == [0, 40, 80]
    assert FIRST_DEALS == 8
    assert block_starts(100, 40, growing=True) == [0, 8, 24, 56, 96]  # 8, 16, 32, 40, 40
    match = TournamentSpec(game="skull", bots=("a", "b", "c"), table_size=3, repetitions=30)
    games = [(g.index, g) for g in plan(match, key=KEY)]
    grown = phases(games, tables=1, per_block=64, rotations=3, deals=30, growing=True)
    sizes = [len(p.games) for p in grown if p.step == 0]
    assert sizes == [FIRST_DEALS, 2 * FIRST_DEALS, 30 - 3 * FIRST_DEALS]
