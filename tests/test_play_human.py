"""``arena play --human``: a person plays a seat from the terminal, driven through its standard
input as a person would (a real ``arena`` process over pipes, or CliRunner's input).

A scripted person reads each screen, answers with a move's number or its text, and sometimes
types something that is no move first: it is refused and the moves listed again. Whole games of
every game are played so; the record marks the person's moves as a person's. Each screen is the
seat's own: it is what ``turn_screen`` makes of the seat's views, and the same when everything
the seat cannot know is redrawn (``seat_cannot_tell``: the information test the bots' views pass),
and its table shows no face the referee's table does not show face up (the replay viewer's leak
check). The end of the input and Ctrl-C leave the game as a forfeit; a second Ctrl-C stops.
"""

from __future__ import annotations

import json
import os
import random
import re
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.cli.person import choose, turn_screen
from arena.cli.table import seat_scene
from arena.games import get_game
from arena.web.games import presentation
from tests.games.conformance import seat_cannot_tell
from tests.web.test_scenes import leaks

ROOT = Path(__file__).resolve().parent.parent
ROGUES = ROOT / "tests" / "rogues"
GAMES = ["skull", "skull-bank", "skull-king", "skyjo"]
PROMPT = re.compile(r"your move \(1-(\d+), \? for the rules[^)]*\): $")
REFUSED = "is not one of your moves"
#: What a person may type that is no move (none is one in any game).
#: A line each game's history shows once the others have moved (what the person learns).
SEEN = {
    "skull": "pile: none -> face-down disc",
    "skull-bank": "pile: none -> face-down bill",
    "skull-king": "bid ? -> bid",
    "skyjo": "face-down card ->",
}
NOT_MOVES = ["", "nonsense", "0", "-1", "1.5", "１", "bid:999", "play:XX", "\x1b[2J", "1 2"]


class Terminal:
    """``arena play ... --json`` in a process of its own: the dialogue is read from its stderr
    up to each prompt, the record from its stdout at the end."""

    def __init__(self, args: list[str], cwd: Path) -> None:
        env = dict(os.environ, PYTHONPATH=str(ROOT), ARENA_BOT_DELAY_MS="2000")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "arena", "play", *args, "--json", "--sandbox", "off"],
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.out = b""
        self.drain = threading.Thread(target=self._drain, daemon=True)
        self.drain.start()
        self.seen = ""

    def _drain(self) -> None:
        self.out = self.proc.stdout.read()

    def screen(self, timeout: float = 120.0) -> tuple[str, int | None]:
        """What is written up to the next prompt (and how many moves it offers), or up to the
        end (None)."""
        fd = self.proc.stderr.fileno()
        text = b""
        end = time.monotonic() + timeout
        while True:
            match = PROMPT.search(text.decode(errors="replace"))
            if match:
                self.seen += text.decode()
                return text.decode(), int(match.group(1))
            left = end - time.monotonic()
            assert left > 0, f"no prompt in {timeout} s: {text[-500:]!r}"
            if select.select([fd], [], [], left)[0]:
                chunk = os.read(fd, 65536)
                if not chunk:
                    self.seen += text.decode()
                    return text.decode(), None
                text += chunk

    def type(self, line: str) -> None:
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()

    def finish(self) -> tuple[int, dict | None]:
        rest, _ = self.screen()
        code = self.proc.wait(timeout=120)
        self.drain.join(timeout=60)
        return code, json.loads(self.out) if self.out.strip() else None


def offered(screen: str, count: int) -> list[str]:
    """The moves a screen lists after its last "Your moves:" (numbered 1..count)."""
    listing = screen[screen.rindex("Your moves:") :].splitlines()[1:-1]
    if count > 16:  # in columns, without words
        found = re.findall(r"(?:^|\s)(\d+) (\S+)", "\n".join(listing))
    else:
        found = [re.match(r"\s*(\d+)  (\S+)", line).groups() for line in listing]
    assert [int(n) for n, _ in found] == list(range(1, count + 1))
    return [action for _, action in found]


