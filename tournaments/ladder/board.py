"""A ladder's leaderboard, read in one snapshot of the database.

Lines are the active versions ranked by the conservative estimate ``mu - 3 sigma`` (ties: the
higher mu, then the older entry), then the suspended and the retired versions, unranked.
Skills are ``tournaments.ladder.rating.current``: the rated batches and every game finished
since, so the board counts every game recorded when it was read, each once. Beside them is
the batch maximum-likelihood Elo of every version over all ladder games, with its 95 %
interval (``tournaments.ratings.batch_ratings``), for ladders of up to ``MAX_ELO_VERSIONS``
versions (the fit is cubic in their number; ``EloCache`` keeps a polled server from refitting
it more than every few seconds).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from tournaments.ladder.rating import current
from tournaments.ladder.values import Board, BoardLine
from tournaments.ratings import PairCounts, Rated, batch_ratings
from tournaments.store.ladder_values import EntryStatus, LadderInfo
from tournaments.store.ladders import LadderStore

__all__ = ["MAX_ELO_VERSIONS", "EloCache", "read_board", "skill_history"]

#: Most versions with games for which the batch Elo is computed with the board (the fit of
#: 80 takes about a second here).
MAX_ELO_VERSIONS = 80

_ORDER = {EntryStatus.ACTIVE: 0, EntryStatus.SUSPENDED: 1, EntryStatus.RETIRED: 2}


class EloCache:
    """Batch Elo fits of ladders for a server whose pages poll: a ladder's fit is computed
    again only when its games changed and at least ``MIN_S`` seconds (or ``SHARE`` times the
    last fit's cost) have passed, so a large ladder's fit never takes more than a small share
    of the server's time. The board says how many games the fit counts."""

    MIN_S = 5.0
    SHARE = 20.0

    def __init__(self) -> None:
        self._fits: dict[tuple[str, int], tuple[float, float, int, dict[int, Rated]]] = {}
        self._lock = threading.Lock()

    def fit(
        self, key: tuple[str, int], games: int, compute: Callable[[], tuple[int, dict[int, Rated]]]
    ) -> tuple[int, dict[int, Rated]]:
        with self._lock:
            found = self._fits.get(key)
        now = time.monotonic()
        if found is not None:
            at, cost, counted, values = found
            if counted == games or now - at < max(self.MIN_S, self.SHARE * cost):
                return counted, values
        started = time.perf_counter()
        counted, values = compute()
        with self._lock:
            self._fits[key] = (now, time.perf_counter() - started, counted, values)
        return counted, values


def _fit_elo(lstore: LadderStore, ladder: LadderInfo) -> tuple[int, dict[int, Rated]]:
    """The batch Elo of every version with games, over all the ladder's finished games (one
    snapshot); how many games it counts."""
    with lstore.snapshot():
        games = lstore.games(ladder.id)
    played = sorted({e for game in games for e in game.entries})
    counts = PairCounts([str(e) for e in played])
    for game in games:
        counts.add_game([str(e) for e in game.entries], game.places)
    return len(games), {int(r.entrant): r for r in batch_ratings(counts).ratings}


def read_board(
    lstore: LadderStore, ladder: LadderInfo, *, elo: bool = True, cache: EloCache | None = None
) -> Board:
    """The leaderboard now (see the module's docstring); with ``cache``, the batch Elo may
    be the one computed a few seconds before (``Board.elo_games`` says of how many games)."""
    with lstore.snapshot():
        entries = lstore.entries(ladder.id)
        ratings = current(lstore, ladder, entries)
        stats = lstore.seat_stats(ladder.id)
        done, pending, batches = lstore.counts(ladder.id)
    notes = []
    fitted: dict[int, Rated] = {}
    elo_games = None
    played = [e for e in entries if e.id in stats]
    if elo and len(played) > MAX_ELO_VERSIONS:
        notes.append(
            f"batch Elo left out: {len(played)} versions have games (it is computed for up "
            f"to {MAX_ELO_VERSIONS})"
        )
    elif elo and done:
        if cache is None:
            elo_games, fitted = _fit_elo(lstore, ladder)
        else:
            key = (lstore.path, ladder.id)
            elo_games, fitted = cache.fit(key, done, lambda: _fit_elo(lstore, ladder))
        if elo_games != done:
            notes.append(f"batch Elo as of {elo_games} games (it is refitted every few seconds)")
    ordered = sorted(
        entries,
        key=lambda e: (
            _ORDER[e.status],
            -ratings.skill(e.id).conservative,
            -ratings.skill(e.id).mu,
            e.id,
        ),
    )
    lines = []
    rank = 0
    for entry in ordered:
        stat = stats.get(entry.id)
        count = stat.games if stat else 0
        if entry.status is EntryStatus.ACTIVE:
            rank += 1
        elo_of = fitted.get(entry.id)
        lines.append(
            BoardLine(
                rank=rank if entry.status is EntryStatus.ACTIVE else None,
                entry=entry,
                skill=ratings.skill(entry.id),
                rated=ratings.games.get(entry.id, 0),
                games=count,
                wins=stat.wins if stat else 0,
                mean_place=stat.place_sum / count if stat and count else None,
                faults=stat.faulty if stat else 0,
                elo=elo_of.rating if elo_of else None,
                elo_lo=elo_of.lo if elo_of else None,
                elo_hi=elo_of.hi if elo_of else None,
                placement=entry.status is EntryStatus.ACTIVE
                and ratings.games.get(entry.id, 0) < ladder.settings.placement_games,
            )
        )
    return Board(
        ladder=ladder,
        lines=tuple(lines),
        games=done,
        batches=batches,
        pending=pending,
        notes=tuple(notes),
    )


def skill_history(
    lstore: LadderStore, ladder: LadderInfo, *, points: int = 200
) -> dict[int, list[tuple[int, float]]]:
    """Each version's conservative estimate after each of its games, as (ladder game
    number, value): those of rated batches as stored, then those of the batches not rated
    yet as ``current`` folds them (so the chart counts every game the board counts); at most
    ``points`` per version (evenly thinned, the last one kept)."""
    with lstore.snapshot():
        rows = lstore.history(ladder.id)
        unrated: list[tuple[int, int, float, float]] = []
        current(lstore, ladder, lstore.entries(ladder.id), history=unrated)
    rows = [*rows, *unrated]
    numbers: dict[int, int] = {}
    series: dict[int, list[tuple[int, float]]] = {}
    for entry, game_id, mu, sigma in rows:
        n = numbers.setdefault(game_id, len(numbers) + 1)
        series.setdefault(entry, []).append((n, mu - 3 * sigma))
    for entry, values in series.items():
        if len(values) > points:
            step = len(values) / points
            series[entry] = [values[int(i * step)] for i in range(points - 1)] + [values[-1]]
    return series
