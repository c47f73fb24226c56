"""Independent deals (``--deals independent``): every game its own deal, seats still balanced.

The plan (a pure function of spec and key), phases (one a batch: no rotation to keep apart), the
store (the tournament remembers its deal mode; older databases are duplicate), real runs (killed
with SIGKILL and resumed: nothing lost or doubled, the same games as an uninterrupted run; a
finished game's replay is shown at once) and the command line (a match refuses it clearly).
"""

from __future__ import annotations

import json
import sqlite3
import warnings
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from arena.cli import main
from arena.keys.seeds import deal_seed
from tests.tournaments import cli, create
from tests.tournaments.test_runner import (
    copy_database,
    create_skull,
    kill_minus_nine_then_resume,
    results,
)
from tests.tournaments.test_schedule import KEY, OTHER_KEY, spec
from tests.web.conftest import first_pending_again
from tournaments.errors import PlanError
from tournaments.plans.schedule import (
    MATCH_DEALS,
    DealMode,
    TournamentKind,
    TournamentSpec,
    check_spec,
    plan,
    plan_size,
)
from tournaments.run.phases import phases
from tournaments.store.facts import Store
from tournaments.store.migrations import migrate
from tournaments.store.sqlite import Database
from tournaments.store.withheld import deal_in_play

with warnings.catch_warnings():  # newer Starlette prefers httpx2 for its test client
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from arena.web.app import create_app  # noqa: E402

INDEPENDENT = DealMode.INDEPENDENT
#: The deal of rotation 1 of table 0, repetition 0, seed 7, under the tests' KEY (pinned: a
#: change of the derivation would change every stored independent tournament's bot seeds).
PINNED_ROTATION_DEAL = 3595816357380236597


def independent(n: int = 4, k: int = 3, rounds: int = 1, seed: int = 7, **kw) -> TournamentSpec:
    return spec(n, k, rounds, seed, deals=INDEPENDENT, **kw)


# -- the plan ----------------------------------------------------------------------------------


@given(
    n=st.integers(2, 7),
    k=st.integers(2, 5),
    rounds=st.integers(1, 3),
    seed=st.integers(-(2**70), 2**70),
    gauntlet=st.booleans(),
)
def test_every_game_its_own_deal_every_entrant_every_seat_equally(
    n: int, k: int, rounds: int, seed: int, gauntlet: bool
) -> None:
    if k > n:
        return
    extra = {"kind": TournamentKind.GAUNTLET, "gauntlet": "bot0"} if gauntlet else {}
    games = plan(independent(n, k, rounds, seed, **extra), key=KEY)
    duplicate = plan(spec(n, k, rounds, seed, **extra), key=KEY)
    assert len(games) == plan_size(independent(n, k, rounds, seed, **extra))
    # the same tables, rotations and seats as duplicate deals: only the deals differ
    assert [(g.index, g.repetition, g.table, g.rotation, g.seating) for g in games] == [
        (g.index, g.repetition, g.table, g.rotation, g.seating) for g in duplicate
    ]
    seeds = [g.deal_seed for g in games]
    assert len(set(seeds)) == len(seeds), "two games share a deal"
    assert not set(seeds) & {g.deal_seed for g in duplicate}
    assert all(0 <= s < 2**63 for s in seeds)
    # bot seeds follow the game's own deal: no two games give a seat the same seed
    bot_seeds = [g.bot_seeds() for g in games]
    assert len(set(bot_seeds)) == len(bot_seeds)
    # each entrant in each seat position equally often over the plan
    seats: dict[str, Counter[int]] = {}
    for game in games:
        for position, entrant in enumerate(game.seating):
            seats.setdefault(entrant, Counter())[position] += 1
    for entrant, counts in seats.items():
        assert set(counts) == set(range(k)), entrant
        assert len(set(counts.values())) == 1, (entrant, counts)


def test_the_plan_is_bit_exact_from_its_spec_and_key() -> None:
    first, again = plan(independent(5, 3, 2), key=KEY), plan(independent(5, 3, 2), key=KEY)
    assert first == again
    assert [g.bot_seeds() for g in first] == [g.bot_seeds() for g in again]
    other = plan(independent(5, 3, 2), key=OTHER_KEY)
    assert all(a.deal_seed != b.deal_seed for a, b in zip(first, other))
    assert first[0].deal_seed == deal_seed(KEY, 7, 0, 0, rotation=0) != deal_seed(KEY, 7, 0, 0)
    assert first[1].deal_seed == PINNED_ROTATION_DEAL
    assert independent().to_dict()["deals"] == "independent"
    assert spec().deals is DealMode.DUPLICATE


def test_a_match_refuses_independent_deals() -> None:
    match = TournamentSpec(
        game="toy",
        bots=("a", "b", "c"),
        table_size=3,
        kind=TournamentKind.MATCH,
        deals="independent",
    )
    with pytest.raises(PlanError) as refused:
        check_spec(match)
    assert str(refused.value) == MATCH_DEALS and "gauntlet" in MATCH_DEALS
    with pytest.raises(ValueError):
        TournamentSpec(game="toy", bots=("a", "b"), table_size=2, deals="shuffled")


# -- phases ------------------------------------------------------------------------------------


def test_phases_are_whole_blocks_with_independent_deals() -> None:
    games = list(enumerate(plan(independent(6, 3, 2), key=KEY)))  # 40 tables of 3
    together = phases(games, tables=20, per_block=16, rotations=3, independent=True)
    apart = phases(games, tables=20, per_block=16, rotations=3)
    assert len(apart) == 3 * len(together) == 9
    assert all(phase.step is None for phase in together)
    assert [p.block for p in together] == [0, 1, 2] and together[-1].last_of_block
    assert sorted(g for p in together for g in p.games) == games  # each game once
    for phase in together:  # a block's tables whole: every rotation of each
        rotations = Counter((g.repetition, g.table) for _, g in phase.games)
        assert set(rotations.values()) == {3}
    # resumed part-way, the same blocks hold what is left
    left = games[16 * 3 + 1 :]  # the first block played, one game of the second
    again = phases(left, tables=20, per_block=16, rotations=3, deals=40, independent=True)
    assert [p.block for p in again] == [1, 2]


