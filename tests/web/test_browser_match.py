"""A match's page in a real Chromium shows its SPRT as fishtest's test page shows a test: the
hypotheses and error rates, the LLR against its bounds, the verdict, the Elo difference with its
interval, the deal scores; the index and every tournament page say each one's kind."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.tournaments import cli, create
from tests.web.conftest import (
    SIZES,
    Server,
    needs_chromium,
    open_page,
    start_server,
    stop_server,
)
from tests.web.test_browser import PAGE_PROBLEMS

needs_chromium()

#: skull_odds is far above random: hypotheses 100 Elo apart are decided in a few deals.
STRONG = ("--sprt", "elo0=-50", "elo1=50", "alpha=0.05", "beta=0.05")


@pytest.fixture(scope="module")
def matched(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, int, int]]:
    """A database with a match decided by its SPRT and a gauntlet (planned), served."""
    db = tmp_path_factory.mktemp("match") / "arena.db"
    result = json.loads(
        cli(
            "match",
            "skull_odds",
            "random",
            "--game",
            "skull",
            *STRONG,
            "--games",
            "600",
            "--sandbox",
            "off",
            "--json",
            "--db",
            str(db),
        )  # fmt: skip
    )
    assert result["result"] == "H1", result
    gauntlet, _ = create(db, "random,first", "--gauntlet", "skull_odds")
    server = start_server(db)
    yield server, int(result["match"]), gauntlet
    stop_server(server)


@pytest.mark.parametrize("size", list(SIZES))
def test_a_match_page_shows_its_sprt(
    browser: object, matched: tuple[Server, int, int], size: str, shots: Path
) -> None:
    server, tid, _ = matched
    page = open_page(browser, size)
    assert page.goto(f"{server.url}/tournaments/{tid}").status == 200
    page.screenshot(path=str(shots / "match.png"), full_page=True)
    assert page.inner_text("h1") == f"Match {tid}: skull_odds vs random, skull"
    assert page.title().startswith(f"Match {tid}: skull_odds vs random")
    assert page.inner_text("#sprt-verdict") == "H1 accepted: skull_odds is stronger than random"
    assert page.get_attribute("#sprt-verdict", "data-state") == "H1"
    assert page.inner_text("#sprt-elo0") == "-50" and page.inner_text("#sprt-elo1") == "50"
    assert page.inner_text("#sprt-alpha") == "0.05" and page.inner_text("#sprt-beta") == "0.05"
    llr = float(page.inner_text("#sprt-llr"))
    assert page.inner_text("#sprt-bounds") == "[-2.94, +2.94]"
    assert llr >= 2.94, "H1 is accepted at the upper bound"
    assert float(page.get_attribute("#sprt-meter", "value")) == pytest.approx(llr, abs=0.01)
    elo = page.inner_text("#sprt-elo")
    assert elo.startswith("+") and "[" in elo and "(95 % interval)" in elo
    deals = int(page.inner_text("#sprt-deals"))
    counts = [int(c) for c in page.locator("#deal-scores tbody td").all_inner_texts()]
    assert len(counts) == 13 and sum(counts) == deals  # deals of 6 games: 0 to 6 points
    assert "faults in more than 5% of its games" in page.inner_text("#sprt-faults")
    assert "a match (tournament" in page.inner_text("#plan")
    assert page.evaluate(PAGE_PROBLEMS) == []
    assert page.errors == []
    page.context.close()


def test_the_index_and_each_page_say_the_kind(
    browser: object, matched: tuple[Server, int, int], shots: Path
) -> None:
    server, tid, gauntlet = matched
    page = open_page(browser)
    page.goto(server.url + "/")
    kinds = dict(
        zip(
            page.locator("#tournaments tbody td:first-child").all_inner_texts(),
            page.locator("#tournaments tbody td.kind").all_inner_texts(),
        )
    )
    assert kinds == {str(tid): "match", str(gauntlet): "gauntlet of skull_odds"}
    page.goto(f"{server.url}/tournaments/{gauntlet}")
    assert page.inner_text("h1") == f"Tournament {gauntlet}: skull, a gauntlet of skull_odds"
    assert page.locator("#sprt-section").count() == 0
    page.screenshot(path=str(shots / "gauntlet.png"), full_page=True)
    assert page.errors == []
    page.context.close()
