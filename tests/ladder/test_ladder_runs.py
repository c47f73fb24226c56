"""A ladder played for real: bundled and folder bots as real processes, a real SQLite file.

One scenario: five versions of four participants play batches; every stored game keeps the
fair-play rules (each table in all its rotations on one keyed deal, no two bots of one
participant at a table), the stored skills are what the ``openskill`` package computes on
the same games in the same order (and what a rebuild gives), a new version inherits its
predecessor's mu with a wider sigma while the old one keeps its history, and the
leaderboard read while games are recorded always counts whole games. Another: a bot that
faults in play is suspended with the reason, and leaves matchmaking.
"""

from __future__ import annotations

import json
import math
import sqlite3
import sys
import threading
import warnings
from collections import defaultdict
from pathlib import Path

import pytest

from arena.web.app import create_app
from tests.ladder.conftest import (
    ILLEGAL_BOT,
    cli,
    folder_bot,
    make_ladder,
    register_unchecked,
    replay_openskill,
)
from tournaments.errors import NotYourBot
from tournaments.ladder import service
from tournaments.ladder.board import read_board
from tournaments.plans.schedule import DealMode
from tournaments.ratings.skill import INHERIT_SIGMA, SIGMA
from tournaments.run import runner
from tournaments.store.facts import Store
from tournaments.store.ladder_values import EntryStatus, LadderDeals, LadderSettings
from tournaments.store.ladders import LadderStore

with warnings.catch_warnings():  # newer Starlette prefers httpx2 for its test client
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient


def games_of(db: Path) -> list[tuple]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(
            "SELECT g.tournament_id, g.table_index, g.rotation, g.deal_seed, g.seating, "
            "g.status, t.key_id, t.kind FROM games g JOIN tournaments t ON t.id = "
            "g.tournament_id ORDER BY g.id"
        ).fetchall()
    finally:
        conn.close()


def test_a_ladder_keeps_the_rules_and_rates_as_openskill_does(tmp_path: Path, shared: Path) -> None:
    db = tmp_path / "arena.db"
    with Store.open(db) as store:
        service.create_ladder(
            store,
            name="sk",
            game_name="skull",
            table_sizes="3-4",
            options={},
            move_ms=1000,
            settings=LadderSettings(batch_games=60, placement_games=6),
        )
        service.submit(store, "sk", "random", participant="alice")
        service.submit(store, "sk", "first", participant="alice")
        service.submit(store, "sk", "skull_odds", participant="bob")
        service.submit(store, "sk", str(folder_bot(shared, "carol_bot")), participant="carol")
        first = service.submit(store, "sk", str(folder_bot(shared, "dave_bot")), participant="dave")
        assert first.report is not None and first.report.passed
        with pytest.raises(NotYourBot):  # dave's bot is dave's
            service.submit(
                store, "sk", str(folder_bot(tmp_path / "x", "dave_bot")), participant="eve"
            )

        seen: list[tuple[int, int, int]] = []
        stop = threading.Event()

        def watch() -> None:  # the leaderboard, read while games are recorded
            with Store.open(db) as reader:
                lstore = LadderStore(reader)
                ladder = lstore.ladder("sk")
                while not stop.is_set():
                    board = read_board(lstore, ladder, elo=False)
                    seats = sum(line.games for line in board.lines)
                    counted = sum(line.rated for line in board.lines)
                    seen.append((board.games, seats, counted))
                    stop.wait(0.05)

        watcher = threading.Thread(target=watch)
        watcher.start()
        try:
            run = service.run_ladder(store, "sk", until_games=50)
        finally:
            stop.set()
            watcher.join()
        assert run.games >= 50 and run.batches == 1

        # a new version of dave's bot: it inherits, the old one keeps its history
        lstore = LadderStore(store)
        ladder = lstore.ladder("sk")
        old = next(e for e in lstore.entries(ladder.id) if e.bot == "dave_bot")
        old_board = {line.entry.id: line for line in read_board(lstore, ladder).lines}
        v2 = service.submit(
            store,
            "sk",
            str(folder_bot(shared, "dave_bot", extra="# version 2\n")),
            participant="dave",
        )
        assert v2.replaced is not None and v2.replaced.id == old.id
        assert v2.entry.number == 2 and v2.entry.previous_id == old.id
        board = {line.entry.id: line for line in read_board(lstore, ladder).lines}
        assert board[old.id].entry.status is EntryStatus.RETIRED
        was = old_board[old.id].skill
        assert board[v2.entry.id].skill.mu == was.mu
        assert board[v2.entry.id].skill.sigma == min(SIGMA, math.hypot(was.sigma, INHERIT_SIGMA))
        service.run_ladder(store, "sk", until_games=run.games + 1)
        after = {line.entry.id: line for line in read_board(lstore, ladder).lines}
        assert after[old.id].games == old_board[old.id].games  # retired: history kept, no play
        assert after[v2.entry.id].games > 0

        participant = {e.runs_as: e.participant for e in lstore.entries(ladder.id)}
        stored = {e: (s.mu, s.sigma, g) for e, (s, g) in lstore.skills(ladder.id).items()}
        rebuilt = service.rebuild_skills(store, "sk")
        again = {e: (s.mu, s.sigma, g) for e, (s, g) in lstore.skills(ladder.id).items()}

    # fair play: every table in all its rotations, on one keyed deal; no colluding seats
    tables: dict[tuple[int, int], list] = defaultdict(list)
    for tid, table, rotation, deal, seating, status, key_id, kind in games_of(db):
        assert kind == "ladder" and key_id and status == "done"
        tables[tid, table].append((rotation, deal, tuple(json.loads(seating))))
        owners = [participant[label] for label in json.loads(seating)]
        assert len(set(owners)) == len(owners), f"one participant twice at a table: {seating}"
    for games in tables.values():
        k = len(games[0][2])
        assert sorted(r for r, _, _ in games) == list(range(k))
        assert len({deal for _, deal, _ in games}) == 1
        base = games[0][2]
        assert {s for _, _, s in games} == {base[r:] + base[:r] for r in range(k)}

    # the stored skills are openskill's own results on these games, and a rebuild agrees
    assert stored == replay_openskill(db, "sk")
    assert again == stored and rebuilt == sum(g for _, _, g in stored.values())

    # every board read while games were recorded counted whole games, each once
    assert seen, "the leaderboard was never read during the run"
    for games, seats, counted in seen:
        assert seats == counted
        assert games * 3 <= seats <= games * 4
    assert [g for g, _, _ in seen] == sorted(g for g, _, _ in seen)


