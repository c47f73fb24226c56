"""Shared set-up of the web tests: one real database with a tournament of every game played
by the bundled bots (plus a hostile bot whose name and log are HTML), an empty tournament,
and a real uvicorn server on a free port."""

from __future__ import annotations

import json
import shutil
import sqlite3
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import uvicorn
from click.testing import CliRunner
from starlette.applications import Starlette

from arena.cli import main
from arena.web.app import create_app
from tests.net import free_port

GAMES = {
    "skull": "skull_odds,random,EVIL",
    "skull-bank": "skull_bank_odds,random,first",
    "skull-king": "skull_king_bidder,random,first",
    "skyjo": "skyjo_greedy,random,first",
}
#: A bot name and log lines that are HTML: every page must show them as text.
EVIL = '<img src=x onerror="window.pwned=1">'
EVIL_LOG = "<script>window.pwned=2</script>"
#: An argument of the hostile bot's command line: never served.
SECRET_ARG = "--secret-arg-7f3c"

EVIL_BOT = textwrap.dedent(f"""
    import random, sys
    from protocol.sdk import run_bot

    def act(view, legal):
        print({EVIL_LOG!r}, file=sys.stderr, flush=True)
        return random.choice(legal)

    if __name__ == "__main__":
        run_bot(act, name="evil")
""")


def cli(*args: str) -> str:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


@dataclass(frozen=True)
class Played:
    """The test database: tournament ids by game, the empty tournament, the key file."""

    db: Path
    tournaments: dict[str, int]
    empty: int


@pytest.fixture(scope="session")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    folder = tmp_path_factory.mktemp("webdb")
    db = folder / "arena.db"
    # readable by the unprivileged users bots run as when the tests run as root
    shared = Path(tempfile.mkdtemp(prefix="arena-web-bot-"))
    shared.chmod(0o755)
    script = shared / "evil.py"
    script.write_text(EVIL_BOT)
    script.chmod(0o644)
    try:
        yield _play(db, script)
    finally:
        shutil.rmtree(shared, ignore_errors=True)


def _play(db: Path, script: Path) -> Played:
    cli(
        "bot",
        "add",
        "evil",
        "--db",
        str(db),
        "--sandbox",
        "off",
        "--game",
        "skull",
        "--",
        sys.executable,
        str(script),
        SECRET_ARG,
    )
    # Names are plain text since the name rule; a database from before it may hold an HTML
    # name, which every page must still show as text.
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("UPDATE bots SET name = ? WHERE name = 'evil'", (EVIL,))
    conn.close()
    ids = {}
    for game, bots in GAMES.items():
        out = cli(
            "tournament",
            "create",
            "--game",
            game,
            "--bots",
            bots.replace("EVIL", EVIL),
            "--rounds",
            "1",
            "--seed",
            "7",
            "--json",
            "--db",
            str(db),
        )
        ids[game] = json.loads(out)["id"]
        cli("tournament", "run", str(ids[game]), "-q", "--sandbox", "off", "--db", str(db))
    out = cli(
        "tournament",
        "create",
        "--game",
        "skull",
        "--bots",
        "random,first,random",
        "--json",
        "--db",
        str(db),
    )
    return Played(db, ids, json.loads(out)["id"])


@dataclass
class Server:
    url: str
    server: uvicorn.Server
    thread: threading.Thread


def start_server(db: Path, app: Starlette | None = None) -> Server:
    """A real uvicorn server of ``db`` (``arena serve``'s app, or ``app``) in a thread; stop
    it with ``stop_server``."""
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(app or create_app(db), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    return Server(f"http://127.0.0.1:{port}", server, thread)


def stop_server(server: Server) -> None:
    server.server.should_exit = True
    server.thread.join(timeout=10)


@pytest.fixture(scope="session")
def served(played: Played) -> Iterator[Server]:
    server = start_server(played.db)
    yield server
    stop_server(server)
