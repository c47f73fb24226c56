"""The results database schema, as an ordered list of migrations.

``PRAGMA user_version`` holds the number of migrations applied. Opening a database applies the
missing ones in order inside one write transaction; a database whose version is newer than
``SCHEMA_VERSION`` is refused (an older arena must not write to it).

Version 1 holds the raw facts: bots, tournaments, entrants, games (with their compact action
lists and outcomes), seats and faults. Version 2 adds what is derived from them and can be
rebuilt at any time: ratings, rating history, and views (``standings``, ``head_to_head``,
``rankings``) that make the file read well in Datasette. Version 3 adds remote bots' tokens
(hashed) and the arena's CURVE keys (``tournaments.catalogue.remote``). Version 4 takes every secret
out: the CURVE key pair moves to the key file beside the database (``arena.keys.keyfile``), and
tournaments get the public id of their secret key, which lives in that file too. Version 5
writes the Skyjo options added later (``doubling``, ``discard_flip``) into older Skyjo
tournaments, with the values they were played under; version 6 names the revealed bill of
older skull-bank showdowns by its position; version 7 adds tournament kinds (gauntlets,
matches); version 8 drops the ``head_to_head`` and ``rankings`` views, which nothing read;
version 9 records the code each bot version runs (the arena's copy of a folder bot, the files
a command bot's command names) and keeps every version registered; version 10 adds the
standing ladders; version 11 the runs' heartbeats (``tournaments.store.heartbeat``); version 12 the
arena's process records: every bot process of a run (its entrant, run, phase, host, pid, start
and end) and the process at each seat of each game; version 13 the games a run is playing
(``runs.in_play``, written with its heartbeat); version 14 how a tournament deals (``deals``:
``duplicate``, as every older tournament was planned, or ``independent``); version 15 marks
the bot versions a participant uploaded (``uploaded``: that code runs only in the sandbox,
wherever it is entered); version 16 the formats of large fields
(``tournaments.plans``): a balanced tournament's tables per entrant (``per_entrant``), a Swiss
tournament's or a knockout's number of rounds (``round_count``: the older ``rounds`` column
holds the repetitions), a knockout's number going on from each table (``advance``), and the
draw of a tournament played in rounds (``draw``: its entrants in the random order its first round
and last tie-breaks follow, JSON).

A migration gets the database and its key file (for secrets, which never go in the database).

To change the schema, append a function to ``MIGRATIONS``; never edit one that has shipped.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable

from arena.keys.keyfile import KeyFile
from tournaments.errors import StoreError
from tournaments.store.sqlite import Database

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "migrate", "user_version"]

log = logging.getLogger(__name__)


def _raw_facts(db: Database, keys: KeyFile) -> None:
    """Version 1: bots, tournaments, entrants, games, seats, faults."""
    # games: JSON list of the games the bot plays; played: games it has played here.
    db["bots"].create(
        {
            "name": str,
            "command": str,
            "path": str,
            "kind": str,
            "version": str,
            "games": str,
            "played": int,
            "added_at": str,
        },
        pk="name",
        not_null={"command", "kind", "version", "games", "played", "added_at"},
        defaults={"kind": "registered", "version": "", "games": "[]", "played": 0},
    )
    db["tournaments"].create(
        {
            "id": int,
            "game": str,
            "options": str,
            "table_size": int,
            "rounds": int,
            "seed": int,
            "move_ms": int,
            "created_at": str,
            "status": str,
        },
        pk="id",
        not_null={
            "game",
            "options",
            "table_size",
            "rounds",
            "seed",
            "move_ms",
            "created_at",
            "status",
        },
        defaults={"status": "planned"},
    )
    db["entrants"].create(
        {"tournament_id": int, "label": str, "position": int, "bot": str, "bot_version": str},
        pk=("tournament_id", "label"),
        not_null={"position", "bot", "bot_version"},
        foreign_keys=[("tournament_id", "tournaments", "id")],
    )
    db["games"].create(
        {
            "id": int,
            "tournament_id": int,
            "plan_index": int,
            "round": int,
            "table_index": int,
            "rotation": int,
            "deal_seed": int,
            "seating": str,
            "status": str,
            "started_at": str,
            "finished_at": str,
            "wall_ms": float,
            "actions": str,
            "outcome": str,
            "forfeits": str,
        },
        pk="id",
        not_null={
            "tournament_id",
            "plan_index",
            "round",
            "table_index",
            "rotation",
            "deal_seed",
            "seating",
            "status",
        },
        defaults={"status": "pending"},
        foreign_keys=[("tournament_id", "tournaments", "id")],
    )
    db["games"].create_index(["tournament_id", "plan_index"], unique=True)
    db["games"].create_index(["tournament_id", "status"])
    db["seats"].create(
        {
            "game_id": int,
            "seat": int,
            "tournament_id": int,
            "entrant": str,
            "place": int,
            "score": float,
            "think_us": int,
            "decisions": int,
            "faults": int,
            "forfeited": int,
        },
        pk=("game_id", "seat"),
        not_null={
            "tournament_id",
            "entrant",
            "place",
            "score",
            "think_us",
            "decisions",
            "faults",
            "forfeited",
        },
        foreign_keys=[("game_id", "games", "id"), ("tournament_id", "tournaments", "id")],
    )
    db["seats"].create_index(["tournament_id", "entrant"])
    db["faults"].create(
        {"id": int, "game_id": int, "seat": int, "step": int, "kind": str, "detail": str},
        pk="id",
        not_null={"game_id", "seat", "step", "kind", "detail"},
        foreign_keys=[("game_id", "games", "id")],
    )
    db["faults"].create_index(["game_id"])


def _derived(db: Database, keys: KeyFile) -> None:
    """Version 2: ratings and rating history (rebuildable), and the reading views."""
    db["ratings"].create(
        {
            "tournament_id": int,
            "method": str,
            "entrant": str,
            "rating": float,
            "lo": float,
            "hi": float,
            "games": int,
        },
        pk=("tournament_id", "method", "entrant"),
        not_null={"rating", "games"},
        foreign_keys=[("tournament_id", "tournaments", "id")],
    )
    # One row per entrant per game: WITHOUT ROWID (sqlite-utils cannot say so) stores it in its
    # key's own B-tree, a third faster to rewrite on every rebuild.
    db.execute("""
        CREATE TABLE rating_history (
            tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
            game_index INTEGER NOT NULL,
            entrant TEXT NOT NULL,
            rating REAL NOT NULL,
            PRIMARY KEY (tournament_id, game_index, entrant)
        ) WITHOUT ROWID""")
    db.create_view(
        "standings",
        """
        SELECT e.tournament_id, e.label AS entrant, e.bot, e.bot_version,
               COUNT(s.game_id) AS games,
               COALESCE(SUM(s.place = 1), 0) AS wins,
               ROUND(AVG(s.place), 3) AS mean_place,
               ROUND(AVG(s.score), 3) AS mean_score,
               COALESCE(SUM(s.faults), 0) AS faults,
               COALESCE(SUM(s.forfeited), 0) AS forfeits
        FROM entrants e
        LEFT JOIN seats s ON s.tournament_id = e.tournament_id AND s.entrant = e.label
        GROUP BY e.tournament_id, e.label""",
    )
    db.create_view(
        "head_to_head",
        """
        SELECT a.tournament_id, a.entrant, b.entrant AS opponent, COUNT(*) AS played,
               SUM(a.place < b.place) AS wins, SUM(a.place = b.place) AS draws,
               SUM(a.place > b.place) AS losses,
               ROUND(100.0 * (SUM(a.place < b.place) + 0.5 * SUM(a.place = b.place))
                     / COUNT(*), 1) AS score_pct
        FROM seats a JOIN seats b ON b.game_id = a.game_id AND b.seat != a.seat
        GROUP BY a.tournament_id, a.entrant, b.entrant""",
    )
    db.create_view(
        "rankings",
        """
        SELECT s.*, r.rating AS elo, r.lo AS elo_lo, r.hi AS elo_hi, i.rating AS elo_incremental
        FROM standings s
        LEFT JOIN ratings r ON r.tournament_id = s.tournament_id AND r.entrant = s.entrant
             AND r.method = 'mle'
        LEFT JOIN ratings i ON i.tournament_id = s.tournament_id AND i.entrant = s.entrant
             AND i.method = 'elo'
        ORDER BY s.tournament_id, r.rating DESC""",
    )


def _remote(db: Database, keys: KeyFile) -> None:
    """Version 3: remote bots' single-use tokens (only their SHA-256 is kept, with the CURVE
    public key issued with each, if any) and the arena's own CURVE key pair."""
    db.execute("""
        CREATE TABLE remote_tokens (
            token_hash TEXT PRIMARY KEY,
            bot TEXT NOT NULL,
            client_key TEXT,
            created_at TEXT NOT NULL,
            expires_at TEXT NOT NULL,
            used_at TEXT
        )""")
    db.execute("CREATE INDEX remote_tokens_client_key ON remote_tokens (client_key)")
    db.execute("""
        CREATE TABLE arena_keys (
            name TEXT PRIMARY KEY,
            public TEXT NOT NULL,
            secret TEXT NOT NULL
        )""")


