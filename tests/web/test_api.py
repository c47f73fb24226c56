"""The web app over plain HTTP (Starlette's TestClient): every JSON endpoint against the
CLI's ``--json``, every page, bad input (unknown ids, an empty tournament, a missing, corrupt,
locked or newer database), escaping, and that nothing secret is ever served or written."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
import shutil
import sqlite3
import warnings
from datetime import UTC, datetime
from pathlib import Path

import pytest

with warnings.catch_warnings():  # newer Starlette prefers httpx2 for its test client
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from arena.keys.keyfile import key_file_path
from arena.web.app import create_app
from arena.web.downloads import crosstable_csv
from tests.web.conftest import EVIL, EVIL_LOG, SECRET_ARG, Played, cli, withheld_copy
from tournaments.store.migrations import SCHEMA_VERSION


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
    assert len(set(re.findall(r'href="/games/\d+"', html))) == 3


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
    monkeypatch.setattr("tournaments.store.readonly.BUSY_TIMEOUT_MS", 100)
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
    db, tid, others = withheld_copy(played, tmp_path)
    client = TestClient(create_app(db))
    for url in (
        f"/games/{others[0]}",
        f"/api/games/{others[0]}",
        f"/api/games/{others[0]}?seat=0",
        f"/api/games/{others[0]}/frames/referee",
        f"/games/{others[1]}/replay.js",
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


def test_games_filters_and_sorts(client: TestClient, played: Played) -> None:
    tid = played.tournaments["skull-king"]
    url = f"/api/tournaments/{tid}/games"
    pair = client.get(f"{url}?entrant=random&opponent=first").json()
    assert pair["total"] == 3 and all(
        {"random", "first"} <= set(g["seating"]) for g in pair["games"]
    )
    latest = client.get(f"{url}?sort=finished&order=desc").json()["games"]
    assert [g["finished_at"] for g in latest] == sorted(
        (g["finished_at"] for g in latest), reverse=True
    )
    faulty = client.get(f"{url}?faults=with").json()
    clean = client.get(f"{url}?faults=without").json()
    assert faulty["total"] + clean["total"] == 3
    assert all(g["faults"] > 0 for g in faulty["games"]) and all(
        g["faults"] == 0 for g in clean["games"]
    )
    pending = client.get(f"/api/tournaments/{played.empty}/games?status=pending").json()
    assert pending["total"] == 3 and not any(g["replay"] for g in pending["games"])
    assert all(g["replay"] and g["withheld"] is None for g in latest)
    for bad in ("sort=seed", "order=up", "status=lost", "faults=some", "opponent=random"):
        response = client.get(f"{url}?{bad}")
        assert response.status_code == 400, bad
    assert client.get(f"{url}?entrant=random&opponent=nobody").status_code == 404
    assert client.get("/?status=lost").status_code == 400
    skyjo = client.get("/?game=skyjo").text
    assert skyjo.count("<tr>\n<td data-value=") == 1


def test_live_says_whether_the_run_is_alive(played: Played, tmp_path: Path) -> None:
    db = serve_copy(played, tmp_path)
    client = TestClient(create_app(db))
    tid = played.tournaments["skull"]
    assert client.get(f"/api/tournaments/{tid}/live").json()["run"]["state"] == "done"
    fresh = client.get(f"/api/tournaments/{played.empty}/live").json()
    assert fresh["run"]["state"] == "not started" and fresh["eta_s"] is None
    old, now = "2000-01-01T00:00:00.000+00:00", datetime.now(UTC).isoformat()
    with sqlite3.connect(db) as conn:
        conn.execute(
            "INSERT INTO runs (tournament_id, host, pid, pid_token, started_at, beat_at) "
            "VALUES (?, 'elsewhere', 1, NULL, ?, ?)",
            (played.empty, old, now),
        )
    running = client.get(f"/api/tournaments/{played.empty}/live").json()["run"]
    assert running["state"] == "running" and running["message"] is None
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE runs SET beat_at = ?", (old,))
    stopped = client.get(f"/api/tournaments/{played.empty}/live").json()["run"]
    assert stopped["state"] == "stopped"
    assert stopped["message"] == f"stopped: run `arena tournament run {played.empty}` to finish"
    assert "stopped: run `arena tournament run" in client.get(f"/tournaments/{played.empty}").text


def test_the_games_being_played_show_their_table_and_nothing_of_their_deal(
    played: Played, tmp_path: Path
) -> None:
    """A live run's games in play (as its last beat wrote them): listed with their tables (the
    hostile name as text), never their deal, never linked; a recorded game is not listed; a
    stopped run lists none."""
    db, tid, others = withheld_copy(played, tmp_path)
    with sqlite3.connect(db) as conn:
        (first,) = conn.execute(
            "SELECT id FROM games WHERE tournament_id = ? AND status = 'pending'", (tid,)
        ).fetchone()
        now = datetime.now(UTC).isoformat()
        in_play = [{"game_id": g, "started_at": now} for g in (first, others[0])]
        conn.execute(
            "INSERT INTO runs (tournament_id, host, pid, pid_token, started_at, beat_at, "
            "in_play) VALUES (?, 'elsewhere', 1, NULL, ?, ?, ?)",
            (tid, now, now, json.dumps(in_play)),
        )
    client = TestClient(create_app(db))
    live = client.get(f"/api/tournaments/{tid}/live").json()
    assert live["run"]["state"] == "running"
    (shown,) = live["playing"]  # the game recorded since the beat is not listed
    assert shown["game_id"] == first and EVIL in shown["seats"] and shown["started_s"] >= 0
    assert set(shown) == {
        "game_id",
        "repetition",
        "table",
        "rotation",
        "seats",
        "started_at",
        "started_s",
    }
    page = client.get(f"/tournaments/{tid}").text
    start = page.index('id="playing-section"')
    playing = page[start : page.index("</section>", start)]
    assert f'<li data-game="{first}">' in playing and "&lt;img src=x onerror=" in playing
    assert EVIL not in playing and "href" not in playing
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE runs SET beat_at = '2000-01-01T00:00:00.000+00:00'")
    assert client.get(f"/api/tournaments/{tid}/live").json()["playing"] == []
    page = client.get(f"/tournaments/{tid}").text
    assert "<li data-game=" not in page and "No game is being played: the run has stopped." in page


def test_data_files(client: TestClient, played: Played) -> None:
    tid = played.tournaments["skyjo"]
    rankings = client.get(f"/tournaments/{tid}/rankings.csv")
    assert rankings.headers["content-type"].startswith("text/csv")
    assert "attachment" in rankings.headers["content-disposition"]
    rows = list(csv.DictReader(io.StringIO(rankings.text)))
    shown = client.get(f"/api/tournaments/{tid}/rankings").json()["rankings"]
    assert [r["entrant"] for r in rows] == [r["entrant"] for r in shown]
    lines = client.get(f"/tournaments/{tid}/games.jsonl").text.splitlines()
    record = client.get(f"/api/games/{json.loads(lines[0])['id']}").json()
    first = json.loads(lines[0])
    assert first["seed"] == record["seed"] and len(first["actions"]) == len(record["actions"])
    assert client.get("/tournaments/999/games.jsonl").status_code == 404
    hostile = crosstable_csv({"pairs": [{"entrant": "=HYPERLINK(1)", "opponent": "+x"}]})
    assert "'=HYPERLINK(1)" in hostile and "'+x" in hostile


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
    after = next(frame for frame in frames if frame["step"] == step + 1)
    assert [evil, EVIL_LOG, False] in after["logs"], "shown with its step's action"
    script = client.get(f"/games/{gid}/replay.js").text
    assert script.count("arenaReplayLogs(") == 1 and json.dumps(EVIL_LOG)[1:-1] in script
    other = (evil + 1) % 3
    seat_frames = client.get(f"/api/games/{gid}/frames/{other}").json()["frames"]
    assert all(frame["logs"] == [] for frame in seat_frames), "a seat sees only its own log"


def test_times_say_their_date_and_zone(client: TestClient, played: Played) -> None:
    """Every time a page shows has its date and its zone (``2026-01-02 03:04:05 UTC``): the
    index, a tournament's creation and its games' finish, a game's finish."""
    stamp = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC")
    tid = played.tournaments["skull"]
    index = client.get("/").text
    page = client.get(f"/tournaments/{tid}").text
    game = client.get(f"/games/{first_game(played, 'skull')}").text
    assert stamp.search(index) and stamp.search(game)
    assert re.search(r"created " + stamp.pattern, page)
    finished = re.findall(r"<td>([^<]*\d\d:\d\d:\d\d[^<]*)</td>", page)
    assert finished and all(stamp.fullmatch(text) for text in finished), finished[:3]


def test_a_bots_chart_joins_only_the_tournaments_of_one_game(
    client: TestClient, played: Played
) -> None:
    """``random`` played one tournament of each game: ratings of different games are on no
    common scale, so no line joins them (one line ran through all four)."""
    page = client.get("/bots/random").text
    chart = page.split('id="rating-chart"')[1].split("</svg>")[0]
    lines = re.findall(r'<line x1="([\d.]+)" y1="([\d.]+)" x2="([\d.]+)" y2="([\d.]+)"', chart)
    assert len(re.findall(r"<circle ", chart)) == 4
    assert [ln for ln in lines if ln[0] != ln[2] and ln[1] != ln[3]] == []  # none slanting
