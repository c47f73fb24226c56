"""The web pages in a real headless Chromium (the distribution's package, driven by
Playwright), at a laptop's size (1366x900) and a phone's (390x844): every page of a real
tournament of every game is opened and checked (no script error, nothing injected, no page
wider than the screen, legible chart text, reachable tables, headings in order, named
buttons) and every link it holds answers; the charts, the lists (sorting, filters,
head-to-head), downloads, the bot page, dark mode, withheld deals and the static export.
Screenshots go to ``tests/web/artifacts/TEST/``."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import httpx
import pytest

from arena.web.export import export_site
from tests.web.conftest import (
    EVIL,
    EVIL_LOG,
    SIZES,
    Played,
    Server,
    needs_chromium,
    open_page,
    start_server,
    stop_server,
    withheld_copy,
)

needs_chromium()

#: Problems of the page in view: wider than the screen, chart text too small to read, a
#: table that can neither fit nor scroll, a progress bar squeezed, headings that skip a level,
#: a button without a name.
PAGE_PROBLEMS = """() => {
  const bad = [], width = window.innerWidth;
  if (document.documentElement.scrollWidth > width) {
    bad.push('page scrolls sideways: ' + document.documentElement.scrollWidth);
  }
  document.querySelectorAll('svg.chart text').forEach(t => {
    const h = t.getBoundingClientRect().height;
    if (h > 0 && h < 9) { bad.push('chart text ' + h.toFixed(1) + ' px: ' + t.textContent); }
  });
  document.querySelectorAll('table').forEach(table => {
    if (table.getBoundingClientRect().right <= width + 1) { return; }
    let node = table.parentElement, scrolls = false;
    while (node && node !== document.body) {
      if (['auto', 'scroll'].includes(getComputedStyle(node).overflowX)) { scrolls = true; }
      node = node.parentElement;
    }
    if (!scrolls) { bad.push('table cut: ' + table.id); }
  });
  document.querySelectorAll('progress').forEach(p => {
    const w = p.getBoundingClientRect().width;
    if (w > 0 && w < 60) { bad.push('progress bar ' + w + ' px'); }
  });
  let level = 0;
  document.querySelectorAll('h1, h2, h3, h4, h5, h6').forEach(h => {
    const next = +h.tagName[1];
    if (next > level + 1) { bad.push('heading h' + next + ' after h' + level); }
    level = next;
  });
  document.querySelectorAll('button').forEach(b => {
    const name = b.getAttribute('aria-label') || b.textContent;
    if (!/[a-z]/i.test(name)) { bad.push('button without a name: ' + b.outerHTML); }
  });
  return bad;
}"""


def hrefs(html: str) -> list[str]:
    return [h.replace("&amp;", "&") for h in re.findall(r'href="(/[^"#]*)', html)]


@pytest.mark.parametrize("size", list(SIZES))
def test_every_page_and_every_link(
    served: Server, played: Played, browser: object, size: str, shots: Path
) -> None:
    """Pages without a query are opened and checked, and their links followed; every link
    found (filtered and sorted lists, data files, replays) must answer 200 (a withheld or
    unwritten replay is not linked)."""
    page = open_page(browser, size)
    seen: set[str] = set()
    checked: dict[str, int] = {}
    shot: set[str] = set()
    todo = ["/"]
    with httpx.Client(base_url=served.url, timeout=60) as client:
        while todo:
            url = todo.pop()
            if url in seen:
                continue
            seen.add(url)
            response = page.goto(served.url + url)
            assert response.status == 200, url
            kind = url.split("/")[1] or "index"
            if kind not in shot:  # one screenshot of each kind of page
                shot.add(kind)
                page.screenshot(path=str(shots / f"{kind}.png"), full_page=True)
            assert page.evaluate(PAGE_PROBLEMS) == [], url
            assert page.evaluate("window.pwned") is None, url
            for link in hrefs(page.content()):
                if link.startswith(("/static/", "/api/")) or link in checked:
                    continue
                checked[link] = client.get(link).status_code
                assert checked[link] == 200, (url, link)
                if "?" not in link and not link.endswith((".csv", ".jsonl", ".js")):
                    todo.append(link)
    assert {f"/tournaments/{tid}" for tid in played.tournaments.values()} <= seen
    assert sum(u.startswith("/games/") for u in seen) == 12
    assert sum(u.startswith("/bots/") for u in seen) >= 7
    assert any("opponent=" in u for u in checked)  # the heat maps' head-to-head links
    assert page.errors == []
    page.context.close()


def test_charts_number_entrants_alike_and_explain_themselves(
    served: Server, played: Played, page: object, shots: Path
) -> None:
    page.goto(f"{served.url}/tournaments/{played.tournaments['skull-king']}")
    rows = [
        page.locator(f"#{chart} text.row").all_text_contents()
        for chart in ("los-chart", "cross-chart")
    ]
    columns = [
        page.locator(f"#{chart} text.column").all_text_contents()
        for chart in ("los-chart", "cross-chart")
    ]
    assert columns[0] == columns[1] == ["1", "2", "3"]
    ranked = page.locator("#rankings tbody td:nth-child(2)").all_inner_texts()
    assert rows[0] == rows[1] == [f"{i + 1}. {name}" for i, name in enumerate(ranked)]
    cells = page.locator("#cross-chart a.heat-cell")
    assert cells.count() == 6
    for i in range(cells.count()):
        tip = cells.nth(i).locator("title").text_content()
        assert re.search(r"\d+ wins, \d+ draws, \d+ losses", tip), tip
        assert cells.nth(i).locator("text.cell-count").text_content() == "3 g"
    assert (
        page.locator("#los-chart a.heat-cell title").first.text_content().endswith("(3 games met)")
    )
    fills = page.eval_on_selector_all(
        ".heat-cell rect", "rs => rs.map(r => r.getAttribute('fill'))"
    )
    for fill in fills:
        r, g, b = map(int, re.findall(r"\d+", fill))
        assert not (g > r + 20 and g > b + 20), fill  # no red-green scale
    for chart in ("elo-chart", "history-chart", "los-chart", "cross-chart"):
        assert page.locator(f"#{chart} .axis-title").count() >= 1, chart
    ticks = page.locator("#history-chart text.tick[text-anchor=middle]").all_text_contents()
    assert ticks == ["1", "2", "3"]
    assert page.locator("#history-chart circle").count() == 9  # few points: every one drawn
    page.screenshot(path=str(shots / "charts.png"), full_page=True)


@pytest.mark.parametrize("size", list(SIZES))
def test_a_crosstable_cell_opens_the_two_entrants_games(
    served: Server, played: Played, browser: object, size: str, shots: Path
) -> None:
    page = open_page(browser, size)
    page.goto(f"{served.url}/tournaments/{played.tournaments['skyjo']}")
    cell = page.locator("#cross-chart a.heat-cell").first
    cell.scroll_into_view_if_needed()
    cell.click()
    page.wait_for_selector("#head-to-head")
    query = parse_qs(urlparse(page.url).query)
    a, b = query["entrant"][0], query["opponent"][0]
    summary = page.inner_text("#head-to-head")
    assert summary.startswith(f"{a} against {b}: 3 games met") and "wins" in summary
    rows = page.locator("#games tbody tr").all_inner_texts()
    assert len(rows) == 3 and all(a in row and b in row for row in rows)
    page.screenshot(path=str(shots / "head-to-head.png"), full_page=True)
    page.context.close()


def test_lists_sort_and_filter(served: Server, played: Played, page: object) -> None:
    tid = played.tournaments["skull"]
    page.goto(f"{served.url}/tournaments/{tid}")
    page.click("#games thead a:text('game')")  # plan order, the other way round
    assert "order=desc" in page.url
    ids = [int(t) for t in page.locator("#games tbody td:first-child").all_inner_texts()]
    assert ids == sorted(ids, reverse=True) and len(ids) == 3
    assert page.get_attribute("#games th[aria-sort]", "aria-sort") == "descending"
    page.select_option("select[name=status]", "pending")
    page.click("#games-filter button")
    assert "status=pending" in page.url and "order=desc" in page.url
    page.wait_for_load_state()  # the address changes when the answer starts, the page after
    assert page.locator("#no-games").count() == 1
    page.goto(f"{served.url}/tournaments/{tid}")
    page.click("#rankings thead button:text('entrant')")
    names = page.locator("#rankings tbody td:nth-child(2)").all_inner_texts()
    assert names == sorted(names, key=str.lower)
    assert page.get_attribute("#rankings th[aria-sort]", "aria-sort") == "ascending"
    page.click("#rankings thead button:text-is('wins')")  # more is better: the best first
    wins = [int(w) for w in page.locator("#rankings tbody td:nth-child(8)").all_inner_texts()]
    assert wins == sorted(wins, reverse=True)
    assert page.get_attribute("#rankings th[aria-sort]", "aria-sort") == "descending"
    for game, best_first in (("skull", max), ("skyjo", min)):  # Skyjo: the lowest total wins
        page.goto(f"{served.url}/tournaments/{played.tournaments[game]}")
        page.click("#rankings thead button:text-is('mean score')")
        cells = page.locator("#rankings tbody td:nth-child(10)").all_inner_texts()
        scores = [float(x) for x in cells]
        assert scores[0] == best_first(scores), (game, scores)
    page.goto(f"{served.url}/")
    page.select_option("select[name=game]", "skyjo")
    page.click("#tournaments-filter button")
    games = page.locator("#tournaments tbody td:nth-child(3)").all_inner_texts()
    assert games == ["skyjo"]
    assert page.errors == []


def test_downloads(served: Server, played: Played, page: object) -> None:
    tid = played.tournaments["skull-bank"]
    page.goto(f"{served.url}/tournaments/{tid}")
    with page.expect_download() as info:
        page.click("a[href$='games.jsonl']")
    lines = [json.loads(line) for line in Path(info.value.path()).read_text().splitlines()]
    assert [line["plan_index"] for line in lines] == [0, 1, 2]
    assert all(line["replay"] and line["actions"] and "seed" in line for line in lines)
    rankings = httpx.get(f"{served.url}/tournaments/{tid}/rankings.csv").text.splitlines()
    assert rankings[0].startswith("place,entrant,bot,elo") and len(rankings) == 4
    crosstable = httpx.get(f"{served.url}/tournaments/{tid}/crosstable.csv").text.splitlines()
    assert crosstable[0] == "entrant,opponent,wins,draws,losses,score" and len(crosstable) == 7


def test_bot_pages(served: Server, played: Played, page: object, shots: Path) -> None:
    page.goto(f"{served.url}/bots/random")
    assert "random" in page.inner_text("#bot-description").lower()
    assert page.locator("#rating-chart circle").count() == 4  # four rated tournaments
    links = page.locator("#bot-tournaments td:first-child a")
    assert links.count() == 6 and links.first.get_attribute("href").startswith("/tournaments/")
    assert page.locator("#bot-games td:nth-child(2) a").count() == 12
    # random plays in tournaments whose deals are not all played: its log is withheld, and why
    assert page.locator("pre.log").count() == 0
    assert "withheld until tournament" in page.inner_text("#log-withheld")
    page.screenshot(path=str(shots / "random.png"), full_page=True)
    page.goto(f"{served.url}/bots/{EVIL}")
    logs = page.locator("pre.log").all_inner_texts()
    assert logs and all(EVIL_LOG in text for text in logs)
    assert "entrant" in page.inner_text("main h3 + p")
    assert page.evaluate("window.pwned") is None and page.errors == []


def test_dark_mode(served: Server, played: Played, browser: object, shots: Path) -> None:
    page = open_page(browser, color_scheme="dark")
    for url in ("/", f"/tournaments/{played.tournaments['skull']}", "/games/1"):
        page.goto(served.url + url)
        back = page.evaluate("getComputedStyle(document.body).backgroundColor")
        text = page.evaluate("getComputedStyle(document.body).color")
        assert sum(map(int, re.findall(r"\d+", back)[:3])) < 150, back
        assert sum(map(int, re.findall(r"\d+", text)[:3])) > 600, text
        page.screenshot(path=str(shots / f"{len(url)}.png"), full_page=True)
    assert page.errors == []
    page.context.close()


def test_withheld_replays_are_not_linked(
    played: Played, browser: object, tmp_path: Path, shots: Path
) -> None:
    db, tid, withheld = withheld_copy(played, tmp_path)
    server = start_server(db)
    page = open_page(browser)
    try:
        for url in (f"/tournaments/{tid}", "/bots/skull_odds"):
            page.goto(server.url + url)
            for gid in withheld:
                assert page.locator(f"a[href='/games/{gid}']").count() == 0, url
                row = page.locator(f"tr[data-game='{gid}']").first
                assert "withheld" in row.inner_text(), url
            for link in set(hrefs(page.content())):
                if link.startswith("/games/"):
                    assert httpx.get(server.url + link).status_code == 200, link
            page.screenshot(path=str(shots / f"{url.count('/')}.png"), full_page=True)
        lines = httpx.get(f"{server.url}/tournaments/{tid}/games.jsonl").text.splitlines()
        for line in map(json.loads, lines):
            assert ("seed" in line) == (line["id"] not in withheld and line["status"] == "done")
    finally:
        page.context.close()
        stop_server(server)


def exported_links(folder: Path) -> set[str]:
    found: set[str] = set()
    for html in folder.glob("*.html"):
        text = html.read_text()
        for value in re.findall(r'(?:href|src|data-replay)="([^"]+)"', text):
            if ":" not in value and not value.startswith("#"):
                found.add(value.split("#")[0].replace("&amp;", "&"))
    return found


def test_export_links_only_what_it_wrote_and_is_small(
    played: Played, browser: object, tmp_path: Path, shots: Path
) -> None:
    db, tid, withheld = withheld_copy(played, tmp_path)
    summary = export_site(db, tmp_path / "site")
    site = tmp_path / "site"
    assert summary.replays == 9 and summary.skipped == 2
    for link in exported_links(site):
        assert (site / link).exists(), link
    for gid in withheld:
        assert not (site / f"game-{gid}.html").exists()
    assert (site / f"tournament-{tid}-games.jsonl").read_text().count("\n") == 3
    replays = list(site.glob("game-*.js"))
    assert sum(p.stat().st_size for p in replays) / len(replays) < 40_000  # was ~870 kB
    bare = export_site(db, tmp_path / "bare", tournament=tid, replays=False)
    assert bare.replays == 0
    for link in exported_links(tmp_path / "bare"):
        assert (tmp_path / "bare" / link).exists(), link
    page = open_page(browser)
    page.goto((site / "index.html").as_uri())
    page.click(f"a[href='tournament-{played.tournaments['skull-bank']}.html']")
    assert page.locator("#rankings tbody tr").count() == 3
    page.locator("#cross-chart a.heat-cell").first.click()
    assert page.locator("#games tbody tr").count() == 3
    page.click("#games a >> nth=0")
    page.wait_for_selector("#viewer[data-ready=yes]")
    page.click("#last")
    assert page.get_attribute("#viewer", "data-at-end") == "yes"
    page.select_option("#perspective", "2")
    page.wait_for_selector("#pane-seat:not([hidden])")
    page.screenshot(path=str(shots / "export-game.png"), full_page=True)
    assert page.errors == [] and page.evaluate("window.pwned") is None
    page.context.close()


def test_the_replay_shows_a_bots_log_lines_at_their_step_as_text(
    served: Server, played: Played, page: object
) -> None:
    tid = played.tournaments["skull"]
    games = httpx.get(f"{served.url}/api/tournaments/{tid}/games").json()["games"]
    gid = games[0]["id"]
    record = httpx.get(f"{served.url}/api/games/{gid}").json()
    step = next(line["step"] for line in record["logs"]["lines"] if line["step"] is not None)
    frames = httpx.get(f"{served.url}/api/games/{gid}/frames/referee").json()["frames"]
    frame = next(i for i, f in enumerate(frames) if f["step"] == step + 1)
    page.goto(f"{served.url}/games/{gid}#step={frame}")
    page.wait_for_selector("#viewer[data-ready=yes]")
    logs = page.locator("#step-info .log")
    logs.first.wait_for()
    assert "<script>window.pwned=2</script>" in logs.first.inner_text()  # text, not markup
    assert page.evaluate("window.pwned") is None and page.errors == []
