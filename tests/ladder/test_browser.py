"""The ladder's pages in a real headless Chromium: a participant uploads a bot through the
upload form and reads the check's report, then watches the leaderboard update by itself
while the ladder plays (no reload)."""

from __future__ import annotations

import gzip
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.procs import sandbox
from tests.ladder.conftest import folder_bot, make_ladder
from tests.ladder.test_uploads import Served, serve
from tests.web.conftest import open_page, stop_server
from tournaments.catalogue.shipping import pack
from tournaments.ladder import service
from tournaments.store.facts import Store

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
    page = open_page(browser)
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
