"""The results store on real SQLite files: plans, records, views, ratings, migrations, errors."""

from __future__ import annotations

import json
import random
import sqlite3
import threading
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import pytest
from sqlite_utils import Database

from arena.referee.record import Fault, FaultKind
from tests.tournaments import synthetic_record
from tournaments.errors import DuplicateBot, NotFound, PlanError, StoreError, TournamentError
from tournaments.plans.schedule import PlannedGame, TournamentSpec
from tournaments.plans.schedule import plan as keyed_plan
from tournaments.ratings import PairCounts, batch_ratings, incremental_elo
from tournaments.store import facts as store_module
from tournaments.store.facts import Store, resolve_db_path
from tournaments.store.migrations import SCHEMA_VERSION, migrate, user_version
from tournaments.store.values import BotKind, GameStatus, RatingMethod, TournamentStatus

SPEC = TournamentSpec(
    game="skull",
    options={"variant": "basic"},
    bots=("alpha", "beta", "gamma", "alpha"),
    table_size=3,
    repetitions=2,
    seed=11,
    move_ms=500,
)
STRENGTH = {"alpha": 1.5, "beta": 0.0, "gamma": -1.0, "alpha#2": 1.5}
#: The tournaments' secret key in these tests (a real one is random).
KEY = bytes(range(32))


def plan(spec: TournamentSpec) -> list[PlannedGame]:
    return keyed_plan(spec, key=KEY)


def new_tournament(store: Store, spec: TournamentSpec = SPEC, key: bytes = KEY) -> int:
    bots = {label: (bot, f"v-{bot}") for label, bot in spec.entrant_bots().items()}
    return store.create_tournament(spec, keyed_plan(spec, key=key), bots, key=key)


def play_all(store: Store, tid: int, *, seed: int = 1, limit: int | None = None) -> dict:
    """Record synthetic results for the pending games; return them by game id."""
    rng = random.Random(seed)
    records = {}
    for game_id, planned in store.pending_games(tid)[:limit]:
        record = synthetic_record(
            planned, rng, options=SPEC.options, strengths=STRENGTH, fault_rate=0.1
        )
        assert store.record_game(game_id, record)
        records[game_id] = (planned, record)
    return records


@pytest.fixture()
def path(tmp_path: Path) -> Path:
    return tmp_path / "arena.db"


@pytest.fixture()
def store(path: Path) -> Store:
    with Store.open(path) as opened:
        yield opened


# -- opening, schema, migrations -------------------------------------------------------------


def test_new_database_is_current_and_in_wal_mode(store: Store, path: Path) -> None:
    assert path.exists()
    assert user_version(store.db.conn) == SCHEMA_VERSION
    assert store.db.journal_mode == "wal"
    assert {
        "bots",
        "tournaments",
        "entrants",
        "games",
        "seats",
        "faults",
        "ratings",
        "rating_history",
    } <= set(store.db.table_names())
    assert set(store.db.view_names()) == {"standings"}


def test_skyjo_tournaments_planned_before_the_new_options_keep_the_rules_they_had(
    path: Path,
) -> None:
    db = Database(sqlite3.connect(path, isolation_level=None))
    migrate(db, path=str(path), target=4)
    db.execute(
        "INSERT INTO tournaments (id, game, options, table_size, rounds, seed, move_ms, "
        "created_at, status) VALUES (1, 'skyjo', '{\"columns\":false,"
        "\"next_starter\":\"winner\"}', 2, 1, 5, 100, 'then', 'done'), "
        "(2, 'skull', '{}', 2, 1, 5, 100, 'then', 'done')"
    )
    db.conn.close()
    with Store.open(path) as store:
        options = json.loads(
            store.db.execute("SELECT options FROM tournaments WHERE id = 1").fetchone()[0]
        )
        assert options == {
            "columns": False,
            "next_starter": "winner",
            "doubling": "manual",
            "discard_flip": "mandatory",
        }
        other = store.db.execute("SELECT options FROM tournaments WHERE id = 2").fetchone()[0]
        assert other == "{}"


