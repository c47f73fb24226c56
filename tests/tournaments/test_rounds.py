"""Tournaments played in rounds, in a real database (games recorded as synthetic records): each
round planned once, only when the one before is complete, from the stored results alone; the
tournament done only after its last round; logs withheld between rounds; bad requests refused
with nothing written."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import pytest

from tests.tournaments import game_rows, synthetic_record
from tournaments import service
from tournaments.errors import PlanError
from tournaments.plans import knockout, swiss
from tournaments.plans.rounds import RoundPlan
from tournaments.plans.schedule import DealMode, TournamentKind, round_games
from tournaments.rounds import format_view, plan_next_round, played_rounds
from tournaments.store.facts import Store
from tournaments.store.values import TournamentStatus
from tournaments.store.withheld import log_hold


def create(store: Store, kind: str, bots: int, k: int = 3, **settings: int) -> int:
    return service.create_tournament(
        store,
        game_name="skull",
        bots=(["random", "first"] * bots)[:bots],
        table_size=k,
        repetitions=settings.pop("repetitions", 1),
        seed=7,
        options={},
        move_ms=1000,
        kind=TournamentKind(kind),
        **settings,
    ).tid


def play_pending(store: Store, tid: int, rng: random.Random, limit: int | None = None) -> None:
    strengths = {e.name: i / 3 for i, e in enumerate(store.tournament(tid).entrants)}
    for gid, planned in store.pending_games(tid)[:limit]:
        store.record_game(gid, synthetic_record(planned, rng, strengths=strengths, fault_rate=0))


def test_a_swiss_tournament_plans_each_round_once_from_the_results(tmp_path: Path) -> None:
    rng = random.Random(1)
    with Store.open(tmp_path / "a.db") as store:
        tid = create(store, "swiss", 10, rounds=4, repetitions=2)
        info = store.tournament(tid)
        assert info.games_total == 3 * 3 * 2 and info.spec.rounds == 4
        assert plan_next_round(store, tid) is None, "round 1 is not played yet"
        play_pending(store, tid, rng, limit=5)
        assert plan_next_round(store, tid) is None, "round 1 is not complete yet"
        for number in range(1, 4):
            play_pending(store, tid, rng)
            info = store.tournament(tid)
            assert info.status is TournamentStatus.IN_PROGRESS, "rounds are left to play"
            assert log_hold(store, "random") is not None, "logs wait for the last round"
            planned = plan_next_round(store, tid)
            assert planned is not None and planned.number == number
            assert plan_next_round(store, tid) is None, "planned once"
        play_pending(store, tid, rng)
        assert plan_next_round(store, tid) is None
        info = store.tournament(tid)
        assert info.status is TournamentStatus.DONE and info.games_done == 4 * 18
        assert log_hold(store, "random") is None
        rounds = played_rounds(store, info)
        draw = store.tournament_draw(tid)
        for number in range(4):  # every stored round is what the results before it give
            again = swiss.pair_round(info.spec.entrants, 3, draw, rounds[:number])
            assert again.tables == rounds[number].plan.tables
            assert again.byes == rounds[number].plan.byes
        view = format_view(store, info)
        assert view is not None and len(view.standings) == 4
        assert [len(line.after) for line in view.standings[-1]] == [4] * 10


def second_swiss_round(store: Store, rng: random.Random) -> tuple[int, RoundPlan, list, bytes]:
    """A Swiss tournament of nine at tables of three with its first round played: its id, the
    second round's plan and games (not written), and its key."""
    tid = create(store, "swiss", 9, rounds=3)
    play_pending(store, tid, rng)
    info = store.tournament(tid)
    key = store.tournament_key(tid)
    rounds = played_rounds(store, info)
    plan = swiss.pair_round(info.spec.entrants, 3, store.tournament_draw(tid), rounds)
    return tid, plan, round_games(info.spec, key, plan, info.games_total), key


def test_a_round_written_twice_is_written_once(tmp_path: Path) -> None:
    with Store.open(tmp_path / "a.db") as store:
        tid, plan, games, key = second_swiss_round(store, random.Random(2))
        assert store.add_round(tid, 1, games, key=key)
        assert not store.add_round(tid, 1, games, key=key), "another run planned it meanwhile"
        assert store.tournament(tid).games_total == 18
        with pytest.raises(PlanError, match="follows round 2 once it is complete"):
            later = round_games(store.tournament(tid).spec, key, replace(plan, number=2), 18)
            store.add_round(tid, 2, later, key=key)