def _secrets_out(db: Database, keys: KeyFile) -> None:
    """Version 4: no secret in the database. The arena's CURVE key pair moves from
    ``arena_keys`` to the key file, and the table is dropped with its pages overwritten with
    zeros (``Store.open`` then empties the write-ahead log). Tournaments get ``key_id``, the
    public id of their secret key (NULL for those planned before: see
    ``Store.tournament_key``)."""
    conn = db.conn
    row = conn.execute("SELECT public, secret FROM arena_keys WHERE name = 'curve'").fetchone()
    if row is not None:
        keys.set_curve_pair(row[0], row[1])
        log.info("moved the arena's CURVE key pair out of the database into %s", keys.path)
    secure = conn.execute("PRAGMA secure_delete").fetchone()[0]
    conn.execute("PRAGMA secure_delete = ON")
    try:
        conn.execute("DELETE FROM arena_keys")
        conn.execute("DROP TABLE arena_keys")
    finally:
        conn.execute(f"PRAGMA secure_delete = {int(secure)}")
    conn.execute("ALTER TABLE tournaments ADD COLUMN key_id TEXT")


def _skyjo_rules_options(db: Database, keys: KeyFile) -> None:
    """Version 5: Skyjo tournaments planned before the ``doubling`` and ``discard_flip`` options
    existed
    were played under the manual's doubling and a mandatory turn after a discard: their stored
    options say so, so that their games replay as they were played."""
    rows = db.execute("SELECT id, options FROM tournaments WHERE game = 'skyjo'").fetchall()
    for tid, text in rows:
        options = json.loads(text)
        options.setdefault("doubling", "manual")
        options.setdefault("discard_flip", "mandatory")
        db.execute(
            "UPDATE tournaments SET options = ? WHERE id = ?",
            (json.dumps(options, separators=(",", ":")), tid),
        )


