"""``arena match NEW BASE``: SPRT matches with real bots, stored as tournaments of kind
``match``, resumable after kill -9; bad input is one clear error."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.unchecked import add_unchecked
from tournaments.store.facts import Store

ROOT = Path(__file__).resolve().parents[2]
#: skull_odds is some 150 Elo above random in skull: hypotheses 100 Elo apart on either side of
#: 0 are decided in a few deals, and the wrong way only with a probability far below alpha/beta.
STRONG = ["--sprt", "elo0=-50", "elo1=50", "alpha=0.05", "beta=0.05"]


def arena(*args: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", *args],
        capture_output=True,
        check=False,
        text=True,
        timeout=timeout,
        cwd=ROOT,
    )


def complete_deals(db: Path, tid: int, rotations: int) -> int:
    """Deals whose every rotation is recorded (games at once finish out of deal order)."""
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "SELECT COUNT(*) FROM (SELECT deal_seed FROM games WHERE tournament_id = ? "
            "AND status = 'done' GROUP BY deal_seed HAVING COUNT(*) = ?)",
            (tid, rotations),
        ).fetchone()[0]


def done_games(db: Path, tid: int) -> int:
    """Games recorded (0 while the database is still being made)."""
    try:
        with sqlite3.connect(db) as conn:
            return conn.execute(
                "SELECT COUNT(*) FROM games WHERE tournament_id = ? AND status = 'done'", (tid,)
            ).fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def test_a_stronger_bot_is_accepted_and_stored_as_a_match(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    done = arena(
        "match",
        "skull_odds",
        "random",
        "--game",
        "skull",
        *STRONG,
        "--games",
        "600",
        "--json",
        "--db",
        str(db),
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["result"] == "H1" and result["llr"] >= result["upper"]
    assert result["new"] == "skull_odds" and result["base"] == "random"
    assert result["elo_lo"] <= result["elo"] <= result["elo_hi"] and result["elo"] > 0
    assert result["games"] == 6 * result["deals"]  # tables of 3: every rotation, and mirrored
    with Store.open(db) as store:
        info = store.tournament(result["match"])
        assert info.spec.kind.value == "match" and info.spec.table_size == 3
        assert [e.bot for e in info.entrants] == ["skull_odds", "random", "random"]
        assert store.sprt(result["match"])["result"] == "H1"
        # a decided match is done: the games it will never play are dropped from its plan
        assert info.status.value == "done"
        assert info.games_done == info.games_total == result["played"] >= result["games"]
        assert info.spec.repetitions == result["repetitions"] >= result["deals"]
    shown = arena("tournament", "show", str(result["match"]), "--db", str(db))
    assert shown.returncode == 0 and "match      skull_odds vs random" in shown.stdout
    assert ": H1;" in shown.stdout and f"{result['deals']} deals" in shown.stdout
    data = json.loads(
        arena("tournament", "show", str(result["match"]), "--json", "--db", str(db)).stdout
    )
    assert data["match"]["result"] == "H1" and data["match"]["status"]["deals"] == result["deals"]
    again = arena("match", "--resume", str(result["match"]), "--json", "--db", str(db))
    assert again.returncode == 0 and json.loads(again.stdout)["deals"] == result["deals"]
    ran = arena("tournament", "run", str(result["match"]), "--db", str(db))
    assert ran.returncode == 2 and "arena match --resume" in ran.stderr


def test_a_weaker_bot_is_rejected_with_two_jobs(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    done = arena(
        "match",
        "random",
        "skull_odds",
        "--game",
        "skull",
        *STRONG,
        "--games",
        "600",
        "--jobs",
        "2",
        "--db",
        str(db),
    )
    assert done.returncode == 1, done.stderr
    assert "H0 accepted" in done.stdout and "Elo difference -" in done.stdout


def test_no_decision_within_the_games_exits_2(tmp_path: Path) -> None:
    done = arena(
        "match",
        "random",
        "first",
        "--game",
        "skyjo",
        "--games",
        "4",
        "--json",
        "--db",
        str(tmp_path / "m.db"),
    )
    assert done.returncode == 2, done.stderr
    result = json.loads(done.stdout)
    assert result["result"] == "inconclusive" and result["deals"] == 2 and result["games"] == 4
    assert result["lower"] < result["llr"] < result["upper"]


def test_a_match_killed_at_once_resumes(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "arena",
            "match",
            "skull_odds",
            "random",
            "--game",
            "skull",
            *STRONG,
            "--games",
            "600",
            "-q",
            "--db",
            str(db),
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if db.exists() and done_games(db, 1) >= 4:
                break
            time.sleep(0.1)
        assert proc.poll() is None, "the match ended before it could be killed"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    before = complete_deals(db, 1, 6)
    resumed = arena("match", "--resume", "1", "--json", "--db", str(db))
    assert resumed.returncode == 0, resumed.stderr
    result = json.loads(resumed.stdout)
    assert result["result"] == "H1"
    assert result["deals"] >= before  # the deals completed before the kill count
    with sqlite3.connect(db) as conn:  # no game was played twice
        rows = conn.execute(
            "SELECT COUNT(*), COUNT(DISTINCT plan_index) FROM games WHERE status = 'done'"
        ).fetchone()
    assert rows[0] == rows[1] >= result["games"]


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["random", "random", "--game", "skull"], "same bot"),
        (["skull_odds", "random", "--game", "skyjo"], "does not play skyjo"),
        (["random", "first", "--game", "skull", "--sprt", "elo0=10", "elo1=5"], "elo0 < elo1"),
        (["random", "first", "--game", "skull", "--sprt", "alpha=0.5"], "alpha"),
        (["random", "first", "--game", "skull", "--sprt", "beta=0"], "beta"),
        (["random", "--game", "skull"], "name two bots"),
    ],
)
def test_bad_input_is_one_clear_error(args: list[str], fragment: str, tmp_path: Path) -> None:
    """A usage mistake exits 4, never a verdict's code (2 is 'no decision')."""
    db = tmp_path / "m.db"
    done = arena("match", *args, "--db", str(db), timeout=60)
    assert done.returncode == 4
    errors = [line for line in done.stderr.splitlines() if line.startswith("arena: error:")]
    assert len(errors) == 1 and fragment in errors[0], done.stderr
    assert "Traceback" not in done.stderr
    if db.exists():
        with Store.open(db) as store:
            assert store.list_tournaments() == []  # nothing was planned


