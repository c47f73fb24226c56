"""A ladder's rows in the results database (``tournaments.ladder``'s part of the store):
ladders, entries, batches, seats, the skill cache and its history (schema:
``tournaments.store.migrations``, version 10).

``LadderStore`` wraps an open ``Store`` (read-write, or the web's read-only one) and uses its
connection, lock and write transactions: every change is one transaction, so a ladder killed
at any moment leaves whole facts only. A batch is written with its tournament in one
transaction (``Store.create_tournament``'s ``then``); a batch's skills, history and the
suspensions it causes are written together, with the mark that the batch is rated.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from tournaments.errors import LadderError, NotFound, NotYourBot
from tournaments.plans.schedule import PlannedGame, TournamentSpec
from tournaments.ratings.skill import Skill
from tournaments.store.database import StorePart, guarded, json_tuples
from tournaments.store.ladder_values import (
    BatchRef,
    Entry,
    EntryStatus,
    LadderGame,
    LadderInfo,
    LadderSettings,
    SeatStats,
)
from tournaments.store.values import GameStatus
from tournaments.store.withheld import REPLAY_SHOWN

__all__ = ["LadderStore", "Met"]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _pairs(games: Sequence[PlannedGame], seats: Mapping[str, Entry]) -> list[tuple[int, int]]:
    """The pairs of entries (lower id first) at each table of a batch, once per table."""
    found = []
    for game in games:
        if game.rotation == 0:
            table = sorted(seats[label].id for label in game.seating)
            found += [(a, b) for i, a in enumerate(table) for b in table[i + 1 :]]
    return found


def _write_skills(
    conn: sqlite3.Connection,
    ladder_id: int,
    skills: Mapping[int, tuple[Skill, int]],
    history: Iterable[tuple[int, int, float, float]],
) -> None:
    """Write entries' skills (replacing theirs) and history rows, in the caller's
    transaction."""
    conn.executemany(
        "INSERT OR REPLACE INTO ladder_skills (entry_id, ladder_id, mu, sigma, games) "
        "VALUES (?, ?, ?, ?, ?)",
        [(entry, ladder_id, s.mu, s.sigma, games) for entry, (s, games) in skills.items()],
    )
    conn.executemany(
        "INSERT INTO ladder_history (entry_id, game_id, mu, sigma) VALUES (?, ?, ?, ?)", history
    )


class LadderStore(StorePart):
    """The ladder tables of one results database, through an open ``Store``."""

    # -- reading in one snapshot --------------------------------------------------------------

    @contextmanager
    def snapshot(self) -> Iterator[LadderStore]:
        """Reads inside see one state of the database (a read transaction): a game recorded
        meanwhile is seen whole or not at all."""
        with self._lock:
            conn = self.db.conn
            if conn.in_transaction:
                yield self
                return
            conn.execute("BEGIN")
            try:
                yield self
            finally:
                if conn.in_transaction:
                    conn.execute("COMMIT")

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        return list(self.db.query(sql, params))

    # -- ladders --------------------------------------------------------------------------------

    @guarded("creating a ladder")
    def create(
        self,
        *,
        name: str,
        game: str,
        options: Mapping[str, Any],
        min_table: int,
        max_table: int,
        move_ms: int,
        settings: LadderSettings,
    ) -> LadderInfo:
        with self.store.write() as conn:
            if conn.execute("SELECT 1 FROM ladders WHERE name = ?", (name,)).fetchone():
                raise LadderError(f"a ladder named {name!r} exists already")
            conn.execute(
                "INSERT INTO ladders (name, game, options, min_table, max_table, move_ms, "
                "settings, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    name,
                    game,
                    json.dumps(dict(options), separators=(",", ":")),
                    min_table,
                    max_table,
                    move_ms,
                    json.dumps(settings.to_dict(), separators=(",", ":")),
                    _now(),
                ),
            )
        return self.ladder(name)

    @staticmethod
    def _info(row: Mapping[str, Any]) -> LadderInfo:
        return LadderInfo(
            id=row["id"],
            name=row["name"],
            game=row["game"],
            options=json.loads(row["options"]),
            min_table=row["min_table"],
            max_table=row["max_table"],
            move_ms=row["move_ms"],
            settings=LadderSettings.from_dict(json.loads(row["settings"])),
            created_at=row["created_at"],
        )

    @guarded("reading a ladder")
    def ladder(self, name: str) -> LadderInfo:
        rows = self._rows("SELECT * FROM ladders WHERE name = ?", (name,))
        if not rows:
            known = [info.name for info in self.ladders()]
            hint = f" (ladders: {', '.join(known)})" if known else " (create one first)"
            raise NotFound(f"no ladder named {name!r} in {self.path}{hint}")
        return self._info(rows[0])

    @guarded("listing ladders")
    def ladders(self) -> list[LadderInfo]:
        return [self._info(row) for row in self._rows("SELECT * FROM ladders ORDER BY name")]

    # -- entries --------------------------------------------------------------------------------

    @guarded("reading a ladder's entries")
    def entries(self, ladder_id: int) -> list[Entry]:
        """Every entry of the ladder, oldest first."""
        cursor = self.db.execute(
            "SELECT * FROM ladder_entries WHERE ladder_id = ? ORDER BY id", (ladder_id,)
        )
        names = [column[0] for column in cursor.description]
        return [Entry.from_row(dict(zip(names, row))) for row in cursor.fetchall()]

    @guarded("reading a bot's owner")
    def owner(self, bot: str) -> str | None:
        """The participant who entered ``bot`` into a ladder first (None: never entered)."""
        row = self.db.execute(
            "SELECT participant FROM ladder_entries WHERE bot = ? ORDER BY id LIMIT 1", (bot,)
        ).fetchone()
        return row[0] if row else None

    @guarded("entering a bot")
    def enter(
        self,
        ladder_id: int,
        *,
        bot: str,
        version: str,
        runs_as: str,
        participant: str,
        uploaded: bool,
    ) -> Entry:
        """Enter a version of ``bot`` for ``participant``: the bot's current entry (if any)
        retires, the new one is active. Raises NotYourBot for another participant's bot and
        LadderError for the version already in play."""
        with self.store.write() as conn:
            owner = conn.execute(
                "SELECT participant FROM ladder_entries WHERE bot = ? ORDER BY id LIMIT 1", (bot,)
            ).fetchone()
            if owner and owner[0] != participant:
                raise NotYourBot(f"bot {bot!r} belongs to another participant: choose another name")
            last = conn.execute(
                "SELECT id, number, version, status FROM ladder_entries WHERE ladder_id = ? "
                "AND bot = ? ORDER BY number DESC LIMIT 1",
                (ladder_id, bot),
            ).fetchone()
            if last and last[2] == version and last[3] == EntryStatus.ACTIVE.value:
                raise LadderError(f"{bot} version {version} is in this ladder already")
            now = _now()
            if last and last[3] != EntryStatus.RETIRED.value:
                conn.execute(
                    "UPDATE ladder_entries SET status = ?, left_at = COALESCE(left_at, ?), "
                    "reason = COALESCE(reason, ?) WHERE id = ?",
                    (EntryStatus.RETIRED.value, now, "replaced by a new version", last[0]),
                )
            cursor = conn.execute(
                "INSERT INTO ladder_entries (ladder_id, bot, number, version, runs_as, "
                "participant, uploaded, status, previous_id, entered_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    ladder_id,
                    bot,
                    (last[1] + 1) if last else 1,
                    version,
                    runs_as,
                    participant,
                    int(uploaded),
                    EntryStatus.ACTIVE.value,
                    last[0] if last else None,
                    now,
                ),
            )
            entry_id = int(cursor.lastrowid or 0)
        return self.entry(entry_id)

    @guarded("reading an entry")
    def entry(self, entry_id: int) -> Entry:
        rows = self._rows("SELECT * FROM ladder_entries WHERE id = ?", (entry_id,))
        if not rows:
            raise NotFound(f"no ladder entry {entry_id}")
        return Entry.from_row(rows[0])

    @guarded("changing an entry's status")
    def set_status(self, entry_id: int, status: EntryStatus, reason: str | None) -> None:
        with self.store.write() as conn:
            conn.execute(
                "UPDATE ladder_entries SET status = ?, reason = ?, left_at = ? WHERE id = ?",
                (
                    status.value,
                    reason,
                    None if status is EntryStatus.ACTIVE else _now(),
                    entry_id,
                ),
            )

    # -- batches --------------------------------------------------------------------------------

    def plan(
        self,
        ladder: LadderInfo,
        spec: TournamentSpec,
        games: Sequence[PlannedGame],
        seats: Mapping[str, Entry],
        *,
        key: bytes,
    ) -> int:
        """Write a batch: its tournament (``spec``, ``games``; entrant label -> entry in
        ``seats``) and the ladder's record of it, in one transaction; the tournament id."""

        def record(conn: sqlite3.Connection, tid: int) -> None:
            number = conn.execute(
                "SELECT COALESCE(MAX(number), 0) + 1 FROM ladder_batches WHERE ladder_id = ?",
                (ladder.id,),
            ).fetchone()[0]
            conn.execute(
                "INSERT INTO ladder_batches (tournament_id, ladder_id, number) VALUES (?, ?, ?)",
                (tid, ladder.id, number),
            )
            conn.executemany(
                "INSERT INTO ladder_seats (tournament_id, label, entry_id) VALUES (?, ?, ?)",
                [(tid, label, entry.id) for label, entry in seats.items()],
            )
            conn.executemany(
                "INSERT INTO ladder_met (ladder_id, a, b, tables) VALUES (?, ?, ?, 1) "
                "ON CONFLICT (ladder_id, a, b) DO UPDATE SET tables = tables + 1",
                [(ladder.id, a, b) for a, b in _pairs(games, seats)],
            )

        entrants = {label: (entry.runs_as, entry.version) for label, entry in seats.items()}
        return self.store.create_tournament(spec, games, entrants, key=key, then=record)

    @guarded("reading a ladder's batches")
    def batches(self, ladder_id: int, *, rated: bool | None = None) -> list[int]:
        """The tournament ids of the ladder's batches, in order (only rated or unrated ones
        if ``rated`` says)."""
        where = "" if rated is None else f" AND rated = {int(rated)}"
        return [
            tid
            for (tid,) in self.db.execute(
                f"SELECT tournament_id FROM ladder_batches WHERE ladder_id = ?{where} "
                "ORDER BY number",
                (ladder_id,),
            )
        ]

    @guarded("reading a batch")
    def batch_of(self, tid: int) -> BatchRef | None:
        """Tournament ``tid`` as a ladder's batch (None: it is none): its ladder, its number
        and its tables' sizes."""
        row = self.db.execute(
            "SELECT l.name, b.number FROM ladder_batches b JOIN ladders l ON l.id = b.ladder_id "
            "WHERE b.tournament_id = ?",
            (tid,),
        ).fetchone()
        if row is None:
            return None
        sizes = tuple(
            size
            for (size,) in self.db.execute(
                "SELECT DISTINCT json_array_length(seating) FROM games WHERE tournament_id = ? "
                "ORDER BY 1",
                (tid,),
            )
        )
        return BatchRef(tid=tid, ladder=row[0], number=row[1], sizes=sizes)

    @guarded("numbering batches")
    def batch_number(self, tid: int) -> int | None:
        """Batch ``tid``'s number in its ladder (None: no batch)."""
        row = self.db.execute(
            "SELECT number FROM ladder_batches WHERE tournament_id = ?", (tid,)
        ).fetchone()
        return None if row is None else int(row[0])

    @guarded("counting a batch's games")
    def pending_in(self, tid: int) -> int:
        return int(
            self.db.execute(
                "SELECT COUNT(*) FROM games WHERE tournament_id = ? AND status = ?",
                (tid, GameStatus.PENDING.value),
            ).fetchone()[0]
        )

    @guarded("counting a ladder's games")
    def counts(self, ladder_id: int) -> tuple[int, int, int]:
        """(finished games, pending games, batches) of the ladder."""
        row = self.db.execute(
            "SELECT COALESCE(SUM(g.status = ?), 0), COALESCE(SUM(g.status = ?), 0), "
            "COUNT(DISTINCT b.tournament_id) FROM ladder_batches b "
            "LEFT JOIN games g ON g.tournament_id = b.tournament_id WHERE b.ladder_id = ?",
            (GameStatus.DONE.value, GameStatus.PENDING.value, ladder_id),
        ).fetchone()
        return int(row[0]), int(row[1]), int(row[2])

    # -- games and seats ------------------------------------------------------------------------

    @guarded("reading a ladder's games")
    def games(
        self, ladder_id: int, *, rated: bool | None = None, after: int = 0
    ) -> list[LadderGame]:
        """The ladder's finished games in rating order (game id), from rated or unrated
        batches if ``rated`` says, with ids above ``after``."""
        where = "" if rated is None else f" AND b.rated = {int(rated)}"
        rows = self.db.execute(
            "SELECT g.id, g.tournament_id, g.seating, json_extract(g.outcome, '$.places') "
            "FROM ladder_batches b JOIN games g ON g.tournament_id = b.tournament_id "
            f"WHERE b.ladder_id = ? AND g.status = ? AND g.id > ?{where} ORDER BY g.id",
            (ladder_id, GameStatus.DONE.value, after),
        ).fetchall()
        labels = self._seat_entries(ladder_id, rated=rated)
        parse = json_tuples()

        return [
            LadderGame(
                gid, tid, tuple(labels[tid, label] for label in parse(seating)), parse(places)
            )
            for gid, tid, seating, places in rows
        ]

    def _seat_entries(
        self, ladder_id: int, *, rated: bool | None = None, tids: Sequence[int] = ()
    ) -> dict[tuple[int, str], int]:
        """(batch, entrant label) -> entry, of the ladder's batches (only the rated or
        unrated ones if ``rated`` says, only ``tids`` if given)."""
        where = "" if rated is None else f" AND b.rated = {int(rated)}"
        if tids:
            where += f" AND b.tournament_id IN ({','.join(str(int(t)) for t in tids)})"
        return {
            (tid, label): entry
            for tid, label, entry in self.db.execute(
                "SELECT s.tournament_id, s.label, s.entry_id FROM ladder_seats s "
                f"JOIN ladder_batches b ON b.tournament_id = s.tournament_id "
                f"WHERE b.ladder_id = ?{where}",
                (ladder_id,),
            )
        }

    @guarded("reading a batch's entries")
    def batch_entries(self, tid: int) -> dict[str, int]:
        """Entrant label -> entry id of one batch."""
        return dict(
            self.db.execute(
                "SELECT label, entry_id FROM ladder_seats WHERE tournament_id = ?", (tid,)
            ).fetchall()
        )

    @guarded("reading seat statistics")
    def seat_stats(self, ladder_id: int) -> dict[int, SeatStats]:
        """Each entry's games, wins, summed places and games with a fault of its own."""
        return {
            entry: SeatStats(games=games, wins=wins, place_sum=places, faulty=faulty)
            for entry, games, wins, places, faulty in self.db.execute(
                "SELECT ls.entry_id, COUNT(*), SUM(s.place = 1), SUM(s.place), "
                "SUM(s.faults > 0 OR s.forfeited > 0) FROM ladder_seats ls "
                "JOIN ladder_batches b ON b.tournament_id = ls.tournament_id "
                "JOIN seats s ON s.tournament_id = ls.tournament_id AND s.entrant = ls.label "
                "WHERE b.ladder_id = ? GROUP BY ls.entry_id",
                (ladder_id,),
            )
        }

    @guarded("reading a batch's faults")
    def faulty_in(self, tid: int) -> set[int]:
        """The entries with a fault (or forfeit) of their own in batch ``tid``."""
        return {
            entry
            for (entry,) in self.db.execute(
                "SELECT DISTINCT ls.entry_id FROM seats s JOIN ladder_seats ls ON "
                "ls.tournament_id = s.tournament_id AND ls.label = s.entrant "
                "WHERE s.tournament_id = ? AND (s.faults > 0 OR s.forfeited > 0)",
                (tid,),
            )
        }

    @guarded("reading bots' versions")
    def registered_versions(self) -> dict[str, str]:
        """Every registered bot's version (what matchmaking checks an entry against)."""
        return dict(self.db.execute("SELECT name, version FROM bots").fetchall())

    @guarded("reading an entry's faults")
    def recent_faults(self, entry_id: int, window: int) -> tuple[int, dict[str, int]]:
        """Of ``entry_id``'s last ``window`` games: how many had a fault (or forfeit) of its
        own, and its faults in them by kind."""
        rows = self.db.execute(
            "SELECT s.game_id, s.seat, s.faults + s.forfeited FROM ladder_seats ls "
            "JOIN seats s ON s.tournament_id = ls.tournament_id AND s.entrant = ls.label "
            "WHERE ls.entry_id = ? ORDER BY s.game_id DESC LIMIT ?",
            (entry_id, window),
        ).fetchall()
        faulty = [(gid, seat) for gid, seat, bad in rows if bad]
        kinds: dict[str, int] = {}
        for gid, seat in faulty:
            for (kind,) in self.db.execute(
                "SELECT kind FROM faults WHERE game_id = ? AND seat = ?", (gid, seat)
            ):
                kinds[kind] = kinds.get(kind, 0) + 1
        return len(faulty), kinds

    @guarded("reading recent games")
    def recent_games(self, ladder_id: int, limit: int) -> list[dict[str, Any]]:
        """The ladder's last ``limit`` finished games whose deal is complete (as a replay
        waits: ``REPLAY_SHOWN``; before, a game's seats and places tell the seats of the deal's
        other rotations who held what): id, batch, finish time, and each seat's entry and
        place."""
        rows = self.db.execute(
            "SELECT g.id, g.tournament_id, g.finished_at, g.seating, "
            "json_extract(g.outcome, '$.places') FROM ladder_batches b "
            "JOIN games g ON g.tournament_id = b.tournament_id "
            f"WHERE b.ladder_id = ? AND g.status = ? AND {REPLAY_SHOWN} "
            "ORDER BY g.finished_at DESC, g.id DESC LIMIT ?",
            (ladder_id, GameStatus.DONE.value, limit),
        ).fetchall()
        labels = self._seat_entries(ladder_id, tids=sorted({row[1] for row in rows}))
        return [
            {
                "id": gid,
                "tournament": tid,
                "finished_at": finished,
                "entries": [labels[tid, label] for label in json.loads(seating)],
                "places": json.loads(places),
            }
            for gid, tid, finished, seating, places in rows
        ]

    # -- skills -------------------------------------------------------------------------------

    @guarded("reading skills")
    def skills(self, ladder_id: int) -> dict[int, tuple[Skill, int]]:
        """The skill cache: each entry's skill and rated games after the rated batches."""
        return {
            entry: (Skill(mu, sigma), games)
            for entry, mu, sigma, games in self.db.execute(
                "SELECT entry_id, mu, sigma, games FROM ladder_skills WHERE ladder_id = ?",
                (ladder_id,),
            )
        }

    @guarded("reading skill history")
    def history(self, ladder_id: int) -> list[tuple[int, int, float, float]]:
        """(entry, game id, mu, sigma) after each rated game, in rating order."""
        return list(
            self.db.execute(
                "SELECT h.entry_id, h.game_id, h.mu, h.sigma FROM ladder_history h "
                "JOIN ladder_entries e ON e.id = h.entry_id WHERE e.ladder_id = ? "
                "ORDER BY h.game_id, h.entry_id",
                (ladder_id,),
            )
        )

    @guarded("rating a batch")
    def save_rated(
        self,
        ladder_id: int,
        batch: int,
        skills: Mapping[int, tuple[Skill, int]],
        history: Iterable[tuple[int, int, float, float]],
        suspensions: Mapping[int, str],
    ) -> bool:
        """Write batch ``batch`` as rated: the skills of the entries it changed, its history
        rows and its suspensions, in one transaction. False (nothing written) if it was rated
        already."""
        with self.store.write() as conn:
            done = conn.execute(
                "SELECT rated FROM ladder_batches WHERE tournament_id = ?", (batch,)
            ).fetchone()
            if done is None or done[0]:
                return False
            _write_skills(conn, ladder_id, skills, history)
            now = _now()
            conn.executemany(
                "UPDATE ladder_entries SET status = ?, reason = ?, left_at = ? "
                "WHERE id = ? AND status = ?",
                [
                    (EntryStatus.SUSPENDED.value, reason, now, entry, EntryStatus.ACTIVE.value)
                    for entry, reason in suspensions.items()
                ],
            )
            conn.execute("UPDATE ladder_batches SET rated = 1 WHERE tournament_id = ?", (batch,))
        return True

    @guarded("rebuilding skills")
    def replace_skills(
        self,
        ladder_id: int,
        skills: Mapping[int, tuple[Skill, int]],
        history: Iterable[tuple[int, int, float, float]],
        rated: Sequence[int],
    ) -> None:
        """Replace the ladder's whole skill cache and history (a rebuild), marking exactly
        the batches ``rated`` as rated."""
        with self.store.write() as conn:
            conn.execute("DELETE FROM ladder_skills WHERE ladder_id = ?", (ladder_id,))
            conn.execute(
                "DELETE FROM ladder_history WHERE entry_id IN "
                "(SELECT id FROM ladder_entries WHERE ladder_id = ?)",
                (ladder_id,),
            )
            _write_skills(conn, ladder_id, skills, history)
            conn.execute("UPDATE ladder_batches SET rated = 0 WHERE ladder_id = ?", (ladder_id,))
            conn.executemany(
                "UPDATE ladder_batches SET rated = 1 WHERE tournament_id = ?",
                [(tid,) for tid in rated],
            )

    def met(self, ladder_id: int) -> Met:
        """How many tables each pair of entries (lower id first) shared, in every batch
        planned: read an entry's pairs when first asked (matchmaking asks about a batch's
        few dozen versions, however large the ladder and its history)."""
        return Met(self, ladder_id)

    @guarded("counting met pairs")
    def partners(self, ladder_id: int, entry: int) -> dict[int, int]:
        """The entries ``entry`` shared tables with, and how many."""
        return dict(
            self.db.execute(
                "SELECT b, tables FROM ladder_met WHERE ladder_id = ? AND a = ? UNION ALL "
                "SELECT a, tables FROM ladder_met WHERE ladder_id = ? AND b = ?",
                (ladder_id, entry, ladder_id, entry),
            ).fetchall()
        )


class Met(Mapping[tuple[int, int], int]):
    """The tables each pair of a ladder's entries shared, as a mapping from pairs (lower id
    first), each entry's pairs read when first asked about."""

    def __init__(self, lstore: LadderStore, ladder_id: int) -> None:
        self._lstore = lstore
        self._ladder_id = ladder_id
        self._of: dict[int, dict[int, int]] = {}

    def _partners(self, entry: int) -> dict[int, int]:
        found = self._of.get(entry)
        if found is None:
            found = self._of[entry] = self._lstore.partners(self._ladder_id, entry)
        return found

    def __getitem__(self, key: tuple[int, int]) -> int:
        count = self._partners(key[0]).get(key[1])
        if count is None:
            raise KeyError(key)
        return count

    def get(self, key: tuple[int, int], default: Any = None) -> Any:
        return self._partners(key[0]).get(key[1], default)

    def _all(self) -> dict[tuple[int, int], int]:
        return {
            (a, b): tables
            for a, b, tables in self._lstore.db.execute(
                "SELECT a, b, tables FROM ladder_met WHERE ladder_id = ?", (self._ladder_id,)
            )
        }

    def __iter__(self) -> Iterator[tuple[int, int]]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())
