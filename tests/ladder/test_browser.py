"""The ladder's pages in a real headless Chromium: a participant uploads a bot through the
upload form and reads the check's report, then watches the leaderboard update by itself
while the ladder plays (no reload)."""

from __future__ import annotations

import gzip
import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from arena.procs import sandbox
from tests.ladder.conftest import folder_bot, make_ladder
from tests.ladder.test_uploads import Served, serve
from tests.web.conftest import open_page, start_server, stop_server
from tournaments.catalogue.shipping import pack
from tournaments.ladder import service
from tournaments.store.facts import Store
from tournaments.store.ladders import LadderStore

pytestmark = pytest.mark.skipif(
    sandbox.available() is None, reason="uploaded bots run only in bubblewrap, missing here"
)


@pytest.fixture
def ladder_server(tmp_path: Path) -> Iterator[Served]:
    db = tmp_path / "arena.db"
    make_ladder(db, bots=("random", "first", "skull_odds"), batch_games=30)
    running = serve(db)
    yield running
    stop_server(running.server)


def test_upload_form_and_live_leaderboard(
    ladder_server: Served, shared: Path, tmp_path: Path, browser: object, shots: Path
) -> None:
    with Store.open(ladder_server.db) as store:
        token = service.invite(store, "alice")
    archive = tmp_path / "bot.tgz"
    archive.write_bytes(gzip.compress(pack(folder_bot(shared, "alices_bot"))))
    for size in ("desktop", "phone"):
        page = open_page(browser, size)
        page.goto(f"{ladder_server.url}/ladders/sk")
        assert (
            page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
        ), f"the ladder page scrolls sideways at {size} width"
        page.screenshot(path=str(shots / f"ladder-{size}-before.png"), full_page=True)
        page.context.close()
    page = open_page(browser, "phone")  # the check's report stays within a phone's width
    try:
        errors = page.errors
        page.goto(f"{ladder_server.url}/ladders/sk")
        page.click("#submit-link")
        page.fill("#token", token)
        page.set_input_files("#archive", str(archive))
        page.click("#send")
        page.wait_for_selector("#result", timeout=120_000)
        assert page.inner_text("#result h2") == "Entered"
        assert "alices_bot" in page.inner_text("#result-message")
        assert "[pass] starts and says hello" in page.inner_text("#report")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= page.viewport_size["width"], f"the answer scrolls sideways: {width}"
        assert "read-only" not in page.inner_text("footer")
        page.screenshot(path=str(shots / "upload.png"), full_page=True)

        page.goto(f"{ladder_server.url}/ladders/sk")
        assert page.inner_text("#ladder-games") == "0"
        rows = page.locator("#board tbody tr")
        assert rows.count() == 4
        played = threading.Thread(
            target=_play, args=(ladder_server.db,), daemon=True, name="ladder-run"
        )
        played.start()
        # the page redraws itself as games are recorded: no reload
        page.wait_for_function(
            "() => Number(document.getElementById('ladder-games').textContent) > 0",
            timeout=120_000,
        )
        played.join(timeout=300)
        page.wait_for_function(
            "() => [...document.querySelectorAll('#board tbody tr')].every("
            "tr => Number(tr.dataset.games) > 0)",
            timeout=30_000,
        )
        text = page.inner_text("#board")
        assert "alices_bot" in text and "alice" in text
        page.screenshot(path=str(shots / "ladder.png"), full_page=True)
        assert errors == []
    finally:
        page.context.close()


def _play(db: Path) -> None:
    with Store.open(db) as store:
        service.run_ladder(store, "sk", until_games=1)


def test_a_ladder_page_stays_true_while_a_batch_plays_and_after_it_stops(
    tmp_path: Path, browser: object, shots: Path
) -> None:
    """The page follows the run without a reload (the games, the recent games, the chart),
    says the run's state (running, then stopped with what goes on: never "N in play" with
    no run alive), and links no replay that would answer 409 when the ladder is stopped in
    the middle of a batch; the batch's own page names its ladder and says how to go on."""
    db = tmp_path / "arena.db"
    make_ladder(db, bots=("random", "first", "skull_odds"), batch_games=90)
    server = start_server(db)
    page = open_page(browser)
    run = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "arena",
            "ladder",
            "run",
            "sk",
            "-q",
            "--sandbox",
            "off",
            "--db",
            str(db),
        ],  # fmt: skip
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)),
    )
    try:
        page.goto(f"{server.url}/ladders/sk")
        assert page.locator("#no-games").count() == 1
        page.wait_for_function(
            "() => document.querySelectorAll('#recent tbody tr').length > 0"
            " && document.getElementById('ladder-state').textContent === 'running'",
            timeout=120_000,
        )  # no reload: the recent games came in
        assert int(page.get_attribute("body", "data-live-refreshes")) >= 1
        assert "to play" in page.inner_text("#ladder-run")
        run.send_signal(signal.SIGINT)  # the organiser stops it mid-batch
        assert run.wait(timeout=60) == 130, run.stderr.read().decode()[-2000:]
        # stopped mid-batch; or, when Ctrl-C fell after a batch's last game and before the
        # next was planned (games are fast: the recent games show in a batch's last phase),
        # idle with no batch open
        page.wait_for_function(
            "() => ['stopped', 'idle'].includes("
            "document.getElementById('ladder-state').textContent)",
            timeout=60_000,
        )
        state = page.inner_text("#ladder-state")
        notice = page.inner_text("#ladder-notice")
        if state == "stopped":
            assert re.search(r"of batch \d+ to play: `arena ladder run sk` goes on", notice)
            assert "UTC" in notice
        else:
            assert "no batch is being played: `arena ladder run sk` plays the next" in notice
        assert "in play" not in page.inner_text("#ladder-live")
        page.screenshot(path=str(shots / "ladder-stopped.png"), full_page=True)
        page.reload()  # what the server says, whole
        links = page.eval_on_selector_all("#recent a", "els => els.map(a => a.href)")
        assert len(links) == page.locator("#recent tbody tr").count()  # each game linked
        for link in links:  # and none answers 409: a game is listed once its deal is complete
            assert httpx.get(link, timeout=60).status_code == 200, link
        axis = page.locator("#skill-chart text.axis-title").all_text_contents()
        assert any("μ − 3σ" in text for text in axis) and not any("Elo" in t for t in axis)
        page.click("#legend summary")
        assert "μ − 3σ" in page.inner_text("#legend") and "leader" in page.inner_text("#legend")
        with Store.open(db) as store:
            lstore = LadderStore(store)
            batches = lstore.batches(lstore.ladder("sk").id)
        page.goto(f"{server.url}/tournaments/{batches[-1]}")  # the batch it stopped in
        assert page.inner_text("h1") == f"Ladder sk, batch {len(batches)}: skull"
        assert page.get_attribute("#ladder-link", "href") == "/ladders/sk"
        assert "tables of 3" in page.inner_text("#plan")
        if state == "stopped":  # the batch it stopped in says how to go on
            assert "arena ladder run sk" in page.inner_text("#run-notice")
        page.goto(f"{server.url}/ladders")
        row = page.locator("#ladders tr[data-ladder=sk]")
        assert row.locator(".games").inner_text() == page_games(db)
        assert row.locator(".status").inner_text() == state
        assert page.errors == []
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
        page.context.close()
        stop_server(server)


def page_games(db: Path) -> str:
    """The ladder's finished games, as the ladders' page writes their number."""
    with Store.open(db) as store:
        return str(service.leaderboard(store, "sk", elo=False).games)