def test_a_knockout_goes_on_until_one_table_is_left(tmp_path: Path) -> None:
    rng = random.Random(3)
    with Store.open(tmp_path / "a.db") as store:
        tid = create(store, "knockout", 27, advance=1)
        while True:
            play_pending(store, tid, rng)
            if plan_next_round(store, tid) is None:
                break
        info = store.tournament(tid)
        assert info.status is TournamentStatus.DONE
        assert info.games_done == (9 + 3 + 1) * 3
        view = format_view(store, info)
        assert view is not None
        assert [len(r.tables) for r in view.bracket] == [9, 3, 1]
        assert (
            view.bracket[-1].final and view.order[0] == view.bracket[-1].tables[0].scores[0].entrant
        )
        went_on = {s.entrant for t in view.bracket[0].tables for s in t.scores[:1]}
        assert went_on == {
            name for table in played_rounds(store, info)[1].plan.tables for name in table
        }
        draw = store.tournament_draw(tid)
        assert sorted(
            knockout.final_order(info.spec.entrants, 3, 1, draw, played_rounds(store, info))
        ) == sorted(info.spec.entrants)


def test_a_balanced_tournament_shows_its_balance(tmp_path: Path) -> None:
    with Store.open(tmp_path / "a.db") as store:
        tid = create(store, "balanced", 7, per_entrant=3, repetitions=2)
        info = store.tournament(tid)
        assert info.games_total == 7 * 3 * 2
        view = format_view(store, info)
        assert view is not None and view.balance is not None
        assert view.balance.exact and view.balance.tables == 7
        assert view.to_dict()["balance"]["pairs_max"] == 1


@pytest.mark.parametrize(
    ("kind", "bots", "settings", "words"),
    [
        ("swiss", 5, {"rounds": 3}, "needs at least 6 entrants"),
        ("knockout", 10, {"advance": 1}, "cannot end at one table of 3"),
        ("knockout", 9, {"advance": 3}, "sends on 1-2 of each table"),
        ("balanced", 3, {"per_entrant": 2}, "more than 3 entrants"),
        ("balanced", 9, {"per_entrant": 0}, "at least 1"),
        ("round-robin", 9, {"rounds": 3}, r"rounds \(--rounds\) is not a setting of a round-robin"),
    ],
)
def test_bad_requests_write_nothing(
    tmp_path: Path, kind: str, bots: int, settings: dict[str, int], words: str
) -> None:
    with Store.open(tmp_path / "a.db") as store:
        with pytest.raises(PlanError, match=words):
            create(store, kind, bots, **settings)
        assert store.list_tournaments() == []


@pytest.mark.parametrize(
    ("kind", "settings"), [("swiss", {"rounds": 3}), ("knockout", {"advance": 1})]
)
def test_later_rounds_deal_as_the_tournament_does(
    tmp_path: Path, kind: str, settings: dict[str, int]
) -> None:
    """With independent deals every game of every round has its own deal (a later round too,
    not only the first, planned with the tournament); duplicate deals share one per table."""
    rng = random.Random(4)
    seeds: dict[DealMode, list[tuple[int, int, int]]] = {}
    for deals in DealMode:
        with Store.open(tmp_path / f"{deals}.db") as store:
            tid = service.create_tournament(
                store,
                game_name="skull",
                bots=["random", "first"] * 5
                if kind == "swiss"
                else ["random", "first", "random"] * 3,
                table_size=3,
                repetitions=2,
                seed=7,
                options={},
                move_ms=1000,
                kind=TournamentKind(kind),
                deals=deals,
                **settings,
            ).tid
            while True:
                play_pending(store, tid, rng)
                if plan_next_round(store, tid) is None:
                    break
            assert store.tournament(tid).status is TournamentStatus.DONE
        seeds[deals] = game_rows(tmp_path / f"{deals}.db", tid, "round, table_index, deal_seed")
    independent, duplicate = seeds[DealMode.INDEPENDENT], seeds[DealMode.DUPLICATE]
    assert len(independent) == len(duplicate) > 18, "more than the first round was played"
    assert len({seed for _, _, seed in independent}) == len(independent), "two games, one deal"
    tables = {(rep, table) for rep, table, _ in duplicate}
    assert len({seed for _, _, seed in duplicate}) == len(tables), "one deal a table"


def test_a_cancelled_tournament_plans_no_more_rounds(tmp_path: Path) -> None:
    with Store.open(tmp_path / "a.db") as store:
        tid, _, games, key = second_swiss_round(store, random.Random(5))
        service.cancel_tournament(store, tid)
        assert plan_next_round(store, tid) is None
        with pytest.raises(PlanError, match="cancelled: it plays no more rounds"):
            store.add_round(tid, 1, games, key=key)
        info = store.tournament(tid)
        assert info.status is TournamentStatus.CANCELLED and info.games_total == 9
