"""Secret keys: the key file beside the database, keyed seeds, and no secret in the database.

Real SQLite files and key files; the CLI through CliRunner; concurrent writers as processes.
"""

from __future__ import annotations

import json
import logging
import multiprocessing
import sqlite3
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.errors import KeyFileError, MissingKey
from arena.keys.keyfile import KeyFile, key_file_path, secret_paths, user_key_path
from arena.keys.seeds import bot_seeds, key_id, new_key
from tests.tournaments import cli, create, old_database
from tournaments.catalogue.remote import server_keys
from tournaments.store.facts import Store
from tournaments.store.migrations import SCHEMA_VERSION, user_version


def create_skull(db: Path, seed: str = "5") -> int:
    return create(db, "random,first,random", "--table-size", "3", "--seed", seed)[0]


def secrets_in_database(path: Path, secrets: list[str | bytes]) -> list[str]:
    """Where any of ``secrets`` (text, or bytes also searched as hex) occurs in the database:
    in any cell of any table, or anywhere in the raw files (free pages, the write-ahead log)."""
    needles = [s.encode() if isinstance(s, str) else s for s in secrets]
    needles += [s.hex().encode() for s in secrets if isinstance(s, bytes)]
    found = []
    conn = sqlite3.connect(path)
    tables = [
        name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    ]
    for table in tables:
        for row in conn.execute(f'SELECT * FROM "{table}"'):
            cells = [c if isinstance(c, bytes) else str(c).encode() for c in row]
            if any(n in cell for n in needles for cell in cells):
                found.append(f"table {table}")
    conn.close()
    for suffix in ("", "-wal"):
        raw = Path(f"{path}{suffix}")
        if raw.exists() and any(n in raw.read_bytes() for n in needles):
            found.append(f"file {raw.name}")
    return found


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# -- the key file ------------------------------------------------------------------------------


def test_key_file_is_private_and_keeps_every_key(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    keys = KeyFile.beside(db)
    assert keys.path == tmp_path / "arena.db.keys" == key_file_path(db)
    first, second = new_key(), new_key()
    assert keys.add_tournament_key(first, 1) == key_id(first)
    keys.add_tournament_key(second, 2)
    assert mode(keys.path) == 0o600
    assert keys.tournament_key(key_id(first), 1) == first
    assert keys.tournament_key(key_id(second), 2) == second
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []
    data = json.loads(keys.path.read_text())
    assert data["format"] == 1 and len(data["tournaments"]) == 2
    assert str(keys.path) in secret_paths(db)


def _add_keys(path: str, worker: int, count: int) -> None:
    keys = KeyFile(Path(path))
    for n in range(count):
        keys.add_tournament_key(bytes([worker, n]) * 16, worker * 1000 + n)


def test_concurrent_writers_lose_no_key(tmp_path: Path) -> None:
    path = tmp_path / "arena.db.keys"
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_add_keys, args=(str(path), w, 15)) for w in range(3)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
        assert worker.exitcode == 0
    assert len(json.loads(path.read_text())["tournaments"]) == 45
    assert mode(path) == 0o600


def test_a_corrupt_key_file_is_an_error_and_is_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "arena.db.keys"
    path.write_text("{not json")
    keys = KeyFile(path)
    with pytest.raises(KeyFileError, match="not an arena key file"):
        keys.add_tournament_key(new_key(), 1)
    assert path.read_text() == "{not json"


