"""The web app over plain HTTP (Starlette's TestClient): every JSON endpoint against the
CLI's ``--json``, every page, bad input (unknown ids, an empty tournament, a missing, corrupt,
locked or newer database), escaping, and that nothing secret is ever served or written."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import sqlite3
import warnings
from pathlib import Path

import pytest

with warnings.catch_warnings():  # newer Starlette prefers httpx2 for its test client
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from arena.keys.keyfile import key_file_path
from arena.web.app import create_app
from tests.web.conftest import EVIL, EVIL_LOG, SECRET_ARG, Played, cli
from tournaments.migrations import SCHEMA_VERSION


@pytest.fixture(scope="module")
def client(played: Played) -> TestClient:
    return TestClient(create_app(played.db))


def cli_json(played: Played, *args: str) -> object:
    return json.loads(cli(*args, "--json", "--db", str(played.db)))


def first_game(played: Played, game: str) -> int:
    with sqlite3.connect(played.db) as conn:
        return conn.execute(
            "SELECT MIN(id) FROM games WHERE tournament_id = ?", (played.tournaments[game],)
        ).fetchone()[0]


def test_json_twins_return_what_the_cli_prints(client: TestClient, played: Played) -> None:
    assert client.get("/api/tournaments").json() == cli_json(played, "tournament", "list")
    for game, tid in played.tournaments.items():
        assert client.get(f"/api/tournaments/{tid}").json() == cli_json(
            played, "tournament", "show", str(tid)
        )
        assert client.get(f"/api/tournaments/{tid}/rankings").json() == cli_json(
            played, "rankings", str(tid)
        )
        assert client.get(f"/api/tournaments/{tid}/crosstable").json() == cli_json(
            played, "crosstable", str(tid)
        )
        gid = first_game(played, game)
        assert client.get(f"/api/games/{gid}").json() == cli_json(played, "replay", str(gid))
        assert client.get(f"/api/games/{gid}?seat=1").json() == cli_json(
            played, "replay", str(gid), "--seat", "1"
        )


def test_games_live_history_and_bot_endpoints(client: TestClient, played: Played) -> None:
    tid = played.tournaments["skull-king"]
    games = client.get(f"/api/tournaments/{tid}/games?per_page=2").json()
    assert games["total"] == 3 and games["pages"] == 2 and len(games["games"]) == 2
    assert all(g["status"] == "done" and sorted(g["places"]) for g in games["games"])
    assert "deal_seed" not in json.dumps(games)
    mine = client.get(f"/api/tournaments/{tid}/games?entrant=random").json()
    assert mine["total"] == 3 and all("random" in g["seating"] for g in mine["games"])
    live = client.get(f"/api/tournaments/{tid}/live").json()
    assert (live["status"], live["games_done"], live["games_total"]) == ("done", 3, 3)
    assert {r["entrant"] for r in live["rankings"]} == {"skull_king_bidder", "random", "first"}
    history = client.get(f"/api/tournaments/{tid}/history").json()["history"]
    assert set(history) == {"skull_king_bidder", "random", "first"}
    assert all(len(points) == 3 for points in history.values())
    bot = client.get("/api/bots/random").json()
    assert bot["kind"] == "bundled"
    assert {t["id"] for t in bot["tournaments"]} == {*played.tournaments.values(), played.empty}
    assert len(bot["recent_games"]) == 12 and bot["versions"]
    frames = client.get(f"/api/games/{first_game(played, 'skyjo')}/frames/referee").json()
    assert frames["frames"][0]["step"] == 0 and frames["frames"][-1]["over"]
    assert frames["marks"][0] == {"label": "round 1", "frame": 0}


def test_every_page_renders(client: TestClient, played: Played) -> None:
    pages = ["/", "/bots/random", "/bots/first", f"/tournaments/{played.empty}"]
    for game, tid in played.tournaments.items():
        pages += [
            f"/tournaments/{tid}",
            f"/tournaments/{tid}?entrant=random",
            f"/games/{first_game(played, game)}",
        ]
    for page in pages:
        response = client.get(page)
        assert response.status_code == 200, page
        assert "<main>" in response.text and "Traceback" not in response.text


def test_pages_work_without_javascript(client: TestClient, played: Played) -> None:
    """Rankings, charts and the game list are in the HTML itself."""
    html = client.get(f"/tournaments/{played.tournaments['skull']}").text
    assert html.count("<tr data-entrant=") == 3
    assert html.count("<svg") == 4 and 'id="games"' in html
    assert len(re.findall(r'href="/games/\d+"', html)) == 3


def test_empty_tournament_is_a_clear_page(client: TestClient, played: Played) -> None:
    html = client.get(f"/tournaments/{played.empty}").text
    assert "No ratings yet" in html and "0/3" in html
    for path, command in (
        ("", "tournament show"),
        ("/rankings", "rankings"),
        ("/crosstable", "crosstable"),
    ):
        assert client.get(f"/api/tournaments/{played.empty}{path}").json() == cli_json(
            played, *command.split(), str(played.empty)
        )
    data = client.get(f"/api/tournaments/{played.empty}").json()
    assert data["games_done"] == 0 and all(r["games"] == 0 for r in data["rankings"])
    with sqlite3.connect(played.db) as conn:
        pending = conn.execute(
            "SELECT MIN(id) FROM games WHERE tournament_id = ?", (played.empty,)
        ).fetchone()[0]
    response = client.get(f"/api/games/{pending}")
    assert response.status_code == 404 and "not been played" in response.json()["error"]


@pytest.mark.parametrize(
    "url, status",
    [
        ("/tournaments/999", 404),
        ("/api/tournaments/999", 404),
        ("/api/tournaments/999/live", 404),
        ("/games/999999", 404),
        ("/api/games/999999", 404),
        ("/games/abc", 404),
        ("/games/%C2%B2", 404),
        ("/api/games/1/frames/%C2%B2", 404),
        ("/api/games/1?seat=%C2%B2", 400),
        ("/api/games/1?seat=9", 400),
        ("/api/games/1?seat=x", 400),
        ("/api/games/1/frames/7", 404),
        ("/api/games/1/frames/god", 404),
        ("/bots/nobody", 404),
        ("/api/bots/nobody", 404),
        ("/tournaments/1?page=-1", 400),
        ("/api/tournaments/1/games?page=99999999999999999999", 400),
        ("/api/tournaments/1/games?entrant=nobody", 404),
        ("/nowhere", 404),
        ("/api/nowhere", 404),
    ],
)
def test_bad_ids_and_parameters_are_clear_errors(client: TestClient, url: str, status: int) -> None:
    response = client.get(url)
    assert response.status_code == status
    assert "Traceback" not in response.text and 'File "' not in response.text
    if "/api/" in url:
        assert response.json()["status"] == status and response.json()["error"]
    else:
        assert 'id="error-message"' in response.text


def serve_copy(played: Played, tmp_path: Path) -> Path:
    copy = tmp_path / "copy.db"
    shutil.copy(played.db, copy)
    return copy


def assert_unavailable(db: Path, words: str) -> None:
    client = TestClient(create_app(db))
    for url in ("/", "/api/tournaments", "/tournaments/1", "/api/games/1"):
        response = client.get(url)
        assert response.status_code == 503, url
        text = response.json()["error"] if url.startswith("/api") else response.text
        assert words in text and "Traceback" not in text


def test_missing_corrupt_newer_and_older_databases(played: Played, tmp_path: Path) -> None:
    missing = tmp_path / "none.db"
    assert_unavailable(missing, "no such database file")
    assert not missing.exists()
    corrupt = tmp_path / "corrupt.db"
    corrupt.write_bytes(b"not a database at all" * 200)
    assert_unavailable(corrupt, "not an SQLite database")
    newer = serve_copy(played, tmp_path)
    with sqlite3.connect(newer) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    before = hashlib.sha256(newer.read_bytes()).hexdigest()
    assert_unavailable(newer, "newer than this arena knows")
    assert hashlib.sha256(newer.read_bytes()).hexdigest() == before
    with sqlite3.connect(newer) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION - 1}")
    assert_unavailable(newer, "older than this arena")


def test_locked_database_is_a_clear_error(
    played: Played, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only a database out of WAL mode can keep a reader waiting: then a clear 503."""
    db = serve_copy(played, tmp_path)
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA journal_mode=DELETE")
    monkeypatch.setattr("arena.web.readonly.BUSY_TIMEOUT_MS", 100)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        assert_unavailable(db, "locked")
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_serving_writes_nothing(played: Played, tmp_path: Path) -> None:
    db = serve_copy(played, tmp_path)
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    client = TestClient(create_app(db))
    for url in (
        "/",
        "/tournaments/1",
        "/api/tournaments/1/live",
        "/games/1",
        "/api/games/1/frames/referee",
        "/bots/random",
    ):
        assert client.get(url).status_code == 200
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    assert not (tmp_path / "copy.db.keys").exists()