def _top_revealing_skull_bank_game(seed: int) -> list[list]:
    """A 3-seat skull-bank game whose showdowns reveal only tops (as the old rules did), as
    stored action rows ``[step, seat, action, by, think_us]``."""
    from arena.games import get_game

    state, rng, rows = get_game("skull-bank").new(3, seed), random.Random(seed), []
    while not state.is_over():
        joint = {}
        for seat in state.to_act():
            legal = state.legal(seat)
            tops = [
                a
                for a in legal
                if a.startswith("reveal:")
                and state.kits[int(a[7])].top_down() == int(a.split(",")[1])
            ]
            joint[seat] = tops[0] if tops else rng.choice(legal)
            rows.append([state.steps, seat, joint[seat], "bot", 1])
        state.apply(joint)
    return rows


def test_skull_bank_games_stored_with_row_reveals_are_rewritten_to_named_bills(path: Path) -> None:
    from arena.referee.replay import replay

    db = Database(sqlite3.connect(path, isolation_level=None))
    migrate(db, path=str(path), target=5)
    played = [_top_revealing_skull_bank_game(seed) for seed in range(6)]
    legacy = [
        [
            row[:2] + [row[2].split(",")[0] if row[2].startswith("reveal:") else row[2]] + row[3:]
            for row in rows
        ]
        for rows in played
    ]
    assert any(row[2].startswith("reveal:") for rows in legacy for row in rows)
    db.execute(
        "INSERT INTO tournaments (id, game, options, table_size, rounds, seed, move_ms, "
        "created_at, status) VALUES (1, 'skull-bank', '{}', 3, 1, 5, 100, 'then', "
        "'done')"
    )
    for seed, rows in enumerate(legacy):
        db.execute(
            "INSERT INTO games (id, tournament_id, plan_index, round, table_index, "
            "rotation, deal_seed, seating, status, actions) VALUES "
            '(?, 1, ?, 0, 0, 0, ?, \'["a","b","c"]\', \'done\', ?)',
            (seed + 1, seed, seed, json.dumps(rows)),
        )
    db.conn.close()
    with Store.open(path) as store:
        for seed, rows in enumerate(played):
            stored = json.loads(
                store.db.execute("SELECT actions FROM games WHERE id = ?", (seed + 1,)).fetchone()[
                    0
                ]
            )
            assert stored == rows
            steps: list[dict] = []
            for step, seat, action, *_ in stored:
                while len(steps) <= step:
                    steps.append({})
                steps[step][seat] = action
            assert replay("skull-bank", 3, seed, {}, steps).is_over()


def test_migrates_a_version_1_database(path: Path) -> None:
    db = Database(sqlite3.connect(path, isolation_level=None))
    migrate(db, path=str(path), target=1)
    assert user_version(db.conn) == 1 and "ratings" not in db.table_names()
    # A version-1 database with a finished game, written by hand.
    db.execute(
        "INSERT INTO tournaments (id, game, options, table_size, rounds, seed, move_ms, "
        "created_at, status) VALUES (1, 'skull', '{}', 2, 1, 5, 100, 'then', 'done')"
    )
    db.execute("INSERT INTO entrants VALUES (1, 'a', 0, 'a', 'v1'), (1, 'b', 1, 'b', 'v1')")
    db.execute(
        "INSERT INTO games (id, tournament_id, plan_index, round, table_index, rotation, "
        "deal_seed, seating, status, actions, outcome, forfeits, wall_ms) VALUES "
        "(1, 1, 0, 0, 0, 0, 9, '[\"a\",\"b\"]', 'done', '[]', "
        '\'{"scores":[2,1],"game_places":[1,2],"places":[1,2]}\', \'[]\', 3.5)'
    )
    db.execute(
        "INSERT INTO seats VALUES (1, 0, 1, 'a', 1, 2, 10, 1, 0, 0), "
        "(1, 1, 1, 'b', 2, 1, 10, 1, 0, 0)"
    )
    db.conn.close()
    with Store.open(path) as store:
        assert user_version(store.db.conn) == SCHEMA_VERSION
        standings = {s.entrant: s for s in store.results.standings(1)}
        assert standings["a"].wins == 1 and standings["b"].wins == 0
        ratings = store.results.rebuild_ratings(1)
        assert ratings.elo.ratings == {"a": 1508.0, "b": 1492.0}
        assert store.game(1).record.places == (1, 2)


