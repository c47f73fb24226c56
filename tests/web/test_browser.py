"""The web pages in a real headless Chromium (the distribution's package, driven by
Playwright): every page of a real tournament of every game, a replay of each game clicked to
its end while a seat's view is checked against the referee's at every step, the live page
updating during a run, and the static export opened from files. Screenshots of every page go
to the test's tmp folder."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from arena.web.export import export_site
from tests.web.conftest import Played, Server, cli, start_server, stop_server

#: The distribution's Chromium: $ARENA_CHROMIUM, else ``chromium`` (or ``chromium-browser``)
#: on the PATH.
_FOUND = (
    os.environ.get("ARENA_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
)
CHROMIUM = Path(_FOUND) if _FOUND else None
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

playwright_api = pytest.importorskip(
    "playwright.sync_api", reason="Playwright for Python is not installed"
)
pytestmark = pytest.mark.skipif(
    CHROMIUM is None or not CHROMIUM.exists(),
    reason="no chromium on the PATH (.ci/run installs Debian's)",
)

#: In the seat pane, every face shown in another seat's zones must be face up (``up``) with
#: the same face in the referee's pane: anything else would be a hidden card leaking.
LEAKS = """() => {
  const me = document.getElementById('perspective').value;
  const ref = document.querySelectorAll('#table-referee .seat-box');
  const bad = [];
  document.querySelectorAll('#table-seat .seat-box').forEach((box, i) => {
    if (box.dataset.seat === me) { return; }
    const refZones = ref[i].querySelectorAll('.zone');
    box.querySelectorAll('.zone').forEach((zone, j) => {
      const refItems = refZones[j].querySelectorAll('.item');
      zone.querySelectorAll('.item').forEach((item, k) => {
        if (item.classList.contains('back') || item.textContent === '') { return; }
        const twin = refItems[k];
        if (!twin || !twin.classList.contains('up') || twin.textContent !== item.textContent) {
          bad.push('seat ' + box.dataset.seat + ' zone ' + j + ' item ' + k + ': '
                   + item.textContent);
        }
      });
    });
  });
  return bad;
}"""


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with playwright_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: object) -> Iterator[object]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    yield page
    context.close()


def links(html: str) -> list[str]:
    return [
        h.replace("&amp;", "&")
        for h in re.findall(r'href="(/[^"]*)"', html)
        if not h.startswith(("/static/", "/api/"))
    ]


def test_every_page_loads(served: Server, played: Played, page: object, tmp_path: Path) -> None:
    seen: set[str] = set()
    todo = ["/"]
    while todo:
        url = todo.pop()
        if url in seen:
            continue
        seen.add(url)
        response = page.goto(served.url + url)
        assert response.status == 200, url
        page.screenshot(path=str(tmp_path / f"page-{len(seen):03d}.png"), full_page=True)
        assert page.evaluate("window.pwned") is None, url
        todo += links(page.content())
    assert {f"/tournaments/{tid}" for tid in played.tournaments.values()} <= seen
    assert sum(u.startswith("/games/") for u in seen) == 12
    assert sum(u.startswith("/bots/") for u in seen) >= 7
    assert page.errors == []


def game_ids(served: Server, tid: int) -> list[int]:
    games = httpx.get(f"{served.url}/api/tournaments/{tid}/games").json()["games"]
    return [g["id"] for g in games]


@pytest.mark.parametrize("game", ["skull", "skull-bank", "skull-king", "skyjo"])
def test_replay_to_the_end_and_seats_see_no_hidden_card(
    served: Server, played: Played, page: object, game: str, tmp_path: Path
) -> None:
    gid = game_ids(served, played.tournaments[game])[0]
    record = httpx.get(f"{served.url}/api/games/{gid}").json()
    steps = 1 + max(a["step"] for a in record["actions"])
    page.goto(f"{served.url}/games/{gid}")
    page.wait_for_selector("#viewer[data-ready=yes]")
    seat = str(steps % 3)
    page.select_option("#perspective", seat)
    page.wait_for_selector("#pane-seat:not([hidden])")
    assert page.locator("#table-referee .seat-box").count() == 3
    assert page.locator("#table-referee .item").count() >= 3  # a table, not a text log
    clicks = 0
    while page.get_attribute("#viewer", "data-at-end") != "yes":
        assert page.evaluate(LEAKS) == [], f"step {clicks}"
        if clicks in (1, steps // 2):
            page.screenshot(path=str(tmp_path / f"{game}-{clicks}.png"), full_page=True)
        page.click("#next")
        clicks += 1
        assert clicks <= steps
    assert clicks == steps
    assert page.evaluate(LEAKS) == []
    assert "game over" in page.inner_text("#step-info")
    page.click("#first")
    assert page.get_attribute("#viewer", "data-step") == "0"
    marks = page.locator("#marks option")
    if marks.count() > 1:
        target = marks.nth(1).get_attribute("value")
        page.select_option("#marks", target)
        assert page.get_attribute("#viewer", "data-step") == target
    page.click("#play")
    page.wait_for_function(
        "s => document.getElementById('viewer').dataset.step !== s",
        arg=page.get_attribute("#viewer", "data-step"),
    )
    page.click("#play")
    assert page.errors == [] and page.evaluate("window.pwned") is None


def test_the_replay_shows_a_bots_log_lines_at_their_step_as_text(
    served: Server, played: Played, page: object
) -> None:
    gid = game_ids(served, played.tournaments["skull"])[0]
    record = httpx.get(f"{served.url}/api/games/{gid}").json()
    step = next(line["step"] for line in record["logs"]["lines"] if line["step"] is not None)
    page.goto(f"{served.url}/games/{gid}")
    page.wait_for_selector("#viewer[data-ready=yes]")
    for _ in range(step + 1):  # frame k shows what step k - 1 did and wrote
        page.click("#next")
    logs = page.locator("#step-info .log")
    assert logs.count() >= 1
    assert "<script>window.pwned=2</script>" in logs.first.inner_text()  # text, not markup
    assert page.evaluate("window.pwned") is None and page.errors == []


def test_live_page_updates_while_a_run_plays(page: object, tmp_path: Path) -> None:
    db = tmp_path / "live.db"
    out = cli(
        "tournament",
        "create",
        "--game",
        "skull",
        "--bots",
        "skull_odds,random,first",
        "--rounds",
        "300",
        "--json",
        "--db",
        str(db),
    )
    tid, total = json.loads(out)["id"], json.loads(out)["games_total"]
    server = start_server(db)
    try:
        page.goto(f"{server.url}/tournaments/{tid}")
        assert page.inner_text("#live-games") == f"0/{total}"
        page.evaluate("""() => {
          window.seenGames = [];
          const node = document.getElementById('live-games');
          new MutationObserver(() => window.seenGames.push(node.textContent))
            .observe(node, {childList: true, characterData: true, subtree: true});
        }""")
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
        run = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "arena",
                "tournament",
                "run",
                str(tid),
                "-q",
                "--sandbox",
                "off",
                "--db",
                str(db),
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        try:
            page.wait_for_function(
                "t => document.getElementById('live-games').textContent !== t",
                arg=f"0/{total}",
                timeout=120_000,
            )
            page.screenshot(path=str(tmp_path / "live-during.png"), full_page=True)
            assert run.wait(timeout=300) == 0, run.stderr.read()
        finally:
            if run.poll() is None:
                run.kill()
                run.wait()
        page.wait_for_function(
            "() => document.getElementById('live-status').textContent === 'done'", timeout=60_000
        )
        assert page.inner_text("#live-games") == f"{total}/{total}"
        seen = [int(text.split("/")[0]) for text in page.evaluate("window.seenGames")]
        assert any(0 < done < total for done in seen), seen  # updated during the run
        assert seen == sorted(seen)
        games = page.locator("#rankings tbody tr td:nth-child(7)").all_inner_texts()
        assert sum(map(int, games)) == 3 * total
        page.screenshot(path=str(tmp_path / "live-done.png"), full_page=True)
        assert page.errors == []
    finally:
        stop_server(server)


def test_export_works_from_files(played: Played, page: object, tmp_path: Path) -> None:
    summary = export_site(played.db, tmp_path / "site")
    assert summary.replays == 12 and summary.skipped == 0
    page.goto((tmp_path / "site" / "index.html").as_uri())
    page.click(f"a[href='tournament-{played.tournaments['skull-bank']}.html']")
    assert page.locator("#rankings tbody tr").count() == 3
    page.click("#games a >> nth=0")
    page.wait_for_selector("#viewer[data-ready=yes]")
    page.click("#last")
    assert page.get_attribute("#viewer", "data-at-end") == "yes"
    page.select_option("#perspective", "2")
    page.wait_for_selector("#pane-seat:not([hidden])")
    assert page.evaluate(LEAKS) == []
    page.screenshot(path=str(tmp_path / "export-game.png"), full_page=True)
    assert page.errors == [] and page.evaluate("window.pwned") is None
