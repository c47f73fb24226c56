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
    # the same withholding, asked by tournament: exit status 1, as `arena bot logs chatty`
    out = arena("bot", "logs", "chatty", "--tournament", str(tid), "--db", str(db), code=1)
    assert "withheld:" in out and HAND_LINE not in out


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


def game_lines_shown(db: Path, game_id: int) -> bool:
    """Whether ``arena bot logs chatty --game ID`` shows the bot's line of that game."""
    out = arena("bot", "logs", "chatty", "--game", str(game_id), "--db", str(db))
    return HAND_LINE in out and "withheld" not in out


def test_a_plan_that_can_no_longer_run_hides_no_other_game_and_can_be_cancelled(
    db: Path, tmp_path: Path, shared: Path
) -> None:
    """The bot's file changes after a tournament is planned: that plan can never run. It
    hides nothing of the bot's games played before (they were dealt before it), its first
    refusal says what helps, and cancelling it releases the whole log; a tournament stopped
    part-way is cancelled with its played games kept and their replays shown."""
    done = create(db, "chatty,random,first")
    arena("tournament", "run", str(done), "-q", "--sandbox", "off", "--db", str(db))
    stopped = create(db, "first,random,chatty")
    arena("tournament", "run", str(stopped), "-q", "--sandbox", "off", "--db", str(db))
    with sqlite3.connect(db) as conn:  # its run stopped before its last game
        last = conn.execute(
            "SELECT MAX(id) FROM games WHERE tournament_id = ?", (stopped,)
        ).fetchone()[0]
        for table in ("faults", "seats", "process_games"):
            conn.execute(f"DELETE FROM {table} WHERE game_id = ?", (last,))
        conn.execute(
            "UPDATE games SET status = 'pending', actions = NULL, outcome = NULL, finished_at "
            "= NULL WHERE id = ?",
            (last,),
        )
        conn.execute("UPDATE tournaments SET status = 'in-progress' WHERE id = ?", (stopped,))
        siblings = [
            gid
            for (gid,) in conn.execute(
                "SELECT id FROM games WHERE tournament_id = ? AND id != ? AND deal_seed = "
                "(SELECT deal_seed FROM games WHERE id = ?)",
                (stopped, last, last),
            )
        ]
    planned = create(db, "random,chatty,first")  # never run
    (shared / "chatty.py").write_text(CHATTY + "\n# edited\n")

    first_game = json.loads(arena("tournament", "games", str(done), "--json", "--db", str(db)))
    assert game_lines_shown(db, first_game[0]["id"]), "dealt before the plans: shown"
    assert set(shown_everywhere(db, tmp_path).values()) == {False}, "the whole log is held"

    refused = CliRunner().invoke(
        main, ["tournament", "run", str(planned), "--sandbox", "off", "--db", str(db)]
    )
    assert refused.exit_code == 1 and "Traceback" not in refused.output
    assert f"`arena tournament cancel {planned}`" in refused.output
    assert "put its files back as they were" in refused.output
    assert "registers the new code for new tournaments only" in refused.output

    client = TestClient(create_app(db))
    assert client.get(f"/games/{siblings[0]}").status_code == 409
    out = arena("tournament", "cancel", str(planned), "--db", str(db))
    assert f"cancelled tournament {planned}: 0 game(s) played are kept, 3 never" in out
    out = arena("tournament", "cancel", str(stopped), "--db", str(db))
    assert f"cancelled tournament {stopped}: 2 game(s) played are kept, 1 never" in out
    assert set(shown_everywhere(db, tmp_path).values()) == {True}
    assert client.get(f"/games/{siblings[0]}").status_code == 200
    page = client.get(f"/tournaments/{stopped}").text
    assert 'id="live-status">cancelled<' in page
    with Store.open(db) as store:
        assert store.tournament(stopped).games_done == 2 == store.tournament(stopped).games_total
    again = arena("tournament", "run", str(planned), "--db", str(db), code=1)
    assert f"tournament {planned} was cancelled" in again
    twice = arena("tournament", "cancel", str(planned), "--db", str(db), code=1)
    assert "is cancelled already: nothing to cancel" in twice