@pytest.mark.parametrize("game", GAMES)
def test_a_scripted_person_plays_a_whole_game(game: str, tmp_path: Path) -> None:
    rng = random.Random(game)
    bots = ["--bot", "random", "--bot", "random"]
    term = Terminal([game, "--human", "--seat", "1", *bots, "--seed", "5"], tmp_path)
    screens, chosen = [], []
    screen, count = term.screen()
    asked_rules = False
    while count is not None:
        legal = offered(screen, count)
        screens.append((screen, legal))
        if not asked_rules:
            term.type("?")
            shown, count = term.screen()
            assert get_game(game).rules_summary.splitlines()[0] in shown
            assert offered(shown, count) == legal
            asked_rules = True
        if rng.random() < 0.3:
            term.type(rng.choice(NOT_MOVES))
            refused, count = term.screen()
            assert REFUSED in refused and offered(refused, count) == legal
        action = rng.choice(legal)
        term.type(str(legal.index(action) + 1) if rng.random() < 0.5 else action)
        chosen.append(action)
        screen, count = term.screen()
    code, record = term.finish()
    assert code == 0, term.seen[-2000:]
    assert "== the game is over ==" in term.seen and "You (seat 1) place" in term.seen
    assert record["bots"] == ["random", "human", "random"]
    assert record["faults"] == [] and record["forfeits"] == []
    mine = [a for a in record["actions"] if a["seat"] == 1]
    assert [a["action"] for a in mine] == chosen and {a["by"] for a in mine} == {"person"}
    assert "Since your last move:" in screens[1][0] and SEEN[game] in term.seen
    check_screens(game, record, screens)


def check_screens(game: str, record: dict, screens: list[tuple[str, list[str]]]) -> None:
    """Each screen is ``turn_screen`` of the seat's views, unchanged when what the seat cannot
    know is redrawn, and its table shows nothing the referee's does not show face up."""
    rules = get_game(game)
    table = presentation(rules)
    names = record["bots"]
    state = rules.new(len(names), record["seed"], record["options"])
    steps: list[dict[int, str]] = []
    for action in record["actions"]:
        while len(steps) <= action["step"]:
            steps.append({})
        steps[action["step"]][action["seat"]] = action["action"]
    rng = random.Random(1)
    shown = iter(screens)
    before, last = None, None
    for step, joint in enumerate(steps):
        if 1 in joint:
            screen, legal = next(shown)
            assert legal == state.legal(1)
            lines, scene = turn_screen(rules, names, 1, state.view(1), step, before, last)
            text = screen[: screen.index("Your moves:")].strip().splitlines()
            if before is None:  # the game's first lines: what it is and how to answer
                assert text[0].startswith(rules.title) and "Ctrl-C leaves" in text[1]
                text = text[2:]
            assert [line for line in text if line] == lines  # the whole screen: nothing more
            seat_cannot_tell(  # the bots' information test, on the screen
                state,
                1,
                rng,
                lambda s: turn_screen(rules, names, 1, s.view(1), step, before, last)[0],  # noqa: B023
                where=f"step {step}",
            )
            referee = table.full_scene(state.full(), names, frozenset(state.to_act()))
            assert leaks(1, seat_scene(game, state.view(1), names, {1}), referee) == []
            before, last = scene, joint[1]
        state.apply(joint)
    assert next(shown, None) is None and state.is_over()


def test_the_end_of_the_input_leaves_the_game_as_a_forfeit() -> None:
    args = ["play", "skull", "--bot", "random", "--bot", "human", "--bot", "random"]
    result = CliRunner().invoke(main, [*args, "--seed", "4", "--json"], input="1\nnope\n")
    assert result.exit_code == 0, result.output
    assert "You leave the game (end of input): your seat forfeits." in result.stderr
    assert "'nope' is not one of your moves." in result.stderr
    record = json.loads(result.stdout)
    assert record["forfeits"] == [1] and record["places"][1] == 3
    assert [(f["seat"], f["kind"]) for f in record["faults"]] == [(1, "resigned")]
    by = [a["by"] for a in record["actions"] if a["seat"] == 1]
    assert by[0] == "person" and set(by[1:]) == {"referee"}