def _skull_bank_named_bills(db: Database, keys: KeyFile) -> None:
    """Version 6: skull-bank showdowns name a bill by owner and position (``reveal:SEAT,POS``): the
    dealer
    may reveal any face-down bill. Games stored before named only the row (``reveal:SEAT``,
    always its top face-down bill); they are rewritten with the position that was revealed, so
    they replay as they were played."""
    from arena.games import get_game

    rows = db.execute(
        "SELECT g.id, g.deal_seed, g.seating, g.actions, t.options FROM games g "
        "JOIN tournaments t ON t.id = g.tournament_id "
        "WHERE t.game = 'skull-bank' AND g.actions LIKE '%reveal:%'"
    ).fetchall()
    game = get_game("skull-bank")
    for game_id, seed, seating, text, options in rows:
        actions = json.loads(text)
        state = game.new(len(json.loads(seating)), seed, json.loads(options))
        step, joint = 0, {}
        for record in actions + [None]:
            if record is None or record[0] != step:
                state.apply(joint)
                if record is None:
                    break
                step, joint = record[0], {}
            owner, _, at = record[2].partition(":")[2].partition(",")
            if record[2].startswith("reveal:") and not at:
                record[2] = f"reveal:{owner},{state.kits[int(owner)].top_down()}"
            joint[record[1]] = record[2]
        db.execute(
            "UPDATE games SET actions = ? WHERE id = ?",
            (json.dumps(actions, separators=(",", ":")), game_id),
        )


def _tournament_kinds(db: Database, keys: KeyFile) -> None:
    """Version 7: tournament kinds (every older tournament is a round robin), the gauntlet's
    entrant, and a match's SPRT settings and result (JSON; NULL for other kinds)."""
    db.execute("ALTER TABLE tournaments ADD COLUMN kind TEXT NOT NULL DEFAULT 'round-robin'")
    db.execute("ALTER TABLE tournaments ADD COLUMN gauntlet TEXT")
    db.execute("ALTER TABLE tournaments ADD COLUMN sprt TEXT")