def test_a_bot_that_faults_is_suspended_with_the_reason(tmp_path: Path, shared: Path) -> None:
    db = tmp_path / "arena.db"
    illegal = folder_bot(shared, "wild", source=ILLEGAL_BOT)
    with Store.open(db) as store:
        # registered by the operator as a command (no check): it stands for a bot that
        # passed its check and broke later
        register_unchecked(store, "wild", [sys.executable, str(illegal / "bot.py")])
    make_ladder(db, bots=("wild", "random", "first", "skull_odds"), batch_games=24)
    with Store.open(db) as store:
        first = service.run_ladder(store, "sk", until_games=1)
        board = service.leaderboard(store, "sk")
        wild = next(line for line in board.lines if line.entry.bot == "wild")
        assert wild.entry.status is EntryStatus.SUSPENDED and wild.rank is None
        assert "faults in" in (wild.entry.reason or "") and "illegal" in wild.entry.reason
        played = wild.games
        service.run_ladder(store, "sk", until_games=first.games + 1)
        again = service.leaderboard(store, "sk")
        assert next(line for line in again.lines if line.entry.bot == "wild").games == played
    out = cli("ladder", "show", "sk", "--db", str(db))
    assert "suspended: faults in" in out


NOW_AND_THEN_BOT = """
import itertools, random, time
from protocol.sdk import run_bot
moves = itertools.count(1)
def act(view, legal):
    if next(moves) % 25 == 0:
        time.sleep(1.5)
    return random.choice(legal)
run_bot(act, name={name!r})
"""


def test_a_folder_bot_is_checked_at_its_ladders_move_time(tmp_path: Path, shared: Path) -> None:
    """A bot slow now and then (1.5 s on one move in 25) would time out in a ladder of
    1000 ms a move: it is refused at entry there; a ladder of 2000 ms a move takes it."""
    db = tmp_path / "arena.db"
    sometimes = folder_bot(shared, "sometimes", source=NOW_AND_THEN_BOT)
    with Store.open(db) as store:
        for name, move_ms in (("quick", 1000), ("patient", 2000)):
            service.create_ladder(
                store, name=name, game_name="skull", table_sizes="3", options={}, move_ms=move_ms
            )
        with pytest.raises(service.BotCheckError, match="answers within the deadline") as refused:
            service.submit(store, "quick", str(sometimes), sandbox=service.SandboxMode.OFF)
        assert "1000 ms a move" in str(refused.value)
        assert service.leaderboard(store, "quick").lines == ()
        entered = service.submit(store, "patient", str(sometimes), sandbox=service.SandboxMode.OFF)
        assert entered.report is not None and entered.report.passed
        assert "(deadline 2000 ms)" in entered.report.lines()[5]


