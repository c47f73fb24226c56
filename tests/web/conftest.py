"""Shared set-up of the web tests: one real database with a tournament of every game played
by the bundled bots (plus a hostile bot whose name and log are HTML), an empty tournament,
a real uvicorn server on a free port; for the browser tests, the distribution's Chromium
driven by Playwright (one browser per test module), pages at the two sizes the pages are
checked at, and a folder for each test's screenshots (``tests/web/artifacts/TEST/``, or
``$ARENA_WEB_ARTIFACTS/TEST/``)."""

from __future__ import annotations

import os
import re
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
from starlette.applications import Starlette

from arena.web.app import create_app
from tests.net import free_port
from tests.tournaments import cli, create

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
        ids[game] = create(
            db, bots.replace("EVIL", EVIL), "--rounds", "1", "--seed", "7", game=game
        )[0]
        cli("tournament", "run", str(ids[game]), "-q", "--sandbox", "off", "--db", str(db))
    return Played(db, ids, create(db, "random,first,random")[0])


def withheld_copy(played: Played, folder: Path) -> tuple[Path, int, list[int]]:
    """A copy of the database where one rotation of skull's deal is pending again: the
    other two games of that deal have been played, and their replays are withheld."""
    db = folder / "withheld.db"
    shutil.copy(played.db, db)
    tid = played.tournaments["skull"]
    return db, tid, first_pending_again(db, tid)


def first_pending_again(db: Path, tid: int) -> list[int]:
    """Make tournament ``tid``'s first game (rotation 0 of its first table) pending again, as
    if a run had stopped before it; the ids of its other games, still played."""
    with sqlite3.connect(db) as conn:
        first, *others = [
            gid
            for (gid,) in conn.execute(
                "SELECT id FROM games WHERE tournament_id = ? ORDER BY plan_index", (tid,)
            )
        ]
        conn.execute("DELETE FROM faults WHERE game_id = ?", (first,))
        conn.execute("DELETE FROM seats WHERE game_id = ?", (first,))
        conn.execute(
            "UPDATE games SET status = 'pending', actions = NULL, outcome = NULL, "
            "finished_at = NULL WHERE id = ?",
            (first,),
        )
        conn.execute("UPDATE tournaments SET status = 'in-progress' WHERE id = ?", (tid,))
    return others


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


#: The distribution's Chromium: $ARENA_CHROMIUM, else ``chromium`` (or ``chromium-browser``)
#: on the PATH.
_FOUND = (
    os.environ.get("ARENA_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
)
CHROMIUM = Path(_FOUND) if _FOUND else None
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
#: The two sizes every page is checked at: a laptop and a phone.
SIZES = {"desktop": (1366, 900), "phone": (390, 844)}
ARTIFACTS = Path(os.environ.get("ARENA_WEB_ARTIFACTS") or Path(__file__).parent / "artifacts")


def needs_chromium() -> None:
    """Skip the calling test module without Playwright or a Chromium."""
    pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed")
    if CHROMIUM is None or not CHROMIUM.exists():
        pytest.skip("no chromium on the PATH (.ci/run installs Debian's)", allow_module_level=True)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    needs_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def open_page(browser: object, size: str = "desktop", **options: object) -> object:
    """A page in a new context of ``size`` that records script errors in ``page.errors``."""
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height}, **options)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    return page


@pytest.fixture
def page(browser: object) -> Iterator[object]:
    page = open_page(browser)
    yield page
    page.context.close()


@pytest.fixture
def shots(request: pytest.FixtureRequest) -> Path:
    """This test's screenshot folder (emptied first)."""
    folder = ARTIFACTS / re.sub(r"[^\w.-]+", "_", request.node.name)
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder
