"""A running tournament's page in a real headless Chromium, while a real run plays it: every
section follows the run (progress, rankings, charts, faults, latest games, the games list and
its links, the games being played, at a laptop's and a phone's width), a killed run is shown
stopped with what to do (and no game in play), and a resumed run is followed to its end.
Screenshots go to ``tests/web/artifacts/TEST/``."""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.tournaments import slow_tournament, thinking_bot
from tests.web.conftest import SIZES, needs_chromium, open_page, start_server, stop_server

needs_chromium()

#: A bot that thinks 20 ms a move (a run of its games lasts seconds, whatever the machine) and,
#: every 25th move, too long for the tournament's 150 ms (a timeout fault), though not for the
#: entry check's 2 s.
SLOW_BOT = textwrap.dedent("""
    import random, time
    from protocol.sdk import run_bot

    moves = 0

    def act(view, legal):
        global moves
        moves += 1
        time.sleep(0.4 if moves % 25 == 0 else 0.02)
        return random.choice(legal)

    if __name__ == "__main__":
        run_bot(act, name="slow")
""")
ROUNDS = 30  # 90 games: long enough to be caught running, short enough to end quickly


@pytest.fixture
def slow_bot() -> Iterator[Path]:
    # readable by the unprivileged users bots run as when the tests run as root
    folder = Path(tempfile.mkdtemp(prefix="arena-web-slow-"))
    folder.chmod(0o755)
    script = folder / "slow.py"
    script.write_text(SLOW_BOT)
    script.chmod(0o644)
    yield script
    for path in folder.iterdir():
        path.unlink()
    folder.rmdir()