def test_newer_schema_is_refused_untouched(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    with pytest.raises(StoreError, match=r"version 99 is newer than this arena knows") as err:
        Store.open(path)
    assert str(path) in str(err.value)
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    conn.close()


def test_foreign_sqlite_database_is_refused(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE recipes (name TEXT)")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="not an arena database"):
        Store.open(path)


def test_file_that_is_not_a_database(path: Path) -> None:
    path.write_bytes(b"this is a text file, not SQLite\n" * 100)
    with pytest.raises(StoreError, match="not an SQLite database") as err:
        Store.open(path)
    assert str(path) in str(err.value) and "\n" not in str(err.value)


def test_corrupt_database(path: Path) -> None:
    with Store.open(path) as store:
        tid = new_tournament(store)
        play_all(store, tid, limit=3)
        store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(path.read_bytes())
    data[100:4096] = b"\xff" * (4096 - 100)  # the schema page, after the file header
    path.write_bytes(bytes(data))
    with pytest.raises(StoreError, match="corrupt") as err:
        with Store.open(path) as store:
            store.results.standings(tid)
    assert str(path) in str(err.value)


def test_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="does not exist"):
        Store.open(tmp_path / "nowhere" / "arena.db")


def test_locked_while_opening(path: Path) -> None:
    """A fresh file held under an exclusive lock (rollback journal): opening must wait, then
    fail with a clear message, not a traceback."""
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(StoreError, match="locked: another process is writing") as err:
            Store.open(path, busy_timeout_ms=50)
        assert str(path) in str(err.value)
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_locked_while_recording(path: Path) -> None:
    with Store.open(path) as store:
        tid = new_tournament(store)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    holder.execute("UPDATE tournaments SET status = status")
    try:
        with Store.open(path, busy_timeout_ms=50) as store:
            game_id, planned = store.pending_games(tid)[0]  # readers are not blocked (WAL)
            record = synthetic_record(planned, random.Random(1))
            with pytest.raises(StoreError, match="locked") as err:
                store.record_game(game_id, record)
            assert "recording a game" in str(err.value)
            holder.execute("ROLLBACK")
            assert store.record_game(game_id, record)
    finally:
        holder.close()


def test_resolve_db_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("ARENA_DB", raising=False)
    assert resolve_db_path(None) == Path("arena.db")
    monkeypatch.setenv("ARENA_DB", str(tmp_path / "env.db"))
    assert resolve_db_path(None) == tmp_path / "env.db"
    assert resolve_db_path("cli.db") == Path("cli.db")


# -- bots -------------------------------------------------------------------------------------


def test_bot_registry(store: Store) -> None:
    info = store.add_bot(
        "mine", "python mine.py", version="abc", path="/bots/mine", games=["skull", "skyjo"]
    )
    assert info == store.get_bot("mine")
    assert info.games == ("skull", "skyjo") and info.played == 0
    assert info.kind is BotKind.REGISTERED
    with pytest.raises(DuplicateBot):
        store.add_bot("mine", "other")
    store.add_bot("random", "python -m bots.random", kind=BotKind.BUNDLED)
    assert [b.name for b in store.list_bots()] == ["mine", "random"]
    replaced = store.add_bot("mine", "python mine2.py", version="def", replace=True)
    assert replaced.added_at == info.added_at and replaced.command == "python mine2.py"
    json.dumps([b.to_dict() for b in store.list_bots()])
    store.remove_bot("mine")
    with pytest.raises(NotFound):
        store.get_bot("mine")
    with pytest.raises(NotFound):
        store.remove_bot("mine")
    with pytest.raises(TournamentError):
        store.add_bot("bad#name", "x")


def test_every_version_of_a_bot_is_kept(store: Store, path: Path) -> None:
    """``bot_versions`` keeps what each version ran, removed bots' too; a database from before
    it starts with each bot's version then, marked as registered before copies (None)."""
    store.add_bot("mine", "python3 bot.py", version="v1", path="/b/mine", digest="d1", files=())
    store.add_bot("mine", "python3 bot.py", version="v2", path="/b/mine", digest="d2", files=(),
                  replace=True)  # fmt: skip
    store.add_bot("cmd", "./cmd", version="c1", files=[("/b/cmd", "ab")])
    store.remove_bot("mine")
    kept = {(b.name, b.version): b for b in store.bot_versions()}
    assert set(kept) == {("mine", "v1"), ("mine", "v2"), ("cmd", "c1")}
    assert kept["mine", "v1"].digest == "d1" and kept["cmd", "c1"].files == (("/b/cmd", "ab"),)
    assert store.get_bot("cmd").files == (("/b/cmd", "ab"),)

    old = path.with_name("old.db")
    db = Database(sqlite3.connect(old, isolation_level=None))
    migrate(db, path=str(old), target=7)
    db.execute(
        "INSERT INTO bots (name, command, path, kind, version, games, played, added_at) "
        "VALUES ('legacy', 'python3 bot.py', '/b/legacy', 'registered', 'l1', '[]', 4, 'then')"
    )
    db.conn.close()
    with Store.open(old) as migrated:
        (legacy,) = migrated.bot_versions()
        assert (legacy.name, legacy.version, legacy.path) == ("legacy", "l1", "/b/legacy")
        assert legacy.digest is None and legacy.files is None
        assert migrated.get_bot("legacy").played == 4


def test_bots_count_games_played(store: Store) -> None:
    store.add_bot("alpha", "python alpha.py")
    tid = new_tournament(store)
    records = play_all(store, tid)
    expected = sum(
        1 for planned, _ in records.values() if {"alpha", "alpha#2"} & set(planned.seating)
    )
    assert store.get_bot("alpha").played == expected


# -- tournaments and games ----------------------------------------------------------------------


def test_plan_is_written_before_play(store: Store) -> None:
    tid = new_tournament(store)
    info = store.tournament(tid)
    assert info.spec == SPEC
    assert info.status is TournamentStatus.PLANNED
    assert (info.games_done, info.games_total) == (0, len(plan(SPEC)))
    assert [e.name for e in info.entrants] == ["alpha", "beta", "gamma", "alpha#2"]
    assert info.entrants[3].bot == "alpha" and info.entrants[3].version == "v-alpha"
    assert [g for _, g in store.pending_games(tid)] == plan(SPEC)
    assert [t.id for t in store.list_tournaments()] == [tid]
    json.dumps(info.to_dict())


def test_bad_entrants_write_nothing(store: Store) -> None:
    with pytest.raises(PlanError):
        store.create_tournament(SPEC, plan(SPEC), {"alpha": ("alpha", "v")}, key=KEY)
    assert store.list_tournaments() == []


def test_record_round_trip_and_resume(store: Store, path: Path) -> None:
    tid = new_tournament(store)
    first = play_all(store, tid, limit=5)
    assert store.tournament(tid).status is TournamentStatus.IN_PROGRESS
    with Store.open(path) as other:  # a later run sees what is left, in plan order
        left = other.pending_games(tid)
        assert [g.index for _, g in left] == list(range(5, len(plan(SPEC))))
        rest = play_all(other, tid, seed=2)
    assert store.tournament(tid).status is TournamentStatus.DONE
    for game_id, (planned, record) in {**first, **rest}.items():
        stored = store.game(game_id)
        assert stored.status is GameStatus.DONE
        assert stored.planned == planned
        assert stored.record == record
        assert stored.bots == tuple(SPEC.entrant_bots()[x] for x in planned.seating)
        json.dumps(stored.to_dict())


def test_pending_game_has_no_record(store: Store) -> None:
    tid = new_tournament(store)
    game_id, planned = store.pending_games(tid)[0]
    stored = store.game(game_id)
    assert stored.record is None and stored.options == {"variant": "basic"}
    assert stored.deal_seed == planned.deal_seed and stored.players == 3


def test_a_game_is_recorded_once(store: Store) -> None:
    tid = new_tournament(store)
    game_id, planned = store.pending_games(tid)[0]
    record = synthetic_record(planned, random.Random(3), options=SPEC.options)
    assert store.record_game(game_id, record)
    other = synthetic_record(planned, random.Random(4))
    assert not store.record_game(game_id, other)
    assert store.game(game_id).record == record
    assert store.db["seats"].count == 3


def test_a_record_that_does_not_fit_is_refused(store: Store) -> None:
    tid = new_tournament(store)
    game_id, planned = store.pending_games(tid)[0]
    wrong = PlannedGame(
        index=0,
        repetition=0,
        table=0,
        rotation=0,
        deal_seed=planned.deal_seed + 1,
        seating=planned.seating,
    )
    with pytest.raises(TournamentError, match="does not fit"):
        store.record_game(game_id, synthetic_record(wrong, random.Random(1)))
    with pytest.raises(NotFound):
        store.record_game(10_000, synthetic_record(planned, random.Random(1)))


def assert_nothing_recorded(store: Store, tid: int, game_id: int) -> None:
    assert store.game(game_id).status is GameStatus.PENDING
    assert store.db["seats"].count == 0 and store.db["faults"].count == 0
    assert store.tournament(tid).status is TournamentStatus.PLANNED


def test_record_game_is_atomic(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    tid = new_tournament(store)
    game_id, planned = store.pending_games(tid)[0]
    record = synthetic_record(planned, random.Random(1), fault_rate=0.5)

    def fail(*args: object) -> None:
        raise RuntimeError("killed mid-write")

    # The game row is updated and its seats inserted before the faults: fail there.
    monkeypatch.setattr(store_module, "_fault_rows", fail)
    with pytest.raises(RuntimeError, match="mid-write"):
        store.record_game(game_id, record)
    assert_nothing_recorded(store, tid, game_id)
    monkeypatch.undo()
    # An SQLite error in the middle (a value it cannot bind) rolls back the same way.
    bad = Fault(seat=0, step=0, kind=FaultKind.CRASH, detail=object())  # type: ignore[arg-type]
    broken = replace(synthetic_record(planned, random.Random(1)), faults=(bad,))
    with pytest.raises(StoreError, match="recording a game"):
        store.record_game(game_id, broken)
    assert_nothing_recorded(store, tid, game_id)
    assert store.record_game(game_id, record)


def test_record_games_is_one_all_or_nothing_transaction(store: Store) -> None:
    tid = new_tournament(store)
    pending = store.pending_games(tid)
    rng = random.Random(1)
    items = [(gid, synthetic_record(p, rng)) for gid, p in pending[:4]]
    bad = (pending[4][0], synthetic_record(pending[0][1], rng))  # another table's deal
    with pytest.raises(TournamentError):
        store.record_games(items + [bad])
    assert store.tournament(tid).games_done == 0
    assert store.record_games(items) == 4
    assert store.record_games(items[:2]) == 0
    assert store.tournament(tid).games_done == 4


def test_one_store_shared_by_threads(store: Store) -> None:
    tid = new_tournament(store)
    pending = store.pending_games(tid)
    errors: list[BaseException] = []

    def work(part: list[tuple[int, PlannedGame]], seed: int) -> None:
        rng = random.Random(seed)
        try:
            for game_id, planned in part:
                store.record_game(game_id, synthetic_record(planned, rng))
        except BaseException as exc:  # noqa: BLE001 - surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(pending[i::3], i)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert store.tournament(tid).games_done == len(pending)


def test_unknown_ids(store: Store) -> None:
    for call in (
        store.tournament,
        store.pending_games,
        store.results.standings,
        store.results.crosstable,
        store.results.rebuild_ratings,
        store.results.ratings,
        store.game,
    ):
        with pytest.raises(NotFound):
            call(42)


# -- derived: standings, head to head, ratings ---------------------------------------------------


def test_standings_view(store: Store) -> None:
    tid = new_tournament(store)
    records = play_all(store, tid)
    expect: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for planned, record in records.values():
        for seat, label in enumerate(planned.seating):
            row = expect[label]
            row["place"].append(record.places[seat])
            row["score"].append(record.scores[seat])
            row["faults"].append(sum(f.seat == seat for f in record.faults))
            row["forfeit"].append(seat in record.forfeits)
    standings = store.results.standings(tid)
    assert {s.entrant for s in standings} == set(SPEC.entrants)
    for s in standings:
        row = expect[s.entrant]
        assert s.games == len(row["place"])
        assert s.wins == row["place"].count(1)
        assert s.mean_place == pytest.approx(sum(row["place"]) / s.games, abs=1e-3)
        assert s.mean_score == pytest.approx(sum(row["score"]) / s.games, abs=1e-3)
        assert s.faults == sum(row["faults"]) and s.forfeits == sum(row["forfeit"])
    means = [s.mean_place for s in standings]
    assert means == sorted(means)


def test_standings_before_any_game(store: Store) -> None:
    tid = new_tournament(store)
    assert all(
        s.games == 0 and s.wins == 0 and s.mean_place is None for s in store.results.standings(tid)
    )


#: Head-to-head counts straight from the stored seats: an oracle independent of the Python tally.
HEAD_TO_HEAD_SQL = """
    SELECT a.entrant, b.entrant AS opponent, COUNT(*) AS played,
           SUM(a.place < b.place) AS wins, SUM(a.place = b.place) AS draws,
           SUM(a.place > b.place) AS losses,
           100.0 * (SUM(a.place < b.place) + 0.5 * SUM(a.place = b.place)) / COUNT(*)
               AS score_pct
    FROM seats a JOIN seats b ON b.game_id = a.game_id AND b.seat != a.seat
    WHERE a.tournament_id = ?
    GROUP BY a.entrant, b.entrant"""


def test_crosstable_matches_head_to_head_counted_in_sql(store: Store) -> None:
    tid = new_tournament(store)
    play_all(store, tid)
    table = store.results.crosstable(tid)
    rows = list(store.db.query(HEAD_TO_HEAD_SQL, (tid,)))
    assert len(rows) == 4 * 3
    for row in rows:
        cell = table.cell(row["entrant"], row["opponent"])
        assert (cell.wins, cell.draws, cell.losses) == (row["wins"], row["draws"], row["losses"])
        assert row["score_pct"] == pytest.approx(100 * cell.score, abs=0.05)


def test_rebuilt_ratings_equal_direct_computation(store: Store) -> None:
    tid = new_tournament(store)
    records = play_all(store, tid)
    in_order = sorted(records.values(), key=lambda pr: pr[0].index)
    results = store.results.games(tid)
    assert [(r.seating, r.places) for r in results] == [
        (p.seating, rec.places) for p, rec in in_order
    ]
    elo = incremental_elo(results, entrants=SPEC.entrants)
    counts = PairCounts(SPEC.entrants)
    for p, rec in in_order:
        counts.add_game(p.seating, rec.places)
    batch = batch_ratings(counts)
    rebuilt = store.results.rebuild_ratings(tid)
    assert rebuilt.elo == elo
    assert rebuilt.batch == batch
    stored = {(r.method, r.entrant): r for r in store.results.ratings(tid)}
    for label in SPEC.entrants:
        assert stored[(RatingMethod.ELO, label)].rating == pytest.approx(elo.ratings[label])
        mle = batch.by_entrant()[label]
        got = stored[(RatingMethod.MLE, label)]
        assert (got.rating, got.lo, got.hi, got.games) == pytest.approx(
            (mle.rating, mle.lo, mle.hi, mle.games)
        )
    assert store.results.rating_history(tid) == sorted(
        elo.history, key=lambda h: (h.game_index, h.entrant)
    )
    # Derived data: rebuilding again replaces, never duplicates.
    store.results.rebuild_ratings(tid)
    assert len(store.results.ratings(tid)) == 2 * len(SPEC.entrants)
    assert store.db["rating_history"].count == len(elo.history)
    ranked = list(
        store.db.query(
            "SELECT entrant FROM ratings WHERE tournament_id = ? AND method = 'mle' "
            "ORDER BY rating DESC",
            (tid,),
        )
    )
    assert [r["entrant"] for r in ranked] == [r.entrant for r in batch.ranked()]


def test_current_ratings_follow_the_stored_games_without_writing(store: Store) -> None:
    tid = new_tournament(store)
    assert store.results.current_ratings(tid) == []
    play_all(store, tid, limit=5)
    store.results.rebuild_ratings(tid)
    assert store.results.current_ratings(tid) == store.results.ratings(tid), (
        "fresh: the stored ones"
    )
    play_all(store, tid, seed=2)  # the rest, with no rebuild after them
    stale = store.results.ratings(tid)
    before = store.db["ratings"].count, store.db["rating_history"].count
    current = store.results.current_ratings(tid)
    assert current != stale, "the stored ratings lag behind: computed afresh"
    assert (store.db["ratings"].count, store.db["rating_history"].count) == before
    store.results.rebuild_ratings(tid)
    assert [(r.entrant, r.method, r.games) for r in current] == [
        (r.entrant, r.method, r.games) for r in store.results.ratings(tid)
    ]
    assert [r.rating for r in current] == pytest.approx(
        [r.rating for r in store.results.ratings(tid)]
    )
