"""The pages of large-field formats in a real headless Chromium, at a laptop's and a phone's
size: a balanced tournament's balance, a Swiss tournament's standings after each round, a
knockout's bracket (each table's best going on, the winner marked, the final order), and the
same in the JSON API; pages of tournaments not played yet; no page wider than the screen."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.tournaments import cli, create
from tests.web.conftest import SIZES, Server, needs_chromium, open_page, start_server, stop_server
from tests.web.test_browser import PAGE_PROBLEMS

needs_chromium()


@pytest.fixture(scope="module")
def formats(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, dict[str, int]]]:
    db = tmp_path_factory.mktemp("formats") / "arena.db"
    ids = {
        "balanced": create(db, "random,first", "--copies", "4", "--tables-per-entrant", "3",
                           "--table-size", "4")[0],
        "swiss": create(db, "random,first", "--copies", "4", "--table-size", "3",
                        "--format", "swiss", "--rounds", "2")[0],
        "knockout": create(db, "random,first,random", "--copies", "3", "--table-size", "3",
                           "--advance", "1")[0],
        "unplayed": create(db, "random,first,random", "--copies", "3", "--table-size", "3",
                           "--advance", "1")[0],
    }  # fmt: skip
    for name in ("balanced", "swiss", "knockout"):
        cli("tournament", "run", str(ids[name]), "-q", "--jobs", "2", "--db", str(db))
    server = start_server(db)
    yield server, ids
    stop_server(server)


@pytest.mark.parametrize("size", list(SIZES))
def test_each_format_shows_its_shape(
    formats: tuple[Server, dict[str, int]], browser: object, size: str, shots: Path
) -> None:
    server, ids = formats
    page = open_page(browser, size)
    try:
        page.goto(f"{server.url}/tournaments/{ids['balanced']}")
        assert "each entrant at 3 tables" in page.inner_text("#balance")
        page.screenshot(path=str(shots / "balanced.png"), full_page=True)
        assert page.evaluate(PAGE_PROBLEMS) == []

        page.goto(f"{server.url}/tournaments/{ids['swiss']}")
        rows = page.query_selector_all("#swiss-standings tbody tr")
        assert len(rows) == 8
        assert [r.query_selector("td").inner_text() for r in rows] == [str(i) for i in range(1, 9)]
        headers = page.inner_text("#swiss-standings thead")
        assert "after round 1" in headers and "after round 2" in headers
        page.screenshot(path=str(shots / "swiss.png"), full_page=True)
        assert page.evaluate(PAGE_PROBLEMS) == []

        page.goto(f"{server.url}/tournaments/{ids['knockout']}")
        rounds = page.query_selector_all("#bracket .bracket-round")
        assert [r.query_selector("h3").inner_text() for r in rounds] == ["Round 1", "Final"]
        assert len(rounds[0].query_selector_all(".bracket-table")) == 3
        assert len(rounds[0].query_selector_all("li.on")) == 3, "one of each table goes on"
        went_on = {li.inner_text().split()[1] for li in rounds[0].query_selector_all("li.on")}
        finalists = {li.inner_text().split()[0] for li in rounds[1].query_selector_all("li")}
        assert went_on == finalists
        winner = rounds[1].query_selector("li.winner").inner_text().split()[0]
        assert page.inner_text("#knockout-order").startswith(f"Final order: 1. {winner},")
        page.screenshot(path=str(shots / "knockout.png"), full_page=True)
        assert page.evaluate(PAGE_PROBLEMS) == []

        page.goto(f"{server.url}/tournaments/{ids['unplayed']}")
        assert "in play" in page.inner_text("#bracket .bracket-round h3")
        assert page.query_selector("#knockout-order") is None
        assert page.evaluate(PAGE_PROBLEMS) == []
        assert page.errors == []
    finally:
        page.context.close()


def test_the_api_carries_each_format(formats: tuple[Server, dict[str, int]]) -> None:
    server, ids = formats
    swiss = httpx.get(f"{server.url}/api/tournaments/{ids['swiss']}").json()
    assert swiss["format"]["format"] == "swiss" and len(swiss["format"]["standings"]) == 2
    knockout = httpx.get(f"{server.url}/api/tournaments/{ids['knockout']}").json()
    assert knockout["format"]["bracket"][-1]["final"] is True
    assert len(knockout["format"]["order"]) == 9
    balanced = httpx.get(f"{server.url}/api/tournaments/{ids['balanced']}").json()
    assert balanced["format"]["balance"]["pairs_max"] >= 1