def crawl(client: TestClient, start: str = "/") -> dict[str, str]:
    """Every page and API address reachable by links from ``start``."""
    seen: dict[str, str] = {}
    todo = [start]
    while todo:
        url = todo.pop()
        if url in seen or not url.startswith("/") or url.startswith("/static/"):
            continue
        response = client.get(url)
        assert response.status_code == 200, url
        seen[url] = response.text
        todo += [h.replace("&amp;", "&") for h in re.findall(r'href="([^"]+)"', response.text)]
    return seen


def test_names_and_logs_are_escaped_and_nothing_secret_is_served(
    client: TestClient, played: Played
) -> None:
    pages = crawl(client)
    assert any(url.startswith("/bots/%3Cimg") for url in pages)
    evil_page = next(text for url, text in pages.items() if url.startswith("/bots/%3Cimg"))
    assert EVIL_LOG.replace("<", "&lt;").replace(">", "&gt;") in evil_page
    keys = json.loads(key_file_path(played.db).read_text())
    secrets = [SECRET_ARG, "evil.py", *_hex_strings(keys)]
    with sqlite3.connect(played.db) as conn:
        secrets += [row[0] for row in conn.execute("SELECT token_hash FROM remote_tokens")]
    for url, text in pages.items():
        if not url.startswith("/api/"):  # JSON holds the text as data, served as JSON
            assert EVIL not in text and EVIL_LOG not in text, url
        for secret in secrets:
            assert secret not in text, (url, secret)
    api = client.get("/api/bots/" + EVIL).json()
    assert api["name"] == EVIL and SECRET_ARG not in json.dumps(api)


