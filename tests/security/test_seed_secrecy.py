"""Nothing a bot receives reveals a deal, and bots cannot read the keys that make deals.

A spy bot (``tests/rogues/spy.py``) logs every message it receives and tries to read the key
files; real games run through the CLI, sandboxed, with the database in the current folder (so
the sandbox hides the database's files one by one, the key file among them).
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.keys.keyfile import KeyFile, key_file_path, user_key_path
from arena.keys.seeds import bot_seed, new_key
from arena.procs.logs import bot_logs, log_texts, logs_folder
from tests.security.conftest import needs_bwrap
from tournaments.store.facts import Store

SPY = Path(__file__).resolve().parents[1] / "rogues" / "spy.py"


def cli(*args: str) -> str:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def public_formula(deal: int, seat: int) -> int:
    """The bot seed as it was derived before keys (BLAKE2b of public parts)."""
    digest = hashlib.blake2b(
        f"bot:{deal}:{seat}".encode(), digest_size=8, person=b"arena-seeds"
    ).digest()
    return int.from_bytes(digest, "big") & ((1 << 63) - 1)


def spied(log_dir: Path, bot: str) -> tuple[str, list[dict], dict[str, str]]:
    """The spy's whole log, the messages it received, and what it read of each secret."""
    text = "\n".join(line for p in bot_logs(log_dir, bot) for line in log_texts(p))
    messages = [json.loads(m) for m in re.findall(r"^spy-msg: (.*)$", text, re.M)]
    reads = dict(re.findall(r"^spy-read: (\S+) (\S+)$", text, re.M))
    return text, messages, reads


@pytest.fixture
def arena_here(private: Path, monkeypatch) -> Path:
    """The database in the current folder (hidden file by file), the user's keys beside it,
    and the spy told where the secrets are."""
    monkeypatch.chdir(private)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(private / "config"))
    db = private / "arena.db"
    monkeypatch.setenv("ARENA_DB", str(db))
    monkeypatch.setenv("ARENA_BOT_SECRETS", f"{key_file_path(db)}:{user_key_path()}")
    return db


def assert_kept_out(reads: dict[str, str], *files: Path) -> None:
    for path in files:
        size = str(len(path.read_bytes()))
        assert reads.get(str(path)) not in (None, size), f"the spy read {path}"


@needs_bwrap
def test_a_tournament_bot_sees_no_deal_seed_and_no_key(arena_here: Path) -> None:
    db = arena_here
    cli("bot", "add", "spy", "--game", "skull", "--", sys.executable, str(SPY))
    created = cli(
        "tournament",
        "create",
        "--game",
        "skull",
        "--bots",
        "spy,random,first",
        "--seed",
        "7",
        "--json",
    )
    tid = json.loads(created)["id"]
    cli("tournament", "run", str(tid), "--quiet", "--sandbox", "required")
    with Store.open(db) as store:
        key = store.tournament_key(tid)
    conn = sqlite3.connect(db)
    deals = dict(
        conn.execute("SELECT id, deal_seed FROM games WHERE tournament_id = ?", (tid,)).fetchall()
    )
    conn.close()
    text, messages, reads = spied(logs_folder(db), "spy")
    starts = [m for m in messages if m["type"] == "start"]
    assert len(starts) == 3 and any(m["type"] == "turn" for m in messages)
    assert "spy-batch:" in text, "the spy takes batches: what it was sent came in batches too"
    for deal in deals.values():
        assert str(deal) not in text, "a deal seed reached the bot"
    assert key.hex() not in text and key_file_path(db).read_text() not in text
    for start in starts:
        assert start["game_id"] not in deals, "the game id a bot gets is opaque"
        seat = start["seat"]
        (deal,) = {deal for deal in deals.values() if start["seed"] == bot_seed(key, deal, seat)}
        assert start["seed"] not in (
            deal,
            public_formula(deal, seat),
            bot_seed(new_key(), deal, seat),
        )
    assert_kept_out(reads, key_file_path(db))


@needs_bwrap
def test_a_played_bot_sees_no_deal_seed_and_no_key(arena_here: Path) -> None:
    db = arena_here
    out = cli(
        "play",
        "skull",
        "--bot",
        f"{sys.executable} {SPY}",
        "--bot",
        "random",
        "--bot",
        "random",
        "--seed",
        "3",
        "--json",
        "--sandbox",
        "required",
    )
    record = json.loads(out)
    assert record["bots"][0] == "spy.py"
    key = KeyFile.of_user().play_key()
    text, messages, reads = spied(logs_folder(db), "spy.py")
    start = next(m for m in messages if m["type"] == "start")
    assert str(record["seed"]) not in text and key.hex() not in text
    assert start["seed"] == bot_seed(key, record["seed"], 0)
    assert start["seed"] != public_formula(record["seed"], 0)
    assert "3" != str(start["seed"])
    assert_kept_out(reads, user_key_path())