def run(db: Path, tid: int, *options: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    command = [sys.executable, "-m", "arena", "tournament", "run", str(tid), "-q", *options]
    return subprocess.Popen(
        [*command, "--sandbox", "off", "--db", str(db)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def games_done(page: object) -> int:
    return int(page.get_attribute("#live", "data-games-done"))


DESKTOP, PHONE = SIZES["desktop"], SIZES["phone"]
PLAYING = "() => document.querySelectorAll('#playing li').length > 0"


def check_playing(page: object, db: Path, tid: int) -> None:
    """The "Playing now" list shows games of tournament ``tid``, each with its three entrants,
    and no link (a game in play has no replay); the page does not scroll sideways."""
    ids = [
        int(i) for i in page.eval_on_selector_all("#playing li", "l => l.map(e => e.dataset.game)")
    ]
    with sqlite3.connect(db) as conn:
        games = dict(conn.execute("SELECT id, tournament_id FROM games").fetchall())
    assert ids and all(games.get(game_id) == tid for game_id in ids)
    for text in page.locator("#playing li").all_inner_texts():
        assert all(f": {name}" in text for name in ("slow", "random", "first")), text
        assert "started" in text and "ago" in text
    assert page.locator("#playing a").count() == 0
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]


def wait_playing(page: object, proc: subprocess.Popen, timeout_s: float = 120) -> None:
    """Wait until the page lists a game being played; fail, saying why, if the run ended
    first (its exit status and errors: a run that failed, or one too quick for the page)."""
    deadline = time.monotonic() + timeout_s
    while not page.evaluate(PLAYING):
        if proc.poll() is not None:
            pytest.fail(
                f"the run ended (exit {proc.returncode}) before the page listed a game in play: "
                f"{proc.stderr.read().decode(errors='replace')[-2000:]}"
            )
        assert time.monotonic() < deadline, "the page never listed a game in play"
        page.wait_for_timeout(200)


def served_playing(url: str) -> bool:
    """Whether the page's HTML (without JavaScript) lists a game being played."""
    with urllib.request.urlopen(url) as response:
        return '<ul id="playing" class="playing">\n<li data-game=' in response.read().decode()


def test_live_page_follows_the_run_and_says_when_it_stopped(
    browser: object, tmp_path: Path, slow_bot: Path, shots: Path
) -> None:
    db = tmp_path / "live.db"
    tid, total = slow_tournament(db, slow_bot, "--rounds", str(ROUNDS), "--move-time", "150")
    server = start_server(db)
    page = open_page(browser)
    first = None
    try:
        page.goto(f"{server.url}/tournaments/{tid}")
        assert page.inner_text("#live-games") == f"0/{total}"
        assert page.inner_text("#live-status") == "not started"
        assert "arena tournament run" in page.inner_text("#run-notice")
        assert page.locator("#los-chart text.row").count() == 3  # entrants, not "No entrants"
        assert page.locator("#games a[href^='/games/']").count() == 0
        assert page.locator("#playing li").count() == 0
        assert page.inner_text("#playing-none") == "No game is being played."
        first = run(db, tid)
        page.wait_for_function(
            "() => +document.getElementById('live').dataset.gamesDone >= 6"
            " && document.querySelectorAll('#faults tbody tr').length > 0",
            timeout=120_000,
        )
        page.screenshot(path=str(shots / "running.png"), full_page=True)
        assert page.inner_text("#live-status") == "running" and first.poll() is None
        done = games_done(page)
        assert page.locator("#elo-chart circle").count() == 3  # rated, not "No ratings yet"
        assert page.locator("#history-chart polyline").count() == 3
        assert page.locator("#recent tbody tr").count() >= 1
        listed = page.locator("#games tbody tr")
        linked = page.locator("#games a[href^='/games/']")
        played = [r for r in listed.all_inner_texts() if "\tdone\t" in r]
        assert len(played) >= 3
        # a run plays a batch of deals rotation by rotation: no deal is complete before the
        # last rotation's phase, and games of incomplete deals are listed without a link
        if games_done(page) < 2 * total // 3:  # (the links follow once deals complete: below)
            assert linked.count() == 0 and "replay withheld" in played[0]
        games = sum(map(int, page.locator("#rankings td:nth-child(7)").all_inner_texts()))
        assert games >= 3 * int(page.get_attribute("#live", "data-rated-games")) > 0
        first.send_signal(signal.SIGKILL)
        first.wait()
        page.wait_for_function(
            "() => document.getElementById('live-status').textContent === 'stopped'",
            timeout=60_000,
        )
        notice = page.inner_text("#run-notice")
        assert notice == f"stopped: run `arena tournament run {tid}` to finish"
        assert page.inner_text("#live-eta") == "" and page.inner_text("#live-rate") == ""
        assert games_done(page) >= done
        # a stopped run plays nothing, whatever its last beat said
        page.wait_for_function("() => !document.getElementById('playing-none').hidden")
        assert page.locator("#playing li").count() == 0 and not served_playing(page.url)
        page.screenshot(path=str(shots / "stopped.png"), full_page=True)
        second = run(db, tid)
        assert second.wait(timeout=300) == 0, second.stderr.read()
        page.wait_for_function(
            "() => document.getElementById('live-status').textContent === 'done'",
            timeout=60_000,
        )
        assert page.inner_text("#live-games") == f"{total}/{total}"
        assert page.locator("#run-notice").count() == 0
        assert page.locator("#playing li").count() == 0
        rankings = page.locator("#rankings tbody td:nth-child(7)").all_inner_texts()
        assert sum(map(int, rankings)) == 3 * total
        pages = re.search(r"page 1 of (\d+) \((\d+) games\)", page.inner_text(".pager"))
        assert pages and int(pages.group(2)) == total
        shown = page.locator("#games tbody tr").count()
        assert page.locator("#games a[href^='/games/']").count() == shown  # every game linked
        assert page.locator("#faults tbody tr").count() >= 1
        page.screenshot(path=str(shots / "done.png"), full_page=True)
        assert page.errors == []
    finally:
        if first is not None and first.poll() is None:
            first.kill()
            first.wait()
        page.context.close()
        stop_server(server)


def test_live_page_lists_the_games_being_played(
    browser: object, tmp_path: Path, shared: Path, shots: Path
) -> None:
    db = tmp_path / "playing.db"
    thinker = thinking_bot(shared, 0.05)  # never too long: games of seconds, without faults
    tid, _ = slow_tournament(db, thinker, "--rounds", "5", "--move-time", "2000")
    server = start_server(db)
    page = open_page(browser)
    proc = None
    try:
        page.goto(f"{server.url}/tournaments/{tid}")
        assert page.locator("#playing li").count() == 0
        assert page.inner_text("#playing-none") == "No game is being played."
        proc = run(db, tid, "--games-per-worker", "2")  # ten phases of one or two games
        # the list follows the run (between two phases it is empty for a moment)
        wait_playing(page, proc)
        check_playing(page, db, tid)
        deadline = time.monotonic() + 120  # the served HTML lists them too (no script)
        while not served_playing(page.url):
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.2)
        page.locator("#playing-section").screenshot(path=str(shots / "playing.png"))
        page.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})  # a phone's width
        wait_playing(page, proc)
        check_playing(page, db, tid)
        page.screenshot(path=str(shots / "playing-phone.png"), full_page=True)
        page.set_viewport_size({"width": DESKTOP[0], "height": DESKTOP[1]})
        assert proc.wait(timeout=300) == 0, proc.stderr.read()
        page.wait_for_function(
            "() => document.getElementById('live-status').textContent === 'done'",
            timeout=120_000,
        )
        assert page.locator("#playing li").count() == 0  # the run ended: none in play
        assert not page.is_visible("#playing") or page.inner_text("#playing") == ""
        assert page.errors == []
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
        page.context.close()
        stop_server(server)
