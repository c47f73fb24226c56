"""The leaderboard's batch Elo cache: a polled server refits a ladder's Elo only when its games
changed and a few seconds have passed, and says of how many games the fit is; the live page's
recent games wait for their deals."""

from __future__ import annotations

from pathlib import Path

from arena.procs.sandbox import SandboxMode
from tests.ladder.conftest import make_ladder
from tournaments.ladder import service
from tournaments.ladder.board import EloCache
from tournaments.service import RunOptions
from tournaments.store.facts import Store


def test_a_fit_is_reused_until_games_change_and_time_passes(monkeypatch) -> None:
    now = [100.0]
    monkeypatch.setattr("tournaments.ladder.board.time.monotonic", lambda: now[0])
    cache = EloCache()
    calls: list[int] = []

    def compute(games: int):
        def run():
            calls.append(games)
            return games, {1: games}

        return run

    assert cache.fit(("db", 1), 10, compute(10)) == (10, {1: 10})
    assert cache.fit(("db", 1), 10, compute(10)) == (10, {1: 10})  # same games: reused
    assert cache.fit(("db", 1), 12, compute(12)) == (10, {1: 10})  # too soon: the old fit
    now[0] += EloCache.MIN_S + 1
    assert cache.fit(("db", 1), 12, compute(12)) == (12, {1: 12})  # refitted
    assert cache.fit(("db", 2), 3, compute(3)) == (3, {1: 3})  # another ladder: its own
    assert calls == [10, 12, 3]


def test_a_ladders_recent_games_wait_for_their_deal(tmp_path: Path) -> None:
    """The live page lists a finished game's seats and places only once every rotation of its
    deal is played, as its replay is shown: until then they tell the other rotations' seats
    who held what."""
    db = tmp_path / "arena.db"
    make_ladder(db, "3", ("random", "first", "skull_odds"), batch_games=12, placement_games=3)
    with Store.open(db) as store:
        service.run_ladder(store, "sk", RunOptions(sandbox=SandboxMode.OFF), until_games=12)
        listed = {game["id"] for game in service.ladder_page(store, "sk")["recent"]}
        latest = max(listed)
        deal, tid = store.db.execute(
            "SELECT deal_seed, tournament_id FROM games WHERE id = ?", (latest,)
        ).fetchone()
        rotations = {
            gid
            for (gid,) in store.db.execute(
                "SELECT id FROM games WHERE tournament_id = ? AND deal_seed = ?", (tid, deal)
            )
        }
        assert len(rotations) == 3 and rotations <= listed, "a complete deal is listed"
        store.db.execute("UPDATE games SET status = 'pending' WHERE id = ?", (latest,))
        # the deal's last rotation is still to be played: none of its games is listed
        shown = {game["id"] for game in service.ladder_page(store, "sk")["recent"]}
        assert not shown & rotations and shown, shown