# -- the store ---------------------------------------------------------------------------------


def test_a_tournament_remembers_its_deals_and_older_ones_are_duplicate(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    tid, total = create(db, "random,first,random", "--rounds", "2", "--deals", "independent")
    with Store.open(db) as store:
        info = store.tournament(tid)
        assert info.spec.deals is INDEPENDENT and info.to_dict()["deals"] == "independent"
        pending = store.pending_games(tid)
        assert len({g.deal_seed for _, g in pending}) == total == 6
        # a plan made with one mode is not stored under the other
        duplicate_plan = plan(spec(3, 3), key=KEY)
        with pytest.raises(PlanError, match="independent deals"):
            store.create_tournament(
                independent(3, 3),
                duplicate_plan,
                {f"bot{i}": ("random", "x") for i in range(3)},
                key=KEY,
            )
    text = cli("tournament", "show", str(tid), "--db", str(db))
    assert "independent deals" in text
    page = TestClient(create_app(db)).get(f"/tournaments/{tid}").text
    assert '<span id="deals">independent deals</span>' in page

    old = tmp_path / "old.db"  # a database of the schema before deal modes
    conn = sqlite3.connect(old)
    migrate(Database(conn), path=str(old), target=13)
    conn.execute(
        "INSERT INTO tournaments (game, options, table_size, rounds, seed, move_ms, "
        "created_at, status) VALUES ('skull', '{}', 3, 1, 1, 1000, 'now', 'planned')"
    )
    conn.commit()
    conn.close()
    with Store.open(old) as store:
        assert store.tournament(1).spec.deals is DealMode.DUPLICATE


def test_a_match_with_independent_deals_is_a_clear_error_and_writes_nothing(
    tmp_path: Path,
) -> None:
    db = tmp_path / "arena.db"
    result = CliRunner().invoke(
        main,
        ["match", "random", "first", "--game", "skull", "--deals", "independent", "--db", str(db)],
    )
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert "a match plays duplicate deals only" in result.output
    with Store.open(db) as store:
        assert store.list_tournaments() == []
    bad = CliRunner().invoke(
        main, ["tournament", "create", "--game", "skull", "--bots", "random,first,random",
               "--deals", "shuffled", "--db", str(db)],
    )  # fmt: skip
    assert bad.exit_code == 2 and "'shuffled' is not one of" in bad.output


# -- real runs ---------------------------------------------------------------------------------


def distinct_phases(db: Path, tid: int) -> int:
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "SELECT COUNT(DISTINCT phase) FROM processes WHERE tournament_id = ?", (tid,)
        ).fetchone()[0]


def test_kill_minus_nine_then_resume_loses_and_doubles_nothing(tmp_path: Path) -> None:
    """A real run (``--jobs 2``) killed mid-run with SIGKILL, then resumed: every planned game
    recorded once, on its own planned deal, and the same games as an uninterrupted run of the
    same plan (same key)."""
    reference, killed = tmp_path / "reference.db", tmp_path / "killed.db"
    tid, total = create_skull(reference, 3, "--deals", "independent"), 3 * 4 * 3
    copy_database(reference, killed)
    with Store.open(killed) as store:
        planned = {gid: g.deal_seed for gid, g in store.pending_games(tid)}
    assert len(set(planned.values())) == total
    cli("tournament", "run", str(tid), "--quiet", "--db", str(reference))
    kill_minus_nine_then_resume(killed, tid, total)
    assert results(killed, tid) == results(reference, tid)
    with sqlite3.connect(killed) as conn:
        stored = dict(
            conn.execute("SELECT id, deal_seed FROM games WHERE tournament_id = ?", (tid,))
        )
        seats = conn.execute(
            "SELECT COUNT(*), COUNT(DISTINCT game_id || '.' || seat) FROM seats "
            "WHERE tournament_id = ?",
            (tid,),
        ).fetchone()
    assert stored == planned and seats == (total * 3, total * 3)
    # one phase a batch (the uninterrupted run: one batch), not one a rotation
    assert distinct_phases(reference, tid) == 1


def test_a_finished_game_is_shown_at_once(tmp_path: Path) -> None:
    """Under independent deals a game's deal is complete when it ends: its replay is shown
    while the other rotations of its table are still to be played (under duplicate deals
    they are withheld: ``tests/web/test_api.py``)."""
    db = tmp_path / "arena.db"
    tid, _ = create(db, "random,first,random", "--deals", "independent")
    cli("tournament", "run", str(tid), "--quiet", "--db", str(db))
    others = first_pending_again(db, tid)  # rotation 0, as if a run had stopped before it
    with Store.open(db) as store:
        assert [deal_in_play(store, gid) for gid in others] == [False, False]
    client = TestClient(create_app(db))
    for gid in others:
        assert client.get(f"/games/{gid}").status_code == 200
        frames = client.get(f"/api/games/{gid}/frames/referee")
        assert frames.status_code == 200 and "still being played" not in frames.text
    listed = client.get(f"/api/tournaments/{tid}/games?status=done").json()["games"]
    assert [g["withheld"] for g in listed] == [None, None] and all(g["replay"] for g in listed)
    assert (
        json.loads(cli("tournament", "show", str(tid), "--json", "--db", str(db)))["deals"]
        == "independent"
    )