def test_the_user_key_is_made_once_and_private(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    key = KeyFile.of_user().play_key()
    assert user_key_path() == tmp_path / "cfg" / "arena" / "user.keys"
    assert KeyFile.of_user().play_key() == key and len(key) == 32
    assert mode(user_key_path()) == 0o600 and mode(user_key_path().parent) == 0o700
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert user_key_path() == tmp_path / "home" / ".config" / "arena" / "user.keys"


# -- tournaments ------------------------------------------------------------------------------


def test_a_tournament_key_lives_in_the_key_file_and_keys_the_bot_seeds(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    tid = create_skull(db)
    other = create_skull(db)  # the same --seed: a new key, so new deals
    with Store.open(db) as store:
        key = store.tournament_key(tid)
        stored_id = store.db.execute(
            "SELECT key_id FROM tournaments WHERE id = ?", (tid,)
        ).fetchone()[0]
        assert stored_id == key_id(key)
        pending = store.pending_games(tid)
        assert all(g.bot_seeds() == bot_seeds(key, g.deal_seed, 3) for _, g in pending)
        deals = {g.deal_seed for _, g in pending}
        assert deals.isdisjoint(g.deal_seed for _, g in store.pending_games(other))
        assert store.tournament_key(other) != key
    with Store.open(db) as again:  # a later run (resume) gets the same seeds
        assert [g.bot_seeds() for _, g in again.pending_games(tid)] == [
            g.bot_seeds() for _, g in pending
        ]
    assert mode(key_file_path(db)) == 0o600


def test_a_lost_key_file_is_one_clear_error(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    tid = create_skull(db)
    keys = key_file_path(db)
    moved = keys.rename(tmp_path / "elsewhere.keys")
    result = CliRunner().invoke(main, ["tournament", "run", str(tid), "--db", str(db)])
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("arena: error:"), result.output
    assert str(keys) in lines[0] and "missing" in lines[0] and "put the key file back" in lines[0]
    assert "Traceback" not in result.output
    # another database's key file is not taken for this one's
    KeyFile(keys).add_tournament_key(new_key(), tid)
    result = CliRunner().invoke(main, ["tournament", "run", str(tid), "--db", str(db)])
    assert result.exit_code == 1 and "another database's key file" in result.output
    moved.replace(keys)
    with Store.open(db) as store:
        assert store.pending_games(tid)


def test_the_database_holds_no_secret(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    tid = create_skull(db)
    cli("tournament", "run", str(tid), "--quiet", "--db", str(db))
    cli("bot", "add", "far", "--remote", "--game", "skull", "--db", str(db))
    cli("bot", "token", "far", "--curve", "--endpoint", "tcp://127.0.0.1:5555", "--db", str(db))
    with Store.open(db) as store:
        key = store.tournament_key(tid)
        curve = server_keys(store)
    assert curve.secret in key_file_path(db).read_text()
    assert secrets_in_database(db, [key, curve.secret]) == []


# -- databases made before keys ---------------------------------------------------------------


def test_migration_moves_the_curve_key_out_of_the_database(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    public, secret = old_database(db)
    assert secrets_in_database(db, [secret]), "the fixture holds the secret"
    with Store.open(db) as store:
        assert user_version(store.db.conn) == SCHEMA_VERSION
        assert "arena_keys" not in store.db.table_names()
        moved = server_keys(store)
    assert (moved.public, moved.secret) == (public, secret)
    assert mode(key_file_path(db)) == 0o600
    assert secrets_in_database(db, [secret]) == []


def test_an_old_tournament_gets_a_key_on_its_first_run(tmp_path: Path, caplog) -> None:
    db = tmp_path / "arena.db"
    old_database(db)
    with Store.open(db) as store:
        deals = [seed for (seed,) in store.db.execute("SELECT deal_seed FROM games")]
        assert store.db.execute("SELECT key_id FROM tournaments").fetchone()[0] is None
        with caplog.at_level(logging.WARNING, logger="tournaments.store.facts"):
            key = store.tournament_key(1)
        assert "planned before secret keys" in caplog.text
        assert store.tournament_key(1) == key
        pending = store.pending_games(1)
        assert all(g.bot_seeds() == bot_seeds(key, g.deal_seed, 3) for _, g in pending)
        assert [g.deal_seed for _, g in pending] == deals  # the plan stays as planned
    with pytest.raises(MissingKey):
        KeyFile(tmp_path / "nothing.keys").tournament_key(key_id(key), 1)
