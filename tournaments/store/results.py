"""What the results store derives from its raw facts: results, standings, the pairwise tally,
the crosstable and ratings (computed, and kept as a cache that ``current_ratings`` trusts only
while it counts every finished game), the faults counted by entrant and kind, and the seats of
finished games as a match counts them.

``Results`` is the part of an open ``tournaments.store.facts.Store`` that the store hands out as
``store.results``: it reads through the store's connection and writes the rating cache (the
``ratings`` and ``rating_history`` tables) in the store's write transactions.
"""

from __future__ import annotations

from collections.abc import Sequence

from tournaments.ratings import (
    DEFAULT_K,
    Crosstable,
    GameResult,
    HistoryRow,
    PairCounts,
    batch_ratings,
    incremental_elo,
)
from tournaments.store.database import StorePart, guarded, json_tuples
from tournaments.store.values import (
    FaultCount,
    GameStatus,
    PlayedSeat,
    RatingMethod,
    RatingRow,
    SeatedGame,
    Standing,
    TournamentRatings,
)


class Results(StorePart):
    """Results, standings, tallies and ratings of a store's tournaments (``store.results``)."""

    def _results(self, tid: int, since: int = 0) -> list[GameResult]:
        """Finished games of ``tid`` in plan order (from plan index ``since``), as ratings
        take them.

        SQLite extracts the places; the few distinct seating and places texts of a tournament
        are parsed once each (this is most of the time of rating 100,000 games)."""
        rows = self.db.execute(
            "SELECT plan_index, seating, json_extract(outcome, '$.places') FROM games "
            "WHERE tournament_id = ? AND status = ? AND plan_index >= ? ORDER BY plan_index",
            (tid, GameStatus.DONE.value, since),
        ).fetchall()
        parse = json_tuples()

        new = tuple.__new__  # GameResult is a named tuple; skip its slow keyword __new__
        return [
            new(GameResult, (index, parse(seating), parse(places)))
            for index, seating, places in rows
        ]

    @guarded("reading results")
    def games(self, tid: int, *, since: int = 0) -> list[GameResult]:
        """Finished games of ``tid`` in plan order, from plan index ``since`` on."""
        self.store.tournament_row(tid)
        return self._results(tid, since)

    @guarded("reading the plan")
    def seated_games(self, tid: int, *, first_rotation: bool = False) -> list[SeatedGame]:
        """Every planned game of ``tid`` in plan order (``first_rotation``: only each deal's
        first seating, one per table), with its places once played: what a tournament played
        in rounds plans its next round from, and what a plan's balance is counted from."""
        self.store.tournament_row(tid)
        rows = self.db.execute(
            "SELECT round, table_index, rotation, seating, json_extract(outcome, '$.places') "
            "FROM games WHERE tournament_id = ?"
            + (" AND rotation = 0" if first_rotation else "")
            + " ORDER BY plan_index",
            (tid,),
        ).fetchall()
        parse = json_tuples()
        return [
            SeatedGame(repetition, table, rotation, parse(seating), places and parse(places))
            for repetition, table, rotation, seating, places in rows
        ]

    @guarded("reading standings")
    def standings(self, tid: int) -> list[Standing]:
        """Per entrant: games, wins, mean place, mean score, faults (best mean place first)."""
        self.store.tournament_row(tid)
        return [
            Standing.from_row(row)
            for row in self.db.query(
                "SELECT * FROM standings WHERE tournament_id = ? "
                "ORDER BY games = 0, mean_place, wins DESC, entrant",
                (tid,),
            )
        ]

    def _counts(self, tid: int) -> tuple[list[str], list[GameResult], PairCounts]:
        labels = [
            label
            for (label,) in self.db.execute(
                "SELECT label FROM entrants WHERE tournament_id = ? ORDER BY position", (tid,)
            )
        ]
        results = self._results(tid)
        counts = PairCounts(labels)
        for result in results:
            counts.add_game(result.seating, result.places)
        return labels, results, counts

    @guarded("counting results")
    def tally(self, tid: int) -> PairCounts:
        """The pairwise counts of the stored games: the one tally that ratings, the crosstable
        and a run's progress (which adds each game as it records it) start from."""
        self.store.tournament_row(tid)
        return self._counts(tid)[2]

    @guarded("computing the crosstable")
    def crosstable(self, tid: int) -> Crosstable:
        """Head-to-head pairwise results between every pair of entrants."""
        return self.tally(tid).crosstable()

    @guarded("computing ratings")
    def compute_ratings(
        self, tid: int, *, k: float = DEFAULT_K, prior: float = 1.0
    ) -> TournamentRatings:
        """Incremental Elo (plan order) and batch ratings of the stored games, computed now
        (nothing is written)."""
        self.store.tournament_row(tid)
        labels, results, counts = self._counts(tid)
        return TournamentRatings(
            elo=incremental_elo(results, entrants=labels, k=k),
            batch=batch_ratings(counts, prior=prior),
            crosstable=counts.crosstable(),
        )

    @guarded("rebuilding ratings")
    def rebuild_ratings(
        self, tid: int, *, k: float = DEFAULT_K, prior: float = 1.0
    ) -> TournamentRatings:
        """``compute_ratings``, then replace the stored ratings and history with them (the
        stored ratings are a cache of what the games give; see ``current_ratings``)."""
        rated = self.compute_ratings(tid, k=k, prior=prior)
        rows = [
            (tid, row.method.value, row.entrant, row.rating, row.lo, row.hi, row.games)
            for row in _rating_rows(rated)
        ]
        with self.store.write() as conn:
            conn.execute("DELETE FROM ratings WHERE tournament_id = ?", (tid,))
            conn.execute("DELETE FROM rating_history WHERE tournament_id = ?", (tid,))
            conn.executemany(
                "INSERT INTO ratings (tournament_id, method, entrant, rating, lo, "
                "hi, games) VALUES (?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
            # History rows are (game_index, entrant, rating) tuples: bind them as they are.
            conn.executemany(
                f"INSERT INTO rating_history (tournament_id, game_index, entrant, "
                f"rating) VALUES ({int(tid)}, ?, ?, ?)",
                rated.elo.history,
            )
        return rated

    @guarded("reading ratings")
    def ratings(self, tid: int) -> list[RatingRow]:
        """Stored ratings (as of the last ``rebuild_ratings``), both methods, best first."""
        self.store.tournament_row(tid)
        return [
            RatingRow.from_row(row)
            for row in self.db.query(
                "SELECT * FROM ratings WHERE tournament_id = ? ORDER BY method, rating DESC", (tid,)
            )
        ]

    def current_ratings(self, tid: int) -> list[RatingRow]:
        """The ratings the stored games give now, never stale and never written: the stored
        ones while they count every finished game of every entrant, else computed afresh (a
        run killed before its last rebuild, a run in progress)."""
        stored = self.ratings(tid)
        played = {s.entrant: s.games for s in self.standings(tid)}
        counted = {r.entrant: r.games for r in stored if r.method is RatingMethod.ELO}
        if stored and counted == played:
            return stored
        if not any(played.values()):
            return []
        return _rating_rows(self.compute_ratings(tid))

    @guarded("reading rating history")
    def rating_history(self, tid: int) -> list[HistoryRow]:
        self.store.tournament_row(tid)
        return [
            HistoryRow(game_index=index, entrant=entrant, rating=rating)
            for index, entrant, rating in self.db.execute(
                "SELECT game_index, entrant, rating FROM rating_history WHERE "
                "tournament_id = ? ORDER BY game_index, entrant",
                (tid,),
            )
        ]

    @guarded("counting faults")
    def faults(
        self, *, tid: int | None = None, games: Sequence[int] = (), bot: str | None = None
    ) -> list[FaultCount]:
        """Faults counted by tournament, entrant and kind (in that order): those of tournament
        ``tid``, of the games ``games``, or of every entrant of bot ``bot`` (give one)."""
        if (tid is not None) + bool(games) + (bot is not None) != 1:
            raise ValueError("faults: give one of tid, games or bot")
        # Faults first (CROSS JOIN keeps that order): there are few faults and many seats,
        # and the grouping would otherwise lead SQLite to walk every seat in entrant order.
        # Grouped by the fewest, cheapest keys: one tournament's id is one value (grouping by
        # it costs a quarter more instructions), and the kind first sorts fastest.
        group = "s.entrant, f.kind" if tid is not None else "f.kind, s.tournament_id, s.entrant"
        sql = (
            "SELECT s.tournament_id, s.entrant, f.kind, COUNT(*) FROM faults f CROSS JOIN "
            "seats s ON s.game_id = f.game_id AND s.seat = f.seat {} GROUP BY " + group
        )
        if tid is not None:
            selections = [(sql.format("WHERE s.tournament_id = ?"), [tid])]
        elif bot is not None:
            selections = [
                (
                    sql.format(
                        "JOIN entrants e ON e.tournament_id = s.tournament_id "
                        "AND e.label = s.entrant WHERE e.bot = ?"
                    ),
                    [bot],
                )
            ]
        else:
            ids = sorted(set(games))
            selections = [
                (sql.format(f"WHERE f.game_id IN ({','.join('?' * len(chunk))})"), chunk)
                for chunk in (ids[i : i + 500] for i in range(0, len(ids), 500))
            ]
        counts: dict[tuple[int, str, str], int] = {}
        for statement, params in selections:
            for tournament, entrant, kind, n in self.db.execute(statement, params):
                key = (tournament, entrant, kind)
                counts[key] = counts.get(key, 0) + n
        return [FaultCount(*key, count) for key, count in sorted(counts.items())]

    @guarded("reading finished seats")
    def played_seats(self, tid: int, *, since: int = 0) -> list[PlayedSeat]:
        """Every seat of tournament ``tid``'s finished games from plan index ``since`` on."""
        return [
            PlayedSeat._make(row)
            for row in self.db.execute(
                "SELECT g.plan_index, g.id, s.entrant, s.place, s.faults, s.forfeited "
                "FROM games g JOIN seats s ON s.game_id = g.id "
                "WHERE g.tournament_id = ? AND g.status = ? AND g.plan_index >= ?",
                (tid, GameStatus.DONE.value, since),
            )
        ]


def _rating_rows(rated: TournamentRatings) -> list[RatingRow]:
    """Both methods' ratings as rows, each method best first (as ``Results.ratings`` reads)."""
    elo = [
        RatingRow(
            entrant=label,
            method=RatingMethod.ELO,
            rating=rating,
            lo=None,
            hi=None,
            games=rated.elo.games[label],
        )
        for label, rating in rated.elo.ratings.items()
    ]
    mle = [
        RatingRow(
            entrant=r.entrant,
            method=RatingMethod.MLE,
            rating=r.rating,
            lo=r.lo,
            hi=r.hi,
            games=r.games,
        )
        for r in rated.batch.ratings
    ]
    return [*sorted(elo, key=lambda r: -r.rating), *sorted(mle, key=lambda r: -r.rating)]