def _unread_views(db: Database, keys: KeyFile) -> None:
    """Version 8: the ``head_to_head`` and ``rankings`` views go. Nothing read them: the arena
    derives head-to-head counts and rankings in one place (``tournaments.ratings``), and two
    definitions of one result could disagree. ``standings`` stays (the store reads it)."""
    db.execute("DROP VIEW IF EXISTS rankings")
    db.execute("DROP VIEW IF EXISTS head_to_head")


def _bot_versions(db: Database, keys: KeyFile) -> None:
    """Version 9: the code each bot version runs. A folder bot registered from now on runs from
    the arena's own copy of its folder (``tournaments.catalogue.botcopies``), named by
    ``bots.digest``; a command bot records the files its command names (``bots.files``: JSON
    ``[[path, sha256],
    ...]``), checked before each run. Both stay NULL for bots registered before, which are
    checked against their old version hash (``tournaments.catalogue.oldversions``). ``bot_versions``
    keeps every version registered (command, folder, copy, files, games), so that a tournament runs
    the version it was planned with; it starts with each bot's current version."""
    db.execute("ALTER TABLE bots ADD COLUMN digest TEXT")
    db.execute("ALTER TABLE bots ADD COLUMN files TEXT")
    db.execute("""
        CREATE TABLE bot_versions (
            bot TEXT NOT NULL,
            version TEXT NOT NULL,
            command TEXT NOT NULL,
            path TEXT,
            digest TEXT,
            files TEXT,
            games TEXT NOT NULL,
            added_at TEXT NOT NULL,
            PRIMARY KEY (bot, version)
        )""")
    db.execute(
        "INSERT INTO bot_versions (bot, version, command, path, games, added_at) "
        "SELECT name, version, command, path, games, added_at FROM bots"
    )


def _ladders(db: Database, keys: KeyFile) -> None:
    """Version 10: standing ladders (``tournaments.ladder``). A ladder holds entries (one per
    version of a bot, with its participant, status and the reason of a suspension, and the
    registered bot it runs as); each
    matchmaking batch is a tournament of kind ``ladder`` (``ladder_batches``), whose entrants
    map to entries (``ladder_seats``); ``ladder_met`` counts the tables each pair of entries
    shared (written with each batch, for matchmaking). Skills (OpenSkill's mu and sigma) and
    their history are derived from the games: a cache of the rated batches, rebuilt at will.
    Participants' upload tokens are secrets: only their hashes are kept, in the key file."""
    db.execute("""
        CREATE TABLE ladders (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            game TEXT NOT NULL,
            options TEXT NOT NULL,
            min_table INTEGER NOT NULL,
            max_table INTEGER NOT NULL,
            move_ms INTEGER NOT NULL,
            settings TEXT NOT NULL,
            created_at TEXT NOT NULL
        )""")
    db.execute("""
        CREATE TABLE ladder_entries (
            id INTEGER PRIMARY KEY,
            ladder_id INTEGER NOT NULL REFERENCES ladders(id),
            bot TEXT NOT NULL,
            number INTEGER NOT NULL,
            version TEXT NOT NULL,
            runs_as TEXT NOT NULL,
            participant TEXT NOT NULL,
            uploaded INTEGER NOT NULL,
            status TEXT NOT NULL,
            reason TEXT,
            previous_id INTEGER REFERENCES ladder_entries(id),
            entered_at TEXT NOT NULL,
            left_at TEXT,
            UNIQUE (ladder_id, bot, number)
        )""")
    db.execute("CREATE INDEX ladder_entries_status ON ladder_entries (ladder_id, status)")
    db.execute("""
        CREATE TABLE ladder_batches (
            tournament_id INTEGER PRIMARY KEY REFERENCES tournaments(id),
            ladder_id INTEGER NOT NULL REFERENCES ladders(id),
            number INTEGER NOT NULL,
            rated INTEGER NOT NULL DEFAULT 0,
            UNIQUE (ladder_id, number)
        )""")
    db.execute("""
        CREATE TABLE ladder_seats (
            tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
            label TEXT NOT NULL,
            entry_id INTEGER NOT NULL REFERENCES ladder_entries(id),
            PRIMARY KEY (tournament_id, label)
        ) WITHOUT ROWID""")
    db.execute("CREATE INDEX ladder_seats_entry ON ladder_seats (entry_id)")
    db.execute("""
        CREATE TABLE ladder_met (
            ladder_id INTEGER NOT NULL REFERENCES ladders(id),
            a INTEGER NOT NULL REFERENCES ladder_entries(id),
            b INTEGER NOT NULL REFERENCES ladder_entries(id),
            tables INTEGER NOT NULL,
            PRIMARY KEY (ladder_id, a, b)
        ) WITHOUT ROWID""")
    db.execute("CREATE INDEX ladder_met_b ON ladder_met (ladder_id, b)")
    db.execute("""
        CREATE TABLE ladder_skills (
            entry_id INTEGER PRIMARY KEY REFERENCES ladder_entries(id),
            ladder_id INTEGER NOT NULL REFERENCES ladders(id),
            mu REAL NOT NULL,
            sigma REAL NOT NULL,
            games INTEGER NOT NULL
        )""")
    db.execute("""
        CREATE TABLE ladder_history (
            entry_id INTEGER NOT NULL REFERENCES ladder_entries(id),
            game_id INTEGER NOT NULL REFERENCES games(id),
            mu REAL NOT NULL,
            sigma REAL NOT NULL,
            PRIMARY KEY (entry_id, game_id)
        ) WITHOUT ROWID""")


