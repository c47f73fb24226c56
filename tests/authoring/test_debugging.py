"""Finding a game, seeing its faults and debugging one move, as a bot author does after a
tournament: ``arena tournament games``, ``arena bot logs --game/--tournament``, ``arena
replay`` (faults and log lines at their step, views as JSON) and ``arena bot ask``, on a real
tournament of real bot processes (one prints what it plays, one answers illegally)."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.unchecked import add_unchecked
from tournaments.store.facts import Store

ROOT = Path(__file__).resolve().parents[2]
FLAWED = Path(__file__).resolve().parent / "bots" / "flawed.py"
ILLEGAL = ROOT / "tests" / "rogues" / "illegal.py"


def arena(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "arena", *args],
        capture_output=True,
        check=False,
        text=True,
        timeout=timeout,
        cwd=ROOT,
    )
    assert "Traceback" not in done.stdout + done.stderr, done.stderr
    return done


@dataclass(frozen=True)
class Played:
    db: Path
    tid: int

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        """``arena ARGS`` on this database (its options go before a ``--``, if any)."""
        at = args.index("--") if "--" in args else len(args)
        return arena(*args[:at], "--db", str(self.db), *args[at:])

    def json(self, *args: str) -> object:
        at = args.index("--") if "--" in args else len(args)
        done = self.run(*args[:at], "--json", *args[at:])
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Played:
    """A tournament of Skull: `flawed` (it prints `turn N: ACTION` before each answer),
    `illegal` (every answer is one it was not offered) and `random`, every rotation of two
    deals."""
    db = tmp_path_factory.mktemp("debugging") / "a.db"
    with Store.open(db) as store:
        add_unchecked(store, "flawed", [sys.executable, str(FLAWED)])
        add_unchecked(store, "illegal", [sys.executable, str(ILLEGAL)])
    created = arena(
        "tournament", "create", "--game", "skull", "--bots", "flawed,illegal,random",
        "--repetitions", "2", "--json", "--db", str(db),
    )  # fmt: skip
    tid = json.loads(created.stdout)["id"]
    ran = arena("tournament", "run", str(tid), "-q", "--sandbox", "off", "--db", str(db))
    assert ran.returncode == 0, ran.stderr
    return Played(db, tid)


def test_tournament_games_lists_games_with_their_faults(played: Played) -> None:
    games = played.json("tournament", "games", str(played.tid))
    assert len(games) == 6 and [g["plan_index"] for g in games] == list(range(6))
    for game in games:
        assert set(game) >= {"id", "repetition", "table", "rotation", "seating", "places"}
        seat = game["seating"].index("illegal")
        assert {(f["seat"], f["kind"]) for f in game["faults"]} == {(seat, "illegal")}
        # it forfeits at its third fault, unless the game ended before its third turn
        assert (seat in game["forfeits"]) == (sum(f["count"] for f in game["faults"]) >= 3)
        assert "deal_seed" not in game
    mine = played.json("tournament", "games", str(played.tid), "--entrant", "flawed")
    assert len(mine) == 6
    text = played.run("tournament", "games", str(played.tid), "--faults").stdout
    assert text.count(":illegal×") == 6 and "seat:entrant=place" in text
    bad = played.run("tournament", "games", str(played.tid), "--entrant", "nobody")
    assert bad.returncode != 0 and "no entrant 'nobody'" in bad.stderr


def first_game(played: Played) -> tuple[int, dict]:
    game = played.json("tournament", "games", str(played.tid))[0]
    return game["id"], game


def test_bot_logs_of_a_game_show_each_line_at_the_step_it_was_written(played: Played) -> None:
    gid, game = first_game(played)
    seat = game["seating"].index("flawed")
    record = played.json("replay", str(gid))
    chose = {a["step"]: a["action"] for a in record["actions"] if a["seat"] == seat}
    lines = played.run("bot", "logs", "flawed", "--game", str(gid)).stdout.splitlines()
    assert lines[0] == f"== game {gid} (tournament {played.tid}) =="
    turns = [line for line in lines if "| turn " in line]
    assert len(turns) == len(chose)
    for line in turns:  # "step    5 seat 2 12:00:00.123 | turn 3: place:flower"
        step = int(line.split()[1])
        assert line.split("| turn ")[1].split(": ", 1)[1] == chose[step], line
    every = played.run("bot", "logs", "flawed", "--tournament", str(played.tid)).stdout
    assert every.count("== game ") == 6 and f"== game {gid} " in every
    other = played.run("bot", "logs", "illegal", "--game", str(gid)).stdout
    assert "illegal wrote nothing during game" in other


def test_replay_shows_faults_and_log_lines_at_their_step_and_views_as_json(
    played: Played,
) -> None:
    gid, game = first_game(played)
    out = played.run("replay", str(gid)).stdout.splitlines()
    end = max(i for i, line in enumerate(out) if not line)  # then the result table
    faults = [i for i, line in enumerate(out[:end]) if line.startswith("  ! step ")]
    assert len(faults) == 3 and all("illegal" in out[i] for i in faults)
    events = [i for i, line in enumerate(out[:end]) if i > 5 and line and line[0] != " "]
    assert any(i > faults[0] for i in events), "a fault is shown at its step, not at the end"
    logs = [line for line in out if "log (step " in line and ": turn " in line]
    assert logs
    seat = game["seating"].index("flawed")
    story = played.run("replay", str(gid), "--seat", str(seat)).stdout.splitlines()
    views = [line.split("view ", 1)[1] for line in story if line.startswith("step ")]
    assert views and all(json.loads(view)["seat"] == seat for view in views)
    assert all("None" not in view and "True" not in view for view in views)


def test_bot_ask_sends_one_recorded_turn_to_a_bot(played: Played) -> None:
    gid, game = first_game(played)
    seat = game["seating"].index("flawed")
    story = played.json("replay", str(gid), "--seat", str(seat))
    turn = story["turns"][2]
    asked = played.json(
        "bot", "ask", "--game", str(gid), "--seat", str(seat), "--step", str(turn["step"]),
        "--sandbox", "off", "--", sys.executable, str(FLAWED),
    )  # fmt: skip
    assert asked["turn"]["view"] == turn["view"] and asked["turn"]["legal"] == turn["legal"]
    answer = asked["answer"]
    assert answer["problem"] is None and answer["offered"] and answer["action"] in turn["legal"]
    assert any(line.endswith(f": {answer['action']}") for line in answer["output"])
    illegal = played.run(
        "bot", "ask", "--game", str(gid), "--seat", str(seat), "--step", str(turn["step"]),
        "--sandbox", "off", "--", sys.executable, str(ILLEGAL),
    )  # fmt: skip
    assert illegal.returncode == 1 and "'not-an-action'" in illegal.stdout
    assert "NOT offered" in illegal.stdout
    wrong = played.run(
        "bot", "ask", "random", "--game", str(gid), "--seat", str(seat), "--step", "9999"
    )
    assert wrong.returncode == 2 and f"seat {seat} did not act at step 9999" in wrong.stderr


def test_a_deal_still_in_play_withholds_its_turns_and_logs(played: Played, tmp_path: Path) -> None:
    db = tmp_path / "copy.db"
    with sqlite3.connect(played.db) as source, sqlite3.connect(db) as target:
        source.backup(target)
    keys = played.db.with_name(played.db.name + ".keys")
    if keys.exists():
        db.with_name(db.name + ".keys").write_bytes(keys.read_bytes())
    copy = Played(db, played.tid)
    games = copy.json("tournament", "games", str(played.tid))
    gid, later = games[0]["id"], games[2]["id"]  # rotations 0 and 2 of the first deal
    with sqlite3.connect(db) as conn:  # as if rotation 2 were still to be played
        conn.execute("UPDATE games SET status = 'pending' WHERE id = ?", (later,))
    seat = games[0]["seating"].index("flawed")
    logs = copy.run("bot", "logs", "flawed", "--game", str(gid)).stdout
    assert "withheld: " in logs and "| turn " not in logs
    asked = copy.run("bot", "ask", "random", "--game", str(gid), "--seat", str(seat), "--step", "0")
    assert asked.returncode != 0 and "still being played" in asked.stderr
    assert "view" not in asked.stdout


def test_a_fault_list_names_the_step_it_links_to(played: Played) -> None:
    """The replay page's fault list says the step its link shows (it said "move 5" for the
    link to step 6), the step the replay viewer names."""
    from starlette.testclient import TestClient

    from arena.web.app import create_app

    gid, _ = first_game(played)
    page = TestClient(create_app(played.db)).get(f"/games/{gid}").text
    faults = page.split('id="fault-list"')[1].split("</ul>")[0]
    links = re.findall(r'<a href="#step=(\d+)">([^<]*)</a>', faults)
    assert links and all(text == f"step {frame}" for frame, text in links), links


def test_the_replays_last_step_says_who_forfeited(played: Played) -> None:
    """The game-over banner places a seat that forfeited last and says so (it gave the place
    alone, as if that seat had lost on the table)."""
    from starlette.testclient import TestClient

    from arena.web.app import create_app

    games = played.json("tournament", "games", str(played.tid))
    game = next(g for g in games if g["forfeits"])
    client = TestClient(create_app(played.db))
    frames = client.get(f"/api/games/{game['id']}/frames/referee").json()["frames"]
    banner = frames[-1]["scene"]["banner"]
    for seat in game["forfeits"]:
        assert f"seat {seat} ({game['seating'][seat]}, forfeited)" in banner, banner