def test_errors_have_codes_of_their_own_and_the_game_is_inferred(tmp_path: Path) -> None:
    """Exit status 0-3 are verdicts; an error is 5 (an unknown bot), a usage mistake 4 (no
    game both bots play only); --help says so; with no --game, the one game both bots play
    is played."""
    db = str(tmp_path / "m.db")
    unknown = arena("match", "random", "nosuchbot", "--game", "skull", "--db", db, timeout=60)
    assert unknown.returncode == 5 and "arena: error: no bundled or registered bot" in (
        unknown.stderr
    )
    both_any = arena("match", "random", "first", "--db", db, timeout=60)
    assert both_any.returncode == 4
    assert "give --game GAME: random plays any game; first plays any game" in both_any.stderr
    helped = arena("match", "--help", timeout=60).stdout
    assert "3  stopped: NEW or BASE faulted" in helped and "5  any other error" in helped
    inferred = arena("match", "skull_odds", "random", "--games", "12", "--sandbox", "off",
                     "--db", db)  # fmt: skip
    assert inferred.returncode == 2, inferred.stderr  # two deals decide nothing
    assert "match 1: skull_odds vs random" in inferred.stderr
    first = next(line for line in inferred.stderr.splitlines() if line.startswith("deals 1/2"))
    elo = first.split("Elo ")[1].split("  ")[0]
    assert "[" not in elo and "2400" not in elo, first  # no interval after one deal
    assert "ETA" not in first and "left" in first.split("at most ")[1], first  # a bound
    shown = json.loads(arena("tournament", "show", "1", "--json", "--db", db).stdout)
    assert shown["game"] == "skull" and shown["match"]["status"]["deals"] == 2


ROGUES = ROOT / "tests" / "rogues"


def registered_illegal(db: Path) -> None:
    """A bot that answers every turn with an action it was not offered, registered without
    the entry check (as a bot whose new version broke would be)."""
    with Store.open(db) as store:
        add_unchecked(store, "illegal", [sys.executable, str(ROGUES / "illegal.py")])


