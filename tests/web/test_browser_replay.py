"""The replay viewer in a real headless Chromium: a game of every game walked to its end with
a seat's pane open (no hidden card of another seat in it; both panes agreeing on every public
fact; "jump to" following), the keys, the end of each round shown, addresses to a step and a
seat (and the back button), the move list and score sheet, legibility, and the phone layout.
Screenshots go to ``tests/web/artifacts/TEST/``."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from tests.web.conftest import Played, Server, needs_chromium, open_page

needs_chromium()

#: In the seat pane, every face shown in another seat's zones must be face up (``up``) with
#: the same face in the referee's pane: anything else would be a hidden card leaking. And the
#: panes must agree on every public fact: each info entry both show, who is to act, the
#: banner, each seat's notes.
CHECK_STEP = """() => {
  const me = document.getElementById('perspective').value;
  const ref = document.querySelectorAll('#table-referee .seat-box');
  const mine = document.querySelectorAll('#table-seat .seat-box');
  const bad = [];
  mine.forEach((box, i) => {
    if (box.dataset.seat === me) { return; }
    const refZones = ref[i].querySelectorAll('.zone');
    box.querySelectorAll('.zone').forEach((zone, j) => {
      const refItems = refZones[j].querySelectorAll('.item');
      zone.querySelectorAll('.item').forEach((item, k) => {
        if (item.classList.contains('back') || item.textContent === '') { return; }
        const twin = refItems[k];
        if (!twin || !twin.classList.contains('up') || twin.textContent !== item.textContent) {
          bad.push('leak: seat ' + box.dataset.seat + ' zone ' + j + ' item ' + k);
        }
      });
    });
  });
  const facts = pane => {
    const found = {};
    document.querySelectorAll(pane + ' .kv').forEach(kv => {
      found[kv.firstChild.textContent.trim()] = kv.lastChild.textContent;
    });
    return found;
  };
  const theirs = facts('#table-referee'), ours = facts('#table-seat');
  Object.keys(ours).forEach(k => {
    if (k in theirs && theirs[k] !== ours[k]) { bad.push(k + ': ' + ours[k] + ' / ' + theirs[k]); }
  });
  const acting = pane => Array.from(document.querySelectorAll(pane + ' .seat-box'))
    .map(b => b.classList.contains('active') + ':' + (b.querySelector('.notes') || {}).textContent);
  if (acting('#table-referee').join() !== acting('#table-seat').join()) {
    bad.push('seats differ');
  }
  const banner = pane => (document.querySelector(pane + ' .banner') || {}).textContent;
  if (banner('#table-referee') !== banner('#table-seat')) { bad.push('banner differs'); }
  const step = +document.getElementById('viewer').dataset.step;
  const marks = document.getElementById('marks');
  const chosen = +marks.value;
  const later = Array.from(marks.options).map(o => +o.value).filter(v => v > chosen && v <= step);
  if (chosen > step || later.length) {
    bad.push('jump to does not follow: ' + chosen + ' at ' + step);
  }
  return bad;
}"""

#: Walk from the first step to the last, checking each step (every step of a game of up to 300
#: steps, else 300 steps spread evenly and the last), in one round trip.
WALK = (
    """() => {
  const check = """
    + CHECK_STEP
    + """;
  const viewer = document.getElementById('viewer'), slider = document.getElementById('slider');
  const last = +slider.max, stride = Math.max(1, Math.ceil(last / 300)), out = [];
  for (let i = 0; ; i = Math.min(i + stride, last)) {
    slider.value = i;
    slider.dispatchEvent(new Event('input'));
    check().forEach(p => out.push('step ' + viewer.dataset.step + ': ' + p));
    if (i === last) { break; }
  }
  return {problems: out, last: +viewer.dataset.step};
}"""
)


def game_ids(served: Server, tid: int) -> list[int]:
    games = httpx.get(f"{served.url}/api/tournaments/{tid}/games").json()["games"]
    return [g["id"] for g in games]


def frames_of(served: Server, gid: int) -> list[dict]:
    return httpx.get(f"{served.url}/api/games/{gid}/frames/referee", timeout=60).json()["frames"]


def step(page: object) -> int:
    return int(page.get_attribute("#viewer", "data-step"))


@pytest.mark.parametrize("game", ["skull", "skull-bank", "skull-king", "skyjo"])
def test_replay_to_the_end_with_a_seat_pane(
    served: Server, played: Played, page: object, game: str, shots: Path
) -> None:
    for gid in game_ids(served, played.tournaments[game])[:1]:
        frames = frames_of(served, gid)
        page.goto(f"{served.url}/games/{gid}")
        page.wait_for_selector("#viewer[data-ready=yes]")
        page.select_option("#perspective", str(gid % 3))
        page.wait_for_selector("#pane-seat:not([hidden])")
        assert page.locator("#table-referee .item").count() >= 3  # a table, not a text log
        page.screenshot(path=str(shots / f"{gid}-start.png"), full_page=True)
        walked = page.evaluate(WALK)
        assert walked["problems"] == [] and walked["last"] == len(frames) - 1
        assert "game over" in page.inner_text("#step-info")
        assert page.locator("#table-referee .seat-box.active").count() == 0
        page.screenshot(path=str(shots / f"{gid}-end.png"), full_page=True)
    assert page.errors == [] and page.evaluate("window.pwned") is None


def test_keys_move_one_step_and_pause(
    served: Server, played: Played, page: object, shots: Path
) -> None:
    gid = game_ids(served, played.tournaments["skull-king"])[0]
    last = len(frames_of(served, gid)) - 1
    page.goto(f"{served.url}/games/{gid}#step=10")
    page.wait_for_selector("#viewer[data-ready=yes]")
    assert step(page) == 10
    page.focus("#slider")
    page.keyboard.press("ArrowRight")
    assert step(page) == 11  # one step, not the slider's own move as well
    page.keyboard.press("ArrowLeft")
    assert step(page) == 10
    page.focus("#perspective")
    page.keyboard.press("ArrowRight")
    assert step(page) == 10  # the select keeps its keys
    page.focus("#next")
    page.keyboard.press("End")
    assert step(page) == last and page.get_attribute("#viewer", "data-at-end") == "yes"
    page.keyboard.press("Home")
    assert step(page) == 0
    page.click("main h1")  # focus nowhere in particular
    page.keyboard.press("Space")
    assert page.inner_text("#play") == "pause"
    page.wait_for_function("() => +document.getElementById('viewer').dataset.step >= 1")
    page.keyboard.press("ArrowRight")  # a step pauses the autoplay
    assert page.inner_text("#play") == "play"
    paused = step(page)
    page.wait_for_timeout(900)  # longer than an autoplay step
    assert step(page) == paused
    page.keyboard.press("Space")
    assert page.get_attribute("#play", "aria-label") == "pause"
    page.keyboard.press("Space")
    assert page.get_attribute("#play", "aria-label") == "play"
    target = frames_of(served, gid)[230 if last > 230 else last // 2]
    page.keyboard.press("End")
    assert page.locator("#marks option:checked").inner_text() in ("game over", target["label"])
    assert page.errors == []


def test_each_round_ends_in_a_step_of_its_own(
    served: Server, played: Played, page: object, shots: Path
) -> None:
    for game in ("skull", "skull-king", "skyjo"):
        found = None
        for gid in game_ids(served, played.tournaments[game]):
            frames = frames_of(served, gid)
            endings = [i for i, f in enumerate(frames) if f["kind"] == "ending"]
            assert endings, gid
            if game != "skull":
                found = gid, endings[0]
                break
            met = [i for i in endings if "skull and loses" in frames[i]["scene"]["banner"]]
            if met:
                found = gid, met[0]
                break
        assert found is not None, game  # a challenge ended on a skull
        gid, i = found
        page.goto(f"{served.url}/games/{gid}#step={i}&seat=1")
        page.wait_for_selector("#viewer[data-ready=yes]")
        assert step(page) == i
        banner = page.inner_text("#table-referee .banner")
        assert banner == page.inner_text("#table-seat .banner")
        if game == "skyjo":
            assert banner.startswith("round 1 over")
            assert page.locator("#table-seat .zone-grid .item").count() > 0
            assert page.locator("#table-referee .zone-grid .item.down").count() == 0
            assert page.locator("#table-seat .zone-grid .item.back").count() == 0
        if game == "skull-king":
            assert banner.startswith("round 1 over: the last trick goes to")
            taker = re.search(r"goes to (seat \d|nobody)", banner).group(1)
            for pane in ("#table-referee", "#table-seat"):
                trick = page.locator(f"{pane} .center .zone:has-text('last trick')")
                assert f"won by {taker}" in trick.locator(".zone-label").inner_text()
                assert trick.locator(".item").count() == 3
                subs = trick.locator(".sub").all_inner_texts()
                assert sorted(subs) == ["seat 0", "seat 1", "seat 2"]
        if game == "skull":
            for pane in ("#table-referee", "#table-seat"):  # the skull, face up for all
                assert page.locator(f"{pane} .item.disc.skull.up").count() >= 1
        page.screenshot(path=str(shots / f"{game}-{gid}.png"), full_page=True)
    assert page.errors == []


def test_an_address_opens_a_step_and_a_seat_and_back_returns(
    served: Server, played: Played, browser: object, shots: Path
) -> None:
    gid = game_ids(served, played.tournaments["skull-king"])[1]
    for size in ("desktop", "phone"):
        page = open_page(browser, size)
        page.goto(f"{served.url}/tournaments/{played.tournaments['skull-king']}")
        page.goto(f"{served.url}/games/{gid}#step=115&seat=1")
        page.wait_for_selector("#viewer[data-ready=yes]")
        assert step(page) == 115 and page.input_value("#perspective") == "1"
        assert page.inner_text("#seat-title").startswith("As seen by seat 1")
        move = page.locator("#moves li[data-frame='40'] a")
        move.click()
        assert step(page) == 40 and page.url.endswith("#step=40&seat=1")
        page.keyboard.press("ArrowRight")
        assert page.url.endswith("#step=41&seat=1")
        page.go_back()
        page.wait_for_function("() => document.getElementById('viewer').dataset.step === '115'")
        page.go_back()
        page.wait_for_url(re.compile(r"/tournaments/\d+$"))
        assert page.errors == []
        page.context.close()


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_move_list_score_sheet_and_legible_table(
    served: Server, played: Played, browser: object, size: str, shots: Path
) -> None:
    page = open_page(browser, size)
    checks = {
        "skull-king": (r"bids \d|plays (the |an? )?(Kraken|Escape|Pirate|[a-z]+ \d+)", 10),
        "skyjo": (r"puts the drawn card into row \d, column \d|turns over row", None),
        "skull": (r"places a (flower|skull) face down|bids \d", None),
    }
    for game, (words, rounds) in checks.items():
        gid = game_ids(served, played.tournaments[game])[0]
        page.goto(f"{served.url}/games/{gid}#step=12")
        page.wait_for_selector("#viewer[data-ready=yes]")
        moves = page.locator("#moves li").all_inner_texts()
        assert any(re.search(words, m) for m in moves), moves[:5]
        raw = [m for m in moves if re.search(r"\w:\w|\d,\d|\b[GYPB]\d+\b|ESC|PIR", m)]
        assert raw == []  # plain words, not action codes
        texts = page.locator("#table-referee .item").all_inner_texts()
        assert not [t for t in texts if re.fullmatch(r"[GYPB]\d+|ESC|PIR|TIG|SK|MER", t)]
        problems = page.evaluate(LEGIBLE)
        assert problems == [], problems[:5]
        sheet = page.locator("#score-sheet tbody tr")
        if rounds:
            assert sheet.count() == rounds
        assert sheet.count() >= 1
        sheet.first.locator("a").click()  # the step follows the address's hash: a moment later
        page.locator(".banner").first.wait_for(state="visible")
        assert "over" in page.inner_text(".banner")
        assert page.locator("#moves li.current").count() == 1
        assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
        if size == "phone":  # the controls stay in sight while the table is scrolled to
            page.evaluate("document.getElementById('table-referee').scrollIntoView()")
            top = page.evaluate("document.querySelector('.controls').getBoundingClientRect().top")
            assert 0 <= top < 5, f"the replay's controls scrolled away ({top} px)"
        page.screenshot(path=str(shots / f"{game}.png"), full_page=True)
    assert page.errors == []
    page.context.close()


#: Items too faint or too small to read: opacity below 1, text under 10 px, a contrast
#: between text and background under 4.5:1 (backs and empty items have no text).
LEGIBLE = """() => {
  const rgb = c => (c.match(/[\\d.]+/g) || []).map(Number);
  const lum = c => {
    const v = rgb(c).slice(0, 3).map(x => x / 255)
      .map(x => x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4));
    return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2];
  };
  const bad = [];
  document.querySelectorAll('#viewer .item').forEach(item => {
    const style = getComputedStyle(item);
    if (+style.opacity < 1) { bad.push('opacity ' + style.opacity + ': ' + item.className); }
    if (!item.textContent) { return; }
    if (parseFloat(style.fontSize) < 10) {
      bad.push('font ' + style.fontSize + ': ' + item.className);
    }
    const back = style.backgroundColor;
    if (back === 'rgba(0, 0, 0, 0)' || style.backgroundImage !== 'none') { return; }
    const [a, b] = [lum(style.color), lum(back)].sort((x, y) => y - x);
    if ((a + 0.05) / (b + 0.05) < 4.5) {
      bad.push('contrast ' + ((a + 0.05) / (b + 0.05)).toFixed(1) + ': ' + item.className);
    }
  });
  return bad;
}"""