def test_a_person_given_time_who_runs_out_of_it_is_moved_for(tmp_path: Path) -> None:
    args = ["skull-king", "--human", "--human-time", "1", "--bot", "random", "--bot", "random"]
    term = Terminal([*args, "--seed", "6"], tmp_path)
    first, count = term.screen()
    assert "1 s left" in first
    after, count = term.screen()  # no answer: the time runs out
    assert "Time is up: the referee moves for you." in after
    assert "the referee for you (time was up): bids 0" in after and count is not None
    term.proc.stdin.close()  # then the input ends: the person leaves
    code, record = term.finish()
    assert code == 0
    kinds = [(f["seat"], f["kind"]) for f in record["faults"]]
    assert kinds == [(0, "timeout"), (0, "resigned")] and record["forfeits"] == [0]


def test_ctrl_c_at_the_prompt_leaves_the_game(tmp_path: Path) -> None:
    args = ["skull-king", "--human", "--bot", "random", "--bot", "random", "--seed", "2"]
    term = Terminal(args, tmp_path)
    _, count = term.screen()
    assert count is not None
    term.proc.send_signal(signal.SIGINT)
    code, record = term.finish()
    assert code == 0 and "You leave the game (Ctrl-C): your seat forfeits." in term.seen
    assert record["forfeits"] == [0]
    assert [(f["seat"], f["kind"]) for f in record["faults"]] == [(0, "resigned")]


def test_ctrl_c_while_the_bots_think_leaves_and_a_second_stops_at_once(tmp_path: Path) -> None:
    sleepy = f"{sys.executable} {ROGUES / 'sleepy.py'}"  # 2 s a move (ARENA_BOT_DELAY_MS)
    args = ["skull", "--human", "--bot", sleepy, "--bot", sleepy, "--move-time", "30000"]
    term = Terminal(args, tmp_path)
    _, count = term.screen()
    term.type("1")  # the setup: then the bots think 2 s
    time.sleep(0.5)
    term.proc.send_signal(signal.SIGINT)
    deadline = time.monotonic() + 30
    while "you leave the game at your next turn" not in term.seen:
        assert time.monotonic() < deadline, term.seen[-1000:]
        fd = term.proc.stderr.fileno()
        if select.select([fd], [], [], 1)[0]:
            term.seen += os.read(fd, 65536).decode()
    term.proc.send_signal(signal.SIGINT)
    code, record = term.finish()
    assert code == 130 and record is None
    assert "Stopped: the game was not finished" in term.seen
    assert "Traceback" not in term.seen


def test_an_answer_names_a_move_by_its_number_or_its_text_only() -> None:
    legal = ["bid:1", "bid:2", "pass"]
    assert [choose(text, legal) for text in ["1", " 3 ", "pass", "bid:2\n"]] == [
        "bid:1",
        "pass",
        "pass",
        "bid:2",
    ]
    assert {choose(text, legal) for text in ["0", "4", "", "Pass", "१", "1 2", "bid"]} == {None}


@pytest.mark.parametrize(
    "args, message",
    [
        (["--human", "--bot", "random", "--bot", "human"], "give your seat once"),
        (["--bot", "human", "--bot", "random", "--bot", "human"], "one person plays at most one"),
        (["--human", "--seat", "3", "--bot", "random", "--bot", "random"], "seat 3 is not one of"),
        (["--bot", "random"] * 3 + ["--human-time", "5"], "--human-time goes with"),
        (["--human", "--bot", "random"], "skull takes 3-6 players, not 2"),
    ],
)
def test_a_person_seat_asked_for_wrongly_is_a_clear_error(args: list[str], message: str) -> None:
    result = CliRunner().invoke(main, ["play", "skull", *args], input="1\n")
    assert result.exit_code != 0 and message in result.output
    assert "Traceback" not in result.output and "your move" not in result.output


def test_no_bot_can_be_registered_as_the_person(tmp_path: Path) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text("")
    argv = ["bot", "add", "human", "--game", "skull", "--db", str(tmp_path / "a.db")]
    result = CliRunner().invoke(main, [*argv, "--", sys.executable, str(bot)])
    assert result.exit_code != 0 and "stands for a person's seat" in result.output