def test_a_bot_that_faults_past_the_limit_stops_the_match_with_that_verdict(
    tmp_path: Path,
) -> None:
    db = tmp_path / "m.db"
    registered_illegal(db)
    done = arena(
        "match", "illegal", "random", "--game", "skull", "--sandbox", "off", "--db", str(db)
    )
    assert done.returncode == 3, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("stopped: NEW illegal faulted in ")
    assert "illegal " in lines[0] and "more than 5%" in lines[0]
    table = {
        line.split()[0]: line for line in lines if line.split()[:1] in (["illegal"], ["random"])
    }
    assert "illegal" in table["illegal"].split()[-2:] and table["random"].endswith("none")
    assert sum("stopped:" in line for line in lines) == 1, "the verdict is printed once"
    again = json.loads(arena("tournament", "show", "1", "--json", "--db", str(db)).stdout)
    assert again["match"]["result"] == "faults"
    assert again["match"]["status"]["entrants"][0]["faults"]["illegal"] > 0
    shown = arena("tournament", "show", "1", "--db", str(db)).stdout
    assert "stopped: NEW illegal faulted" in shown


def test_fillers_results_and_faults_are_shown_and_do_not_stop_the_match(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    registered_illegal(db)
    done = arena(
        "match",
        "first",
        "random",
        "--game",
        "skull",
        "--fill",
        "illegal",
        "--games",
        "90",
        "--sprt",
        "elo0=-500",
        "elo1=500",
        "--sandbox",
        "off",
        "--json",
        "--db",
        str(db),
    )
    assert done.returncode in (0, 1, 2), done.stderr
    result = json.loads(done.stdout)
    assert result["result"] != "faults"
    filler = next(e for e in result["entrants"] if e["entrant"] == "illegal")
    assert filler["faults"]["illegal"] > 0 and filler["games"] == result["games"]
    # a deal of 6 games (3 seats, cyclic and mirrored): 0..12 half points
    assert len(result["deal_scores"]) == 2 * 6 + 1


def test_the_live_line_shows_deal_scores_faults_and_a_bound_on_the_time_left(
    tmp_path: Path,
) -> None:
    db = tmp_path / "m.db"
    registered_illegal(db)
    done = arena(
        "match",
        "first",
        "random",
        "--game",
        "skull",
        "--fill",
        "illegal",
        "--games",
        "120",
        "--sprt",
        "elo0=0",
        "elo1=1",
        "alpha=0.001",
        "beta=0.001",
        "--sandbox",
        "off",
        "--db",
        str(db),
    )
    # 20 deals of 6 games; the match is looked at between batches of deals (8, then 12)
    live = [line for line in done.stderr.splitlines() if line.startswith("deals 8/20")]
    assert live, done.stderr
    assert "deal scores " in live[0] and "faults: illegal illegal " in live[0]
    assert "ETA" not in live[0] and live[0].endswith(" left") and "at most " in live[0]


def test_games_bound_the_plan_and_a_decided_match_keeps_what_it_played(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    done = arena(
        "match", "random", "first", "--game", "skull", "--games", "10", "--json", "--db", str(db)
    )
    result = json.loads(done.stdout)
    assert result["games_total"] <= 10 and result["repetitions"] == 1  # 1 whole deal of 6 games
    done = arena(
        "match",
        "skull_odds",
        "random",
        "--game",
        "skull",
        *STRONG,
        "--games",
        "3000",
        "--json",
        "--db",
        str(db),
    )
    result = json.loads(done.stdout)
    shown = json.loads(arena("tournament", "show", "2", "--json", "--db", str(db)).stdout)
    assert shown["games_done"] == shown["games_total"] == result["played"]
    assert shown["repetitions"] == result["repetitions"] < 1000, "not the 1000 deals of --games"
    text = arena("tournament", "show", "2", "--db", str(db)).stdout
    assert f"{result['played']}/{result['played']} games played" in text
    assert f"{result['repetitions']} repetition(s)" in text


def test_a_command_line_is_a_spec_too(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    bot = f"{sys.executable} {ROOT / 'tests' / 'authoring' / 'bots' / 'flawed.py'} --strategy v2"
    done = arena(
        "match",
        bot,
        "random",
        "--game",
        "skull",
        "--games",
        "9",
        "--sandbox",
        "off",
        "--json",
        "--db",
        str(db),
    )
    assert done.returncode == 2, done.stderr
    assert "registered" in done.stderr and "as bot flawed.py-" in done.stderr
    result = json.loads(done.stdout)
    assert result["new"].startswith("flawed.py-") and result["games"] == 6  # one deal of 6