def _hex_strings(data: object) -> list[str]:
    if isinstance(data, dict):
        return [s for v in data.values() for s in _hex_strings(v)]
    if isinstance(data, list):
        return [s for v in data for s in _hex_strings(v)]
    return [data] if isinstance(data, str) and len(data) >= 32 else []


def test_a_deal_still_in_play_is_not_shown(played: Played, tmp_path: Path) -> None:
    """While one seat rotation of a deal is pending, the others' replays (every hand of the
    deal) and the logs of the tournament's bots are withheld, served and exported alike."""
    db = serve_copy(played, tmp_path)
    tid = played.tournaments["skull"]
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
            "UPDATE games SET status = 'pending', actions = NULL, outcome = NULL WHERE id = ?",
            (first,),
        )
        conn.execute("UPDATE tournaments SET status = 'in-progress' WHERE id = ?", (tid,))
    client = TestClient(create_app(db))
    for url in (
        f"/games/{others[0]}",
        f"/api/games/{others[0]}",
        f"/api/games/{others[0]}?seat=0",
        f"/api/games/{others[0]}/frames/referee",
        f"/games/{others[1]}/frames/1.js",
    ):
        response = client.get(url)
        assert response.status_code == 409, url
        assert "still being played" in response.text
    bot = client.get("/api/bots/" + EVIL).json()
    assert bot["log"]["withheld"] and bot["log"]["files"] == []
    assert EVIL_LOG.replace("<", "&lt;") not in client.get("/bots/" + EVIL).text
    assert client.get(f"/games/{first_game(played, 'skyjo')}").status_code == 200
    from arena.web.export import export_site

    summary = export_site(db, tmp_path / "site", tournament=tid)
    assert summary.replays == 0 and summary.skipped == 2
    assert not list((tmp_path / "site").glob("game-*"))


def test_a_games_json_and_frames_carry_its_bots_log_lines_at_their_steps(
    client: TestClient, played: Played
) -> None:
    """The hostile bot prints a line at each of its decisions: the replay's JSON (= `arena
    replay --json`) and its frames hold each at the step of that decision, as data."""
    gid = first_game(played, "skull")
    record = client.get(f"/api/games/{gid}").json()
    evil = record["seating"].index(EVIL)
    mine = {a["step"] for a in record["actions"] if a["seat"] == evil and a["by"] == "bot"}
    logs = record["logs"]  # (the other bots' logs are held by a tournament still planned)
    assert logs["lines"] and "onerror" not in (logs["withheld"] or ""), logs
    lines = [line for line in logs["lines"] if line["text"] == EVIL_LOG]
    assert {line["seat"] for line in lines} == {evil}
    assert {line["step"] for line in lines} <= mine and len({line["step"] for line in lines}) > 1
    frames = client.get(f"/api/games/{gid}/frames/referee").json()["frames"]
    step = lines[0]["step"]
    assert [evil, EVIL_LOG, False] in frames[step + 1]["logs"], "shown after its step"
    other = (evil + 1) % 3
    seat_frames = client.get(f"/api/games/{gid}/frames/{other}").json()["frames"]
    assert all(frame["logs"] == [] for frame in seat_frames), "a seat sees only its own log"