def _runs(db: Database, keys: KeyFile) -> None:
    """Version 11: one row per ``tournament run`` with its heartbeat
    (``tournaments.store.heartbeat``): where it runs (host, pid and what tells that process from a
    later one with the same pid), when it started, its last beat, when it ended (NULL while it runs,
    or if it was killed). And indexes for the web's lists: games by deal (whether a deal is still in
    play, which withholds its replays, is asked of every game a page lists) and by time finished
    (the latest games), and seats by entrant with their game (an entrant's games, two entrants'
    games together, found from the index alone)."""
    db.execute("""
        CREATE TABLE runs (
            id INTEGER PRIMARY KEY,
            tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
            host TEXT NOT NULL,
            pid INTEGER NOT NULL,
            pid_token TEXT,
            started_at TEXT NOT NULL,
            beat_at TEXT NOT NULL,
            ended_at TEXT,
            games_at_once INTEGER
        )""")
    db.execute("CREATE INDEX runs_tournament ON runs (tournament_id, id)")
    db.execute("CREATE INDEX games_deal ON games (tournament_id, deal_seed, status)")
    db.execute("CREATE INDEX games_finished ON games (tournament_id, finished_at)")
    db.execute("CREATE INDEX seats_entrant_game ON seats (tournament_id, entrant, game_id)")


def _process_records(db: Database, keys: KeyFile) -> None:
    """Version 12: the arena's process records (``tournaments.run.playing``). ``processes`` holds
    every bot process of a run: its entrant, the run and phase, where it ran and as which pid,
    when it started and ended (times as ISO text in UTC; ``confirmed`` 1 if the arena saw it
    gone at a phase's or the run's end, 0 if it ended unseen: left by a killed run, or on a
    cluster worker lost until its lease ran out);
    ``process_games`` the process at each seat of each game (a token, not a foreign key: a
    game's record never depends on its process's)."""
    db.execute(
        """
        CREATE TABLE processes (
            token TEXT PRIMARY KEY,
            tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
            entrant TEXT NOT NULL,
            run TEXT NOT NULL,
            phase INTEGER NOT NULL,
            host TEXT NOT NULL,
            pid INTEGER,
            remote INTEGER NOT NULL DEFAULT 0,
            started_at TEXT NOT NULL,
            ended_at TEXT,
            confirmed INTEGER NOT NULL DEFAULT 0
        )
        """
    )
    db.execute("CREATE INDEX processes_by_tournament ON processes (tournament_id, entrant)")
    db.execute(
        """
        CREATE TABLE process_games (
            game_id INTEGER NOT NULL REFERENCES games(id),
            seat INTEGER NOT NULL,
            process TEXT NOT NULL,
            PRIMARY KEY (game_id, seat)
        )
        """
    )
    db.execute("CREATE INDEX process_games_by_process ON process_games (process)")