def test_batches_on_two_jobs_share_their_workers_and_keep_the_rules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With ``--jobs 2`` the worker processes are started once for every batch; each batch's
    bot processes are still its own, ended at each of its phases (the process-record audit),
    and every game is recorded once."""
    started: list[int] = []
    workers_class = runner._Workers

    def counting(*args: object) -> runner._Workers:
        started.append(1)
        return workers_class(*args)

    monkeypatch.setattr(runner, "_Workers", counting)
    db = tmp_path / "arena.db"
    make_ladder(db, bots=("random", "first", "skull_odds"), batch_games=24)
    with Store.open(db) as store:
        done = service.run_ladder(store, "sk", jobs=2, until_games=60)
        assert done.batches == 3 and done.played == done.games == 72
        batches = LadderStore(store).batches(LadderStore(store).ladder("sk").id, rated=True)
        assert len(batches) == 3
        runs = set()
        for tid in batches:
            records = store.processes.of(tid)
            assert records and all(r.ended_at is not None and r.confirmed for r in records)
            assert store.processes.shared_deal_overlaps(tid) == []
            assert len({r.phase for r in records}) == 3  # tables of three: three rotations
            runs |= {r.run for r in records}
        assert len(runs) == 3  # a run (its own records) per batch...
    assert started == [1]  # ... on the workers started once
    games = games_of(db)
    assert len(games) == 72 and all(status == "done" for *_, status, _, _ in games)


def test_a_ladder_with_independent_deals_plays_a_batch(tmp_path: Path) -> None:
    """``--deals independent``: the batch keeps every table in all its seat rotations, each
    game on its own deal, played in one phase; the board and the batch say so."""
    db = tmp_path / "arena.db"
    cli("ladder", "create", "sk", "--game", "skull", "--table-sizes", "3", "--batch-games", "24",
        "--deals", "independent", "--db", str(db))  # fmt: skip
    for bot in ("random", "first", "skull_odds", "random_2"):
        with Store.open(db) as store:
            if bot == "random_2":
                register_unchecked(store, bot, [sys.executable, "-m", "bots.random"])
            service.submit(store, "sk", bot)
    with Store.open(db) as store:
        done = service.run_ladder(store, "sk", until_games=1)
        assert done.batches == 1 and done.played == done.games == 24
        (tid,) = LadderStore(store).batches(LadderStore(store).ladder("sk").id, rated=True)
        assert store.tournament(tid).spec.deals is DealMode.INDEPENDENT
        assert len({r.phase for r in store.processes.of(tid)}) == 1
        assert service.leaderboard(store, "sk").to_dict()["deals"] == "independent"
    tables: dict[int, list] = defaultdict(list)
    for _, table, rotation, deal, seating, status, _, _ in games_of(db):
        assert status == "done"
        tables[table].append((rotation, deal, tuple(json.loads(seating))))
    deals = [deal for games in tables.values() for _, deal, _ in games]
    assert len(deals) == len(set(deals)) == 24, "two games share a deal"
    for games in tables.values():
        base = games[0][2]
        assert sorted(r for r, _, _ in games) == [0, 1, 2]
        assert {s for _, _, s in games} == {base[r:] + base[:r] for r in range(3)}
    assert "independent deals, 24 games" in cli("ladder", "show", "sk", "--db", str(db))
    assert "independent" in cli("ladder", "show", "--db", str(db))
    page = TestClient(create_app(db)).get("/ladders/sk").text
    assert '<span id="ladder-deals">independent deals</span>' in page


def test_auto_deals_are_independent_once_a_ladder_has_uploads() -> None:
    assert LadderSettings().deals is LadderDeals.AUTO
    assert LadderDeals.AUTO.mode(uploads=False) is DealMode.DUPLICATE
    assert LadderDeals.AUTO.mode(uploads=True) is DealMode.INDEPENDENT
    assert LadderDeals.DUPLICATE.mode(uploads=True) is DealMode.DUPLICATE
    assert LadderDeals.INDEPENDENT.mode(uploads=False) is DealMode.INDEPENDENT
    stored = LadderSettings(deals=LadderDeals.INDEPENDENT).to_dict()
    assert stored["deals"] == "independent"
    assert LadderSettings.from_dict(stored).deals is LadderDeals.INDEPENDENT
    older = {k: v for k, v in stored.items() if k != "deals"}  # a ladder stored before
    assert LadderSettings.from_dict(older).deals is LadderDeals.AUTO


def test_a_run_stopped_between_batches_leaves_the_ladder_stopped_not_planned(
    tmp_path: Path,
) -> None:
    """A ladder's page says ``planned`` only before any batch was played: a run stopped after
    a batch and before the next one's first game (Ctrl-C at the boundary) leaves the next
    batch planned and the ladder ``stopped``, with the batch and the command that goes on."""
    db = tmp_path / "arena.db"
    make_ladder(db, bots=("random", "first", "skull_odds"), batch_games=6)
    with Store.open(db) as store:
        ladder = LadderStore(store).ladder("sk")
        first, _ = service.plan_next(store, ladder)
        assert first is not None
        fresh = service.run_state(store, ladder)
        assert fresh["state"] == "planned" and fresh["batch"] == 1 and fresh["left"] == 6
        service.run_ladder(store, "sk", until_games=1)
        second, _ = service.plan_next(store, ladder)  # planned; the run stops before it plays
        assert second is not None and second != first
        now = service.run_state(store, ladder)
    assert now["state"] == "stopped" and now["batch"] == 2 and now["left"] == 6
    assert now["since"] and "of batch 2 to play: `arena ladder run sk` goes on" in now["message"]
