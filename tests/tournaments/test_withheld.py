"""A bot's log is withheld while any of its deals is unfinished, by every face alike: the web
page and its JSON twin (``arena serve``), ``arena export`` and ``arena bot logs``. A real store,
a real bot writing a real log, real tournaments and a real match."""

from __future__ import annotations

import html
import json
import shutil
import sqlite3
import sys
import textwrap
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner

with warnings.catch_warnings():  # newer Starlette prefers httpx2 for its test client
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from arena.cli import main
from arena.web.app import create_app
from arena.web.export import export_site
from tournaments.store.facts import Store
from tournaments.store.withheld import LogHold, log_hold

#: What the bot writes to its standard error on every move: its hand, as a real bot might.
HAND_LINE = "my hand: rose rose skull"

CHATTY = textwrap.dedent(f"""
    import random, sys
    from protocol.sdk import run_bot

    def act(view, legal):
        print({HAND_LINE!r}, file=sys.stderr, flush=True)
        return random.choice(legal)

    if __name__ == "__main__":
        run_bot(act, name="chatty")
""")
#: skull_odds is far above a random bot: a match with hypotheses 100 Elo apart is decided in
#: a few deals, long before its last planned game.
STRONG = ["--sprt", "elo0=-50", "elo1=50", "alpha=0.05", "beta=0.05"]


def arena(*args: str, code: int = 0) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == code, result.output
    return result.output


@pytest.fixture
def db(tmp_path: Path, shared: Path) -> Path:
    """A database with the chatty bot registered (its script readable by bot users)."""
    script = shared / "chatty.py"
    script.write_text(CHATTY)
    script.chmod(0o644)
    path = tmp_path / "arena.db"
    arena("bot", "add", "chatty", "--game", "skull", "--sandbox", "off", "--db", str(path),
          "--", sys.executable, str(script))  # fmt: skip
    return path


def create(db: Path, bots: str) -> int:
    out = arena("tournament", "create", "--game", "skull", "--bots", bots, "--rounds", "1",
                "--seed", "3", "--json", "--db", str(db))  # fmt: skip
    return int(json.loads(out)["id"])


def shown_everywhere(db: Path, tmp_path: Path) -> dict[str, bool]:
    """Whether each face shows the bot's log (the hand line), and checks that a face which
    withholds it says why."""
    api = TestClient(create_app(db)).get("/api/bots/chatty").json()["log"]
    page = TestClient(create_app(db)).get("/bots/chatty").text
    site = tmp_path / "site"
    shutil.rmtree(site, ignore_errors=True)
    export_site(db, site)
    exported = (site / "bot-chatty.html").read_text()
    logs = CliRunner().invoke(main, ["bot", "logs", "chatty", "--db", str(db)])
    shown = {
        "api": any(HAND_LINE in f["text"] for f in api["files"]),
        "page": HAND_LINE in page,
        "export": HAND_LINE in exported,
        "cli": logs.exit_code == 0 and HAND_LINE in logs.output,
    }
    if not shown["api"]:
        assert api["withheld"].startswith("this bot's log is withheld until")
        said = api["withheld"]
        assert said in html.unescape(page) and said in html.unescape(exported)
    if not shown["cli"]:
        assert logs.exit_code == 1 and "withheld until" in logs.output
    return shown


def test_a_log_is_withheld_from_the_moment_a_tournament_is_planned(
    db: Path, tmp_path: Path
) -> None:
    done = create(db, "chatty,random,first")
    arena("tournament", "run", str(done), "-q", "--sandbox", "off", "--db", str(db))
    assert set(shown_everywhere(db, tmp_path).values()) == {True}, "a complete one shows"

    planned = create(db, "random,chatty,first")  # no game played yet
    with Store.open(db) as store:
        assert store.tournament(planned).status.value == "planned"
        assert log_hold(store, "chatty") == LogHold("chatty", (planned,))
        assert log_hold(store, "skull_odds") is None  # not entered in it
    assert set(shown_everywhere(db, tmp_path).values()) == {False}
    reason = TestClient(create_app(db)).get("/api/bots/chatty").json()["log"]
    assert reason["withheld"].endswith(f"until tournament {planned}'s deals are complete")
    assert reason["withheld_by"] == [planned]


def test_a_run_stopped_part_way_withholds_every_entrant_of_the_bot(
    db: Path, tmp_path: Path
) -> None:
    """Two entrants of one bot; one game of the plan left unplayed: still withheld."""
    tid = create(db, "chatty,chatty,random")
    arena("tournament", "run", str(tid), "-q", "--sandbox", "off", "--db", str(db))
    with sqlite3.connect(db) as conn:
        conn.execute(
            "UPDATE games SET status = 'pending' WHERE id = (SELECT MAX(id) FROM games "
            "WHERE tournament_id = ?)",
            (tid,),
        )
    with Store.open(db) as store:
        assert log_hold(store, "chatty") == LogHold("chatty", (tid,))
    assert set(shown_everywhere(db, tmp_path).values()) == {False}


def test_a_match_decided_early_shows_the_log(db: Path, tmp_path: Path) -> None:
    out = arena("match", "skull_odds", "chatty", "--game", "skull", *STRONG, "--games", "600",
                "--sandbox", "off", "--json", "--db", str(db))  # fmt: skip
    result = json.loads(out)
    assert result["result"] == "H1"
    with Store.open(db) as store:
        info = store.tournament(result["match"])
        assert info.games_done == info.games_total < 600, "the unneeded games left the plan"
        assert log_hold(store, "chatty") is None
    assert set(shown_everywhere(db, tmp_path).values()) == {True}
