"""The results database: SQLite through sqlite-utils, with migrations.

``Store`` keeps the connection, its write transactions and the raw facts: bots (and remote
bots' tokens), tournaments with their entrants and plans, played games with their actions,
seats and faults. Its parts, over the same connection and write transactions, keep the rest:

- ``store.results`` (``tournaments.store.results``): standings, head-to-head results and ratings,
  derived from the games (SQL views, and a rating cache that can be rebuilt at any time);
- ``store.processes`` (``tournaments.store.process_records``): the arena's records of every bot
  process of a run, and their audit (``shared_deal_overlaps``);
- ``store.runs`` (``tournaments.store.heartbeat``): the runs of a tournament and their heartbeats,
  so that readers tell a running tournament from a stopped one.

- ``Store.open(path)`` creates or migrates the file (see ``tournaments.store.migrations``), turns on
  WAL mode (readers never wait for the writer), ``synchronous=NORMAL`` and a busy timeout.
- ``create_tournament`` writes the whole plan in one transaction before any game is played.
- ``record_game`` writes one finished game in one transaction, and only once (with the process
  at each of its seats): a killed run loses at most the games in flight, and running the
  pending games again completes the tournament.
- Every ``sqlite3`` error becomes a one-line ``StoreError`` naming the file and what went wrong
  (not a database, corrupt, locked, unwritable...).
- No secret is stored in the database. Each tournament's secret key (which keys its deal and
  bot seeds) is kept in the key file beside the database (``arena.keys.keyfile``, ``Store.keys``);
  the database keeps only the key's public id. ``pending_games`` gives the planned games with
  their bot seeds, computed with the key.

Writes use ``BEGIN IMMEDIATE`` (``write``) rather than sqlite-utils' deferred ``atomic()``: a
transaction that reads before it writes must take the write lock first, or a concurrent writer
makes it fail at once instead of waiting out the busy timeout. One ``Store`` may be shared by
threads (calls are serialised by a lock); separate processes each open their own.
"""

from __future__ import annotations

import json
import logging
import operator
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

from arena.keys.keyfile import KeyFile
from arena.keys.seeds import bot_seeds, key_id, new_key
from arena.referee.record import Fault, FaultKind, GameRecord
from tournaments.errors import DuplicateBot, NotFound, PlanError, TournamentError
from tournaments.plans.schedule import PlannedGame, TournamentSpec, game_deal_seed
from tournaments.store.database import (
    DEFAULT_BUSY_TIMEOUT_MS,
    DEFAULT_DB,
    ENV_DB,
    connect,
    guarded,
    resolve_db_path,
    store_error,
)
from tournaments.store.heartbeat import Runs
from tournaments.store.migrations import SCHEMA_VERSION, migrate
from tournaments.store.process_records import ProcessRecords
from tournaments.store.results import Results
from tournaments.store.sqlite import Database
from tournaments.store.values import (
    BotInfo,
    BotKind,
    EntrantInfo,
    GameStatus,
    StoredGame,
    TournamentInfo,
    TournamentStatus,
    bot_name_problem,
)

__all__ = ["DEFAULT_BUSY_TIMEOUT_MS", "DEFAULT_DB", "ENV_DB", "Store", "resolve_db_path"]

log = logging.getLogger(__name__)

WAL_CHECKPOINT_PAGES = 10_000


def _now() -> datetime:
    return datetime.now(UTC)


def _stamp(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds")


_JSON = json.JSONEncoder(separators=(",", ":"))
_dumps = _JSON.encode

#: An action as the row stored in JSON: ``by`` is a str enum, so JSON writes its value
#: (``ActionRecord.from_list`` reads it back).
_action_row = operator.attrgetter("step", "seat", "action", "by", "think_us")


class Store:
    """An open results database. Use ``Store.open(path)``; close it (or use ``with``).

    ``results``, ``processes`` and ``runs`` are its parts (see the module's docstring)."""

    def __init__(self, db: Database, path: str, keys: KeyFile | None = None) -> None:
        self.db = db
        self.path = path
        self.keys = keys or KeyFile.beside(path)
        self._lock = threading.RLock()
        self._bots_of: dict[int, dict[str, str]] = {}
        self.results = Results(self)
        self.processes = ProcessRecords(self)
        self.runs = Runs(self)

    # -- opening ---------------------------------------------------------------------------

    @classmethod
    def open(
        cls, path: str | os.PathLike[str], *, busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS
    ) -> Store:
        """Open (creating or migrating) the database at ``path``. Raises StoreError."""
        name = os.fspath(path)
        keys = KeyFile.beside(name)
        conn = connect(name, busy_timeout_ms)
        try:
            db = Database(conn, execute_plugins=False)
            # Reading the version first detects a file that is not a database, and a newer
            # schema, before anything (journal mode included) is changed.
            migrate_from = db.execute("PRAGMA user_version").fetchone()[0]
            if migrate_from <= SCHEMA_VERSION and name != ":memory:":
                conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            # Checkpoint (and fsync) every ~40 MB of log rather than every 4 MB.
            conn.execute(f"PRAGMA wal_autocheckpoint={WAL_CHECKPOINT_PAGES}")
            conn.execute("PRAGMA foreign_keys=ON")
            old = migrate(db, path=name, keys=keys)
            if old and old < SCHEMA_VERSION:
                log.info("migrated %s from schema version %d to %d", name, old, SCHEMA_VERSION)
                # the log may still hold pages of what the migration removed (secrets)
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error as exc:
            conn.close()
            raise store_error(name, exc, "opening") from exc
        except BaseException:
            conn.close()
            raise
        return cls(db, name, keys)

    def close(self) -> None:
        with self._lock:
            self.db.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (BEGIN IMMEDIATE ... COMMIT, rolled back on any error)."""
        conn = self.db.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        try:
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    def _entrant_bots(self, tid: int) -> dict[str, str]:
        """Entrant name → bot name (entrants never change once a tournament is planned)."""
        found = self._bots_of.get(tid)
        if found is None:
            found = self._bots_of[tid] = dict(
                self.db.execute(
                    "SELECT label, bot FROM entrants WHERE tournament_id = ?", (tid,)
                ).fetchall()
            )
        return found

    def _one(self, sql: str, params: Sequence[Any] = ()) -> dict[str, Any] | None:
        return next(self.db.query(sql, params), None)

    # -- bots ------------------------------------------------------------------------------

    @guarded("adding a bot")
    def add_bot(
        self,
        name: str,
        command: str,
        *,
        kind: BotKind = BotKind.REGISTERED,
        version: str = "",
        path: str | None = None,
        games: Sequence[str] = (),
        replace: bool = False,
        digest: str | None = None,
        files: Sequence[tuple[str, str]] | None = None,
        uploaded: bool = False,
    ) -> BotInfo:
        """Register a bot: its command line as text, the folder it was registered from (or
        None), the games it plays, and what its version runs (``digest``: the arena's copy of a
        folder bot; ``files``: the files a command bot's command names, with their SHA-256).
        The version is kept among the bot's versions (``bot_version``); ``uploaded`` marks it
        as code a participant uploaded, for good (a version once marked stays so). Raises
        DuplicateBot unless ``replace`` (which keeps its count of games played and its date
        added)."""
        problem = bot_name_problem(name)
        if problem is not None:
            raise TournamentError(problem)
        kind = BotKind(kind)
        files_json = None if files is None else _dumps([list(pair) for pair in files])
        now = _stamp(_now())
        with self.write() as conn:
            old = conn.execute(
                "SELECT played, added_at FROM bots WHERE name = ?", (name,)
            ).fetchone()
            if old and not replace:
                raise DuplicateBot(f"a bot named {name!r} is already registered")
            played, added = old if old else (0, now)
            conn.execute(
                "INSERT INTO bot_versions (bot, version, command, path, digest, files, games, "
                "added_at, uploaded) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (bot, version) "
                "DO UPDATE SET command = excluded.command, path = excluded.path, "
                "digest = excluded.digest, files = excluded.files, games = excluded.games, "
                "uploaded = MAX(uploaded, excluded.uploaded)",
                (name, version, command, path, digest, files_json, _dumps(list(games)), now,
                 int(uploaded)),
            )  # fmt: skip
            (uploaded,) = conn.execute(
                "SELECT uploaded FROM bot_versions WHERE bot = ? AND version = ?", (name, version)
            ).fetchone()
            conn.execute(
                "INSERT OR REPLACE INTO bots (name, command, path, kind, version, games, played, "
                "added_at, digest, files, uploaded) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (name, command, path, kind.value, version, _dumps(list(games)), played, added,
                 digest, files_json, uploaded),
            )  # fmt: skip
        return BotInfo(
            name=name,
            command=command,
            path=path,
            kind=kind,
            version=version,
            games=tuple(games),
            played=played,
            added_at=added,
            digest=digest,
            files=None if files is None else tuple((p, h) for p, h in files),
            uploaded=bool(uploaded),
        )

    @guarded("listing bot versions")
    def bot_versions(self) -> list[BotInfo]:
        """Every version of every bot ever registered here (removed bots' too), oldest first:
        what each ran (``played`` is 0, ``added_at`` when that version was registered)."""
        return [
            BotInfo.from_row({**row, "name": row["bot"], "kind": BotKind.REGISTERED, "played": 0})
            for row in self.db.query("SELECT * FROM bot_versions ORDER BY added_at, bot")
        ]

    @guarded("reading a bot")
    def get_bot(self, name: str) -> BotInfo:
        row = self._one("SELECT * FROM bots WHERE name = ?", (name,))
        if row is None:
            raise NotFound(f"no bot named {name!r} is registered")
        return BotInfo.from_row(row)

    @guarded("listing bots")
    def list_bots(self) -> list[BotInfo]:
        return [BotInfo.from_row(row) for row in self.db.query("SELECT * FROM bots ORDER BY name")]

    @guarded("removing a bot")
    def remove_bot(self, name: str) -> None:
        """Unregister a bot; its past tournaments keep its name and version."""
        with self.write() as conn:
            if not conn.execute("DELETE FROM bots WHERE name = ?", (name,)).rowcount:
                raise NotFound(f"no bot named {name!r} is registered")

    # -- remote bots' tokens (``tournaments.catalogue.remote``: only hashes are stored)
    # --------------

    @guarded("storing a remote bot token")
    def add_token(
        self, digest: str, bot: str, client_key: str | None, *, created_at: str, expires_at: str
    ) -> None:
        with self.write() as conn:
            conn.execute(
                "INSERT INTO remote_tokens (token_hash, bot, client_key, created_at, "
                "expires_at) VALUES (?, ?, ?, ?, ?)",
                (digest, bot, client_key, created_at, expires_at),
            )

    @guarded("claiming a remote bot token")
    def claim_token(
        self, digest: str, client_key: str | None, *, now: str, command: str
    ) -> str | None:
        """Mark an unused, unexpired token of a bot registered with ``command`` used, in one
        UPDATE (single use, even across processes); the bot's name, or None."""
        with self.write() as conn:
            if not conn.execute(
                "UPDATE remote_tokens SET used_at = ? WHERE token_hash = ? AND used_at IS "
                "NULL AND expires_at > ? AND client_key IS ? AND bot IN "
                "(SELECT name FROM bots WHERE command = ?)",
                (now, digest, now, client_key, command),
            ).rowcount:
                return None
            return conn.execute(
                "SELECT bot FROM remote_tokens WHERE token_hash = ?", (digest,)
            ).fetchone()[0]

    @guarded("checking a remote bot's key")
    def token_key_allowed(self, client_key: str, *, now: str) -> bool:
        """Whether an unused, unexpired token was issued with CURVE key ``client_key``."""
        return (
            self.db.execute(
                "SELECT 1 FROM remote_tokens WHERE client_key = ? AND used_at IS NULL "
                "AND expires_at > ?",
                (client_key, now),
            ).fetchone()
            is not None
        )

    # -- tournaments -----------------------------------------------------------------------

    @guarded("creating a tournament")
    def create_tournament(
        self,
        spec: TournamentSpec,
        planned_games: Sequence[PlannedGame],
        entrant_bots: Mapping[str, tuple[str, str]],
        *,
        key: bytes,
        then: Callable[[sqlite3.Connection, int], None] | None = None,
        draw: Sequence[str] | None = None,
    ) -> int:
        """Write a tournament and its whole plan in one transaction; return its id.

        ``entrant_bots`` maps each entrant label to ``(bot name, bot version)``; ``key`` is the
        secret key the plan was made with: it goes to the key file (before the transaction
        commits), the database keeps only its public id. ``then`` is called with the
        connection and the new id inside the transaction (a ladder records its batch there:
        both are written, or neither). ``draw`` is the draw of a tournament played in rounds
        (``tournaments.plans.schedule.draw``).
        """
        entrants = spec.entrants
        if set(entrant_bots) != set(entrants):
            raise PlanError(f"entrant_bots must name exactly the entrants {', '.join(entrants)}")
        if (draw is not None) != spec.kind.in_rounds or sorted(draw or entrants) != sorted(
            entrants
        ):
            raise PlanError("a tournament played in rounds (and only one) has a draw of them all")
        for game in planned_games:
            if not set(game.seating) <= set(entrant_bots):
                raise PlanError(f"planned game {game.index} seats unknown entrants")
        first = planned_games[0] if planned_games else None
        if first and first.deal_seed != game_deal_seed(
            key, spec.seed, first.repetition, first.table, first.rotation, spec.deals
        ):
            raise PlanError(f"the plan was not made with this key and {spec.deals} deals")
        with self.write() as conn:
            cursor = conn.execute(
                "INSERT INTO tournaments (game, options, table_size, rounds, seed, move_ms, "
                "created_at, status, key_id, kind, gauntlet, deals, per_entrant, round_count, "
                "advance, draw) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    spec.game,
                    _dumps(dict(spec.options)),
                    spec.table_size,
                    spec.repetitions,
                    spec.seed,
                    spec.move_ms,
                    _stamp(_now()),
                    TournamentStatus.PLANNED.value,
                    key_id(key),
                    spec.kind.value,
                    spec.gauntlet,
                    spec.deals.value,
                    spec.per_entrant,
                    spec.rounds,
                    spec.advance,
                    None if draw is None else _dumps(list(draw)),
                ),
            )
            tid = int(cursor.lastrowid or 0)
            conn.executemany(
                "INSERT INTO entrants (tournament_id, label, position, bot, bot_version) "
                "VALUES (?, ?, ?, ?, ?)",
                [(tid, name, pos, *entrant_bots[name]) for pos, name in enumerate(entrants)],
            )
            _insert_games(conn, tid, planned_games)
            if then is not None:
                then(conn, tid)
            self.keys.add_tournament_key(key, tid)
        log.info("tournament %d planned: %d games", tid, len(planned_games))
        return tid

    @guarded("reading a tournament's draw")
    def tournament_draw(self, tid: int) -> tuple[str, ...]:
        """The draw of tournament ``tid``, played in rounds (its entrants in the order its first
        round and last tie-breaks follow). Raises PlanError for another kind."""
        text = self.tournament_row(tid).get("draw")
        if not text:
            raise PlanError(f"tournament {tid} is not played in rounds: it has no draw")
        return tuple(json.loads(text))

    @guarded("planning a round")
    def add_round(
        self, tid: int, number: int, planned_games: Sequence[PlannedGame], *, key: bytes
    ) -> bool:
        """Write round ``number`` (from 0) of tournament ``tid``, played in rounds, in one
        transaction: its games, numbered on from the plan's last. Every game before must be
        played. Returns False (and writes nothing) if the round is planned already (by another
        run meanwhile). Raises PlanError for a round that does not follow the plan."""
        info = self.tournament(tid)
        spec = info.spec
        if not spec.kind.in_rounds or spec.rounds is None:
            raise PlanError(f"tournament {tid} is not played in rounds")
        if not 0 < number < spec.rounds:
            raise PlanError(f"tournament {tid} has rounds 1-{spec.rounds}, not {number + 1}")
        if not planned_games or any(
            g.repetition // spec.repetitions != number for g in planned_games
        ):
            raise PlanError(f"the games given are not all of round {number + 1}")
        names = set(spec.entrants)
        first = planned_games[0]
        if any(not set(g.seating) <= names for g in planned_games):
            raise PlanError(f"round {number + 1} seats unknown entrants")
        if key_id(key) != self.tournament_row(tid).get("key_id") or (
            first.deal_seed
            != game_deal_seed(
                key, spec.seed, first.repetition, first.table, first.rotation, spec.deals
            )
        ):
            raise PlanError("the round was not planned with the tournament's key")
        with self.write() as conn:
            (status,) = conn.execute(
                "SELECT status FROM tournaments WHERE id = ?", (tid,)
            ).fetchone()
            if TournamentStatus(status).finished:
                raise PlanError(f"tournament {tid} is {status}: it plays no more rounds")
            last, pending, top = conn.execute(
                "SELECT MAX(round), SUM(status = ?), MAX(plan_index) FROM games "
                "WHERE tournament_id = ?",
                (GameStatus.PENDING.value, tid),
            ).fetchone()
            planned = -1 if last is None else last // spec.repetitions
            if planned >= number:
                return False
            if planned != number - 1 or pending:
                raise PlanError(
                    f"round {number + 1} of tournament {tid} follows round {number} once it is "
                    "complete"
                )
            if first.index != (-1 if top is None else top) + 1:
                raise PlanError(f"round {number + 1}'s games are numbered from {top + 1}")
            _insert_games(conn, tid, planned_games)
            conn.execute(
                "UPDATE tournaments SET status = ? WHERE id = ?",
                (TournamentStatus.IN_PROGRESS.value, tid),
            )
        log.info("tournament %d: round %d planned, %d games", tid, number + 1, len(planned_games))
        return True

    def tournament_row(self, tid: int) -> dict[str, Any]:
        """Tournament ``tid``'s row (as a dict). Raises NotFound."""
        row = self._one("SELECT * FROM tournaments WHERE id = ?", (tid,))
        if row is None:
            raise NotFound(f"no tournament {tid} in {self.path}")
        return row

    def _info(self, row: dict[str, Any]) -> TournamentInfo:
        tid = row["id"]
        entrants = tuple(
            EntrantInfo(name=e["label"], bot=e["bot"], version=e["bot_version"])
            for e in self.db.query(
                "SELECT * FROM entrants WHERE tournament_id = ? ORDER BY position", (tid,)
            )
        )
        counts = {
            status: n
            for status, n in self.db.execute(
                "SELECT status, COUNT(*) FROM games WHERE tournament_id = ? GROUP BY status", (tid,)
            ).fetchall()
        }
        return TournamentInfo.from_row(
            row,
            entrants=entrants,
            games_done=counts.get(GameStatus.DONE.value, 0),
            games_total=sum(counts.values()),
        )

    @guarded("reading a tournament")
    def tournament(self, tid: int) -> TournamentInfo:
        return self._info(self.tournament_row(tid))

    @guarded("listing tournaments")
    def list_tournaments(self) -> list[TournamentInfo]:
        return [self._info(row) for row in self.db.query("SELECT * FROM tournaments ORDER BY id")]

    @guarded("reading tournaments of a bot")
    def unfinished_with_other_version(self, bot: str, version: str) -> list[tuple[int, str]]:
        """The unfinished tournaments (a game still to play) planned with another version of
        ``bot`` than ``version``: (tournament id, that version), by id."""
        return self.db.execute(
            "SELECT DISTINCT e.tournament_id, e.bot_version FROM entrants e JOIN tournaments t "
            "ON t.id = e.tournament_id WHERE e.bot = ? AND e.bot_version != ? AND (t.status "
            "NOT IN (?, ?) OR EXISTS (SELECT 1 FROM games g WHERE g.tournament_id = t.id AND "
            "g.status = ?)) ORDER BY e.tournament_id",
            (
                bot,
                version,
                TournamentStatus.DONE.value,
                TournamentStatus.CANCELLED.value,
                GameStatus.PENDING.value,
            ),
        ).fetchall()

    @guarded("cancelling a tournament")
    def cancel(self, tid: int) -> int:
        """Give up tournament ``tid`` for good: its games played are kept, its pending ones
        dropped, and it is ``cancelled``; how many games were dropped. Raises TournamentError
        for a tournament that is finished already."""
        with self.write() as conn:
            row = conn.execute("SELECT status FROM tournaments WHERE id = ?", (tid,)).fetchone()
            if row is None:
                raise NotFound(f"no tournament {tid}")
            if TournamentStatus(row[0]).finished:
                raise TournamentError(f"tournament {tid} is {row[0]} already: nothing to cancel")
            dropped = conn.execute(
                "DELETE FROM games WHERE tournament_id = ? AND status = ?",
                (tid, GameStatus.PENDING.value),
            ).rowcount
            conn.execute(
                "UPDATE tournaments SET status = ? WHERE id = ?",
                (TournamentStatus.CANCELLED.value, tid),
            )
        return dropped

    @guarded("reading a tournament's key")
    def tournament_key(self, tid: int) -> bytes:
        """The secret key of tournament ``tid``, from the key file. Raises MissingKey.

        A tournament planned before keys existed gets one now (its plan, hence its deals,
        stays as it was planned; from now on its bot seeds are keyed)."""
        ident = self.tournament_row(tid).get("key_id")
        if ident:
            return self.keys.tournament_key(ident, tid)
        key = new_key()
        with self.write() as conn:
            if conn.execute("SELECT key_id FROM tournaments WHERE id = ?", (tid,)).fetchone()[0]:
                return self.tournament_key(tid)  # another process made one meanwhile
            self.keys.add_tournament_key(key, tid)
            conn.execute("UPDATE tournaments SET key_id = ? WHERE id = ?", (key_id(key), tid))
        log.warning(
            "tournament %d was planned before secret keys: its deals (planned then) "
            "and the bot seeds of its games already played used the old, public "
            "derivation; its remaining games' bot seeds use a new key in %s. Create a "
            "new tournament for deals no bot can predict",
            tid,
            self.keys.path,
        )
        return key

    @guarded("saving a match's state")
    def set_sprt(self, tid: int, data: Mapping[str, Any], *, decided: bool = False) -> None:
        """Store a match's SPRT settings and, once ``decided``, its result (JSON); a decided
        match is done and its plan keeps what was played: the games it will never play are
        dropped, and its repetitions are the deals it played (some perhaps in part), so that
        its progress and plan say what the match did."""
        self.tournament_row(tid)
        with self.write() as conn:
            conn.execute("UPDATE tournaments SET sprt = ? WHERE id = ?", (_dumps(dict(data)), tid))
            if decided:
                conn.execute(
                    "DELETE FROM games WHERE tournament_id = ? AND status = ?",
                    (tid, GameStatus.PENDING.value),
                )
                conn.execute(
                    "UPDATE tournaments SET status = ?, rounds = (SELECT COUNT(DISTINCT round) "
                    "FROM games WHERE tournament_id = ?) WHERE id = ?",
                    (TournamentStatus.DONE.value, tid, tid),
                )

    @guarded("reading a match's state")
    def sprt(self, tid: int) -> dict[str, Any] | None:
        """A match's SPRT settings and result, as ``set_sprt`` stored them (None: not a match)."""
        text = self.tournament_row(tid).get("sprt")
        return json.loads(text) if text else None

    @guarded("reading the plan")
    def pending_games(self, tid: int) -> list[tuple[int, PlannedGame]]:
        """The games not yet played, in plan order, as ``(game_id, PlannedGame)``, with their
        bot seeds (computed with the tournament's key: raises MissingKey without it)."""
        key = self.tournament_key(tid)
        rows = self.db.execute(
            "SELECT id, plan_index, round, table_index, rotation, deal_seed, seating FROM games "
            "WHERE tournament_id = ? AND status = ? ORDER BY plan_index",
            (tid, GameStatus.PENDING.value),
        ).fetchall()
        seeds: dict[tuple[int, int], tuple[int, ...]] = {}
        games = []
        for gid, index, round_, table, rotation, seed, seating_json in rows:
            seating = tuple(json.loads(seating_json))
            found = seeds.get((seed, len(seating)))
            if found is None:
                found = seeds[seed, len(seating)] = bot_seeds(key, seed, len(seating))
            games.append(
                (
                    gid,
                    PlannedGame(
                        index=index,
                        repetition=round_,
                        table=table,
                        rotation=rotation,
                        deal_seed=seed,
                        seating=seating,
                        seat_seeds=found,
                    ),
                )
            )
        return games

    # -- games -----------------------------------------------------------------------------

    @guarded("recording a game")
    def record_game(
        self,
        game_id: int,
        record: GameRecord,
        *,
        finished_at: datetime | None = None,
        processes: Sequence[str | None] = (),
    ) -> bool:
        """Store one finished game in one transaction, with the process (token) at each of
        its seats if given. Returns False (and writes nothing) if the game was already
        recorded. Raises NotFound, or TournamentError if ``record`` does not fit the planned
        game (game, deal seed or number of seats)."""
        with self.write() as conn:
            if not self._record(conn, game_id, record, finished_at or _now()):
                return False
            conn.executemany(
                "INSERT OR REPLACE INTO process_games (game_id, seat, process) VALUES (?, ?, ?)",
                [(game_id, seat, t) for seat, t in enumerate(processes) if t is not None],
            )
            return True

    @guarded("recording games")
    def record_games(self, items: Iterable[tuple[int, GameRecord]]) -> int:
        """Store many finished games in ONE transaction (imports, benchmarks); all or none.

        The runner records each game on its own with ``record_game``. Returns how many games
        were new."""
        finished = _now()
        with self.write() as conn:
            return sum(self._record(conn, game_id, record, finished) for game_id, record in items)

    def _record(
        self, conn: sqlite3.Connection, game_id: int, record: GameRecord, finished: datetime
    ) -> bool:
        started = finished - timedelta(milliseconds=record.wall_ms)
        row = conn.execute(
            "SELECT g.tournament_id, g.status, g.deal_seed, g.seating, t.game "
            "FROM games g JOIN tournaments t ON t.id = g.tournament_id WHERE g.id = ?",
            (game_id,),
        ).fetchone()
        if row is None:
            raise NotFound(f"no game {game_id} in {self.path}")
        tid, status, seed, seating_json, game_name = row
        if status == GameStatus.DONE.value:
            log.warning("game %d is already recorded; ignoring the new record", game_id)
            return False
        seating = json.loads(seating_json)
        if (record.game, record.seed, record.players) != (game_name, seed, len(seating)):
            raise TournamentError(
                f"record of {record.game} seed {record.seed} with {record.players} seats "
                f"does not fit game {game_id} ({game_name} seed {seed}, {len(seating)} seats)"
            )
        conn.execute(
            "UPDATE games SET status = ?, started_at = ?, finished_at = ?, wall_ms = ?, "
            "actions = ?, outcome = ?, forfeits = ? WHERE id = ?",
            (
                GameStatus.DONE.value,
                _stamp(started),
                _stamp(finished),
                record.wall_ms,
                _dumps([_action_row(a) for a in record.actions]),
                _dumps(
                    {
                        "scores": list(record.scores),
                        "game_places": list(record.game_places),
                        "places": list(record.places),
                    }
                ),
                _dumps(list(record.forfeits)),
                game_id,
            ),
        )
        conn.executemany(
            "INSERT INTO seats (game_id, seat, tournament_id, entrant, place, score, "
            "think_us, decisions, faults, forfeited) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            _seat_rows(game_id, tid, seating, record),
        )
        if record.faults:
            conn.executemany(
                "INSERT INTO faults (game_id, seat, step, kind, detail) VALUES (?, ?, ?, ?, ?)",
                _fault_rows(game_id, record),
            )
        bots = self._entrant_bots(tid)
        conn.executemany(
            "UPDATE bots SET played = played + 1 WHERE name = ?",
            [(bot,) for bot in {bots[label] for label in seating}],
        )
        left = conn.execute(
            "SELECT 1 FROM games WHERE tournament_id = ? AND status = ? LIMIT 1",
            (tid, GameStatus.PENDING.value),
        ).fetchone() or _rounds_to_plan(conn, tid)
        new_status = TournamentStatus.IN_PROGRESS if left else TournamentStatus.DONE
        conn.execute(
            "UPDATE tournaments SET status = ? WHERE id = ? AND status != ?",
            (new_status.value, tid, new_status.value),
        )
        return True

    @guarded("reading a game")
    def game(self, game_id: int) -> StoredGame:
        """Everything needed to replay a game (and its result, if it was played)."""
        row = self._one(
            "SELECT g.*, t.game, t.options FROM games g JOIN tournaments t "
            "ON t.id = g.tournament_id WHERE g.id = ?",
            (game_id,),
        )
        if row is None:
            raise NotFound(f"no game {game_id} in {self.path}")
        bots = self._entrant_bots(row["tournament_id"])
        faults = tuple(
            Fault(seat=seat, step=step, kind=FaultKind(kind), detail=detail)
            for seat, step, kind, detail in self.db.execute(
                "SELECT seat, step, kind, detail FROM faults WHERE game_id = ? ORDER BY id",
                (game_id,),
            ).fetchall()
        )
        seats = list(
            self.db.query("SELECT * FROM seats WHERE game_id = ? ORDER BY seat", (game_id,))
        )
        return StoredGame.from_row(row, bots=bots, seats=seats, faults=faults)


def _insert_games(conn: sqlite3.Connection, tid: int, planned_games: Iterable[PlannedGame]) -> None:
    conn.executemany(
        "INSERT INTO games (tournament_id, plan_index, round, table_index, rotation, "
        "deal_seed, seating) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            (tid, g.index, g.repetition, g.table, g.rotation, g.deal_seed, _dumps(g.seating))
            for g in planned_games
        ),
    )


def _rounds_to_plan(conn: sqlite3.Connection, tid: int) -> bool:
    """Whether tournament ``tid`` is played in rounds and has rounds still to plan (it is not
    done before they are played)."""
    count, repetitions, last = conn.execute(
        "SELECT round_count, rounds, (SELECT MAX(round) FROM games WHERE tournament_id = ?) "
        "FROM tournaments WHERE id = ?",
        (tid, tid),
    ).fetchone()
    return bool(count) and last is not None and last // repetitions + 1 < count


def _seat_rows(
    game_id: int, tid: int, seating: Sequence[str], record: GameRecord
) -> Iterator[tuple[Any, ...]]:
    faults = [0] * record.players
    for fault in record.faults:
        if 0 <= fault.seat < record.players:
            faults[fault.seat] += 1
    forfeits = set(record.forfeits)
    for seat, label in enumerate(seating):
        yield (
            game_id,
            seat,
            tid,
            label,
            record.places[seat],
            record.scores[seat],
            record.think_us[seat],
            record.decisions[seat],
            faults[seat],
            int(seat in forfeits),
        )


def _fault_rows(game_id: int, record: GameRecord) -> Iterator[tuple[Any, ...]]:
    for fault in record.faults:
        yield (game_id, fault.seat, fault.step, fault.kind.value, fault.detail)
