"""The leaderboard's batch Elo cache: a polled server refits a ladder's Elo only when its games
changed and a few seconds have passed, and says of how many games the fit is."""

from __future__ import annotations

from tournaments.ladder.board import EloCache


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