def _games_in_play(db: Database, keys: KeyFile) -> None:
    """Version 13: the games a run is playing, as of its last beat
    (``tournaments.store.heartbeat``): a JSON list of ``{"game_id", "started_at"}``, empty once the
    run ended (and in older rows)."""
    db.execute("ALTER TABLE runs ADD COLUMN in_play TEXT NOT NULL DEFAULT '[]'")


def _deal_modes(db: Database, keys: KeyFile) -> None:
    """Version 14: how a tournament deals (``tournaments.plans.schedule.DealMode``): every
    rotation of a table on one deal (``duplicate``, every older tournament), or each game on
    its own (``independent``)."""
    db.execute("ALTER TABLE tournaments ADD COLUMN deals TEXT NOT NULL DEFAULT 'duplicate'")


def _uploaded_versions(db: Database, keys: KeyFile) -> None:
    """Version 15: ``bots.uploaded`` and ``bot_versions.uploaded`` mark code a participant
    uploaded to a ladder (``tournaments.ladder.service.upload``): it runs only in the
    sandbox, in any ladder, tournament or match it is entered in by name. Versions entered
    into a ladder by upload before are marked from their ladder entries."""
    for table in ("bots", "bot_versions"):
        if "uploaded" not in db[table].columns_dict:  # (a test's schema 12 may hold it)
            db.execute(f"ALTER TABLE {table} ADD COLUMN uploaded INTEGER NOT NULL DEFAULT 0")
    db.execute(
        "UPDATE bot_versions SET uploaded = 1 WHERE EXISTS (SELECT 1 FROM ladder_entries e "
        "WHERE e.bot = bot_versions.bot AND e.version = bot_versions.version AND e.uploaded)"
    )
    db.execute(
        "UPDATE bots SET uploaded = 1 WHERE EXISTS (SELECT 1 FROM bot_versions v "
        "WHERE v.bot = bots.name AND v.version = bots.version AND v.uploaded)"
    )


def _formats(db: Database, keys: KeyFile) -> None:
    """Version 16: the settings of balanced, Swiss and knockout tournaments, and the draw of
    those played in rounds (NULL for the other kinds and every older tournament)."""
    db.execute("ALTER TABLE tournaments ADD COLUMN per_entrant INTEGER")
    db.execute("ALTER TABLE tournaments ADD COLUMN round_count INTEGER")
    db.execute("ALTER TABLE tournaments ADD COLUMN advance INTEGER")
    db.execute("ALTER TABLE tournaments ADD COLUMN draw TEXT")


#: Migration ``i`` takes a database from version ``i`` to ``i + 1``.
MIGRATIONS: list[Callable[[Database, KeyFile], None]] = [
    _raw_facts,
    _derived,
    _remote,
    _secrets_out,
    _skyjo_rules_options,
    _skull_bank_named_bills,
    _tournament_kinds,
    _unread_views,
    _bot_versions,
    _ladders,
    _runs,
    _process_records,
    _games_in_play,
    _deal_modes,
    _uploaded_versions,
    _formats,
]
SCHEMA_VERSION = len(MIGRATIONS)


def user_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def migrate(
    db: Database, *, path: str, keys: KeyFile | None = None, target: int = SCHEMA_VERSION
) -> int:
    """Bring ``db`` to version ``target`` in one write transaction; return the old version.

    ``keys`` is the database's key file (default: the one beside ``path``). Raises StoreError
    for a database newer than this code, or an SQLite file that is not an arena database.
    ``target`` below ``SCHEMA_VERSION`` is for tests of old databases.
    """
    keys = keys or KeyFile.beside(path)
    conn = db.conn
    version = user_version(conn)
    _check_known(version, path)
    if version >= target:
        return version
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = user_version(conn)  # another process may have migrated meanwhile
        _check_known(version, path)
        if version == 0:
            foreign = [
                name
                for (name,) in conn.execute(
                    "SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
                )
            ]
            if foreign:
                raise StoreError(
                    f"{path}: not an arena database (it already has tables: "
                    f"{', '.join(sorted(foreign)[:5])})"
                )
        for step in range(version, target):
            log.info("migrating %s to schema version %d", path, step + 1)
            MIGRATIONS[step](db, keys)
        conn.execute(f"PRAGMA user_version = {int(target)}")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return version


def _check_known(version: int, path: str) -> None:
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"{path}: database schema version {version} is newer than this arena knows "
            f"(version {SCHEMA_VERSION}); upgrade arena to open it"
        )
