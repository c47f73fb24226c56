"""``arena bot check``: the compliance suite against real bot processes, good and bad."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.unchecked import add_unchecked
from tournaments.store.facts import Store

ROOT = Path(__file__).resolve().parents[2]
ROGUES = ROOT / "tests" / "rogues"
BOTS = Path(__file__).resolve().parent / "bots"


FLAWED = f"{sys.executable} {BOTS / 'flawed.py'}"


def arena(
    *args: str, timeout: float = 120, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -m arena ARGS`` as a user runs it (its own process: exit status, stderr)."""
    return subprocess.run(
        [sys.executable, "-m", "arena", *args],
        capture_output=True,
        check=False,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
    )


def check(
    spec: str, *args: str, timeout: float = 120, env: dict[str, str] | None = None
) -> tuple[int, dict]:
    done = arena("bot", "check", spec, "--json", *args, timeout=timeout, env=env)
    assert "Traceback" not in done.stdout + done.stderr, done.stderr
    return done.returncode, json.loads(done.stdout)


def flawed(flaw: str, tmp_path: Path, *args: str, **env: str) -> tuple[int, dict]:
    """``arena bot check`` of ``bots/flawed.py`` with one flaw, on Skull."""
    settings = {"ARENA_BOT_FLAW": flaw, **{f"ARENA_BOT_{k.upper()}": v for k, v in env.items()}}
    return check(
        FLAWED,
        "--game",
        "skull",
        "--sandbox",
        "off",
        "--db",
        str(tmp_path / "a.db"),
        *args,
        env=settings,
    )


def detail(report: dict, key: str) -> str:
    return next(c["detail"] for c in report["checks"] if c["check"] == key)


def failed(report: dict) -> list[str]:
    return [c["check"] for c in report["checks"] if c["result"] == "fail"]


def results(report: dict) -> dict[str, str]:
    return {item["check"]: item["result"] for item in report["checks"]}


def test_a_good_bot_passes_every_check_of_every_game_it_names(tmp_path: Path) -> None:
    code, report = check(
        "random", "--game", "skull", "--game", "skyjo", "--db", str(tmp_path / "a.db")
    )
    assert code == 0 and report["passed"], report
    assert set(results(report).values()) == {"pass"}
    assert set(results(report)) == {
        "hello",
        "ids",
        "legal",
        "messages",
        "deadline",
        "games",
        "concurrent",
        "batch",
        "bye",
    }
    assert report["games"] == ["skull", "skyjo"]
    # every table size of each game, every seat: 3+4+5+6 Skull games, 2+...+8 Skyjo games
    assert report["games_played"] == 18 + 35
    coverage = {c["game"]: c for c in report["coverage"]}
    assert coverage["skull"]["seats"] == {str(n): list(range(n)) for n in range(3, 7)}
    assert coverage["skyjo"]["table_sizes"] == list(range(2, 9)) and coverage["skyjo"]["complete"]
    concurrent = next(c for c in report["checks"] if c["check"] == "concurrent")
    assert concurrent["detail"].startswith("says max_games 64; 6 skull games, 4 at a time")
    assert "up to 4 waiting at once" in concurrent["detail"]
    assert detail(report, "batch").startswith("says batch: true; answered batches of up to")
    latency = report["latency_ms"]
    assert set(latency) == {"p50", "p90", "p99", "max"}
    assert 0 <= latency["p50"] <= latency["p90"] <= latency["p99"] <= latency["max"]


def test_text_output_is_a_line_per_check(tmp_path: Path) -> None:
    done = arena(
        "bot",
        "check",
        "first",
        "--game",
        "skull-king",
        "--games",
        "1",
        "--db",
        str(tmp_path / "a.db"),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("[")]
    assert len(lines) == 9 and all(line.startswith("[pass] ") for line in lines)
    assert "covered: skull-king: 2-8 players, every seat (35 games)" in done.stdout
    assert "all checks passed" in done.stdout


@pytest.mark.parametrize("program", ["cat", "sleep 100", "yes"])
def test_a_program_that_is_no_bot_fails_the_hello_check(program: str, tmp_path: Path) -> None:
    code, report = check(
        program,
        "--game",
        "skull",
        "--startup-time",
        "2000",
        "--db",
        str(tmp_path / "a.db"),
        timeout=60,
    )
    assert code == 1 and not report["passed"]
    found = results(report)
    assert found["hello"] == "fail"
    assert {found[key] for key in found if key != "hello"} == {"skipped"}
    detail = report["checks"][0]["detail"]
    assert "hello" in detail
    assert report["bot"] == program.split()[0], "named after the program, not its last word"


@pytest.mark.parametrize(
    "rogue, failed",
    [
        ("illegal.py", "legal"),
        ("wrong_request.py", "ids"),
        ("wrong_game.py", "ids"),
        ("garbage.py", "messages"),
    ],
)
def test_a_misbehaving_bot_fails_only_the_check_that_names_its_fault(
    rogue: str, failed: str, tmp_path: Path
) -> None:
    code, report = check(
        f"{sys.executable} {ROGUES / rogue}",
        "--game",
        "skull",
        "--sandbox",
        "off",
        "--db",
        str(tmp_path / "a.db"),
    )
    assert code == 1
    assert [key for key, value in results(report).items() if value == "fail"] == [failed], report
    assert results(report)["hello"] == "pass"


def test_a_bot_that_ignores_bye_fails_only_that_check(tmp_path: Path) -> None:
    code, report = check(
        f"{sys.executable} {BOTS / 'deaf.py'}",
        "--game",
        "skull",
        "--sandbox",
        "off",
        "--db",
        str(tmp_path / "a.db"),
    )
    assert code == 1
    found = results(report)
    assert found.pop("bye") == "fail"
    assert set(found.values()) == {"pass"}
    concurrent = next(c["detail"] for c in report["checks"] if c["check"] == "concurrent")
    assert "one game at a time" in concurrent  # its hello has no max_games


def test_a_bot_with_one_game_in_mind_fails_only_the_concurrent_check(tmp_path: Path) -> None:
    code, report = check(
        f"{sys.executable} {BOTS / 'one_game_mind.py'}",
        "--game",
        "skull",
        "--sandbox",
        "off",
        "--db",
        str(tmp_path / "a.db"),
    )
    assert code == 1
    found = results(report)
    assert found.pop("concurrent") == "fail", report
    assert set(found.values()) == {"pass"}
    detail = next(c["detail"] for c in report["checks"] if c["check"] == "concurrent")
    assert "says max_games 4" in detail and "game_id" in detail


def test_a_bot_that_crosses_the_ids_of_a_batch_fails_only_the_concurrent_check(
    tmp_path: Path,
) -> None:
    """Alone, each of its games is fine (batches of one turn); answering a batch of several,
    it gives two entries each other's game id: the check that sends batches fails it."""
    code, report = check(
        f"{sys.executable} {ROGUES / 'batcher.py'} crossed",
        *("--game", "skull", "--table-sizes", "3", "--sandbox", "off"),
        *("--db", str(tmp_path / "a.db")),
    )
    assert code == 1
    found = results(report)
    assert found.pop("concurrent") == "fail", report
    assert found.pop("batch") == "skipped", report
    assert set(found.values()) == {"pass"}, report
    assert "wrong-id" in detail(report, "concurrent")


@pytest.mark.parametrize(
    "flaw, fails, said",
    [
        ("crash-at-6", "games", "exited with status 4"),
        ("illegal-at-6", "legal", "'flower' was not offered; offered: place:flower, place:skull"),
        ("slow-at-6", "deadline", "no answer within 300 ms"),
    ],
)
def test_a_bot_that_fails_only_at_six_players_fails_the_default_check(
    flaw: str, fails: str, said: str, tmp_path: Path
) -> None:
    code, report = flawed(flaw, tmp_path, "--move-time", "300", delay_ms="600")
    assert code == 1 and failed(report) == [fails], report
    assert "skull with 6 players" in detail(report, fails) and said in detail(report, fails)
    if fails == "games":
        assert "after 1" in detail(report, fails) and "whole game(s)" in detail(report, fails)
    else:  # its games stopped at the fault: playing game after game is not judged, not passed
        assert results(report)["games"] == "skipped", report
        assert detail(report, "games").startswith("not judged: the games stopped after")
    seats = next(c["seats"] for c in report["coverage"] if c["game"] == "skull")
    assert {size: seats[size] for size in "345"} == {n: list(range(int(n))) for n in "345"}
    assert seats["6"] == [0], "it stopped at its first six-player game"


def test_table_sizes_narrow_the_check_and_it_says_what_it_covered(tmp_path: Path) -> None:
    done = arena(
        "bot",
        "check",
        "--game",
        "skull",
        "--table-sizes",
        "3,5",
        "--sandbox",
        "off",
        "--db",
        str(tmp_path / "a.db"),
        "--",
        *FLAWED.split(),
        env={"ARENA_BOT_FLAW": "illegal-at-6"},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "covered: skull: 3, 5 players, every seat (8 games)" in done.stdout
    bad = arena(
        "bot",
        "check",
        "random",
        "--game",
        "skull",
        "--table-sizes",
        "2",
        "--db",
        str(tmp_path / "a.db"),
    )
    assert bad.returncode != 0 and "skull takes 3-6 players" in bad.stderr
    assert "Traceback" not in bad.stderr


@pytest.mark.parametrize(
    "flaw, said",
    [
        (
            "hello-protocol-text",
            "bad-hello: hello: field 'protocol' must be an integer, not a string ('1')",
        ),
        ("hello-no-name", "bad-hello: hello: field 'name' is missing"),
        ("hello-extra-key", "bad-hello: hello: unknown field(s) 'version'"),
        ("hello-json", "it looks like JSON; messages are msgpack maps"),
        ("hello-token", "refused (bad-token: its token is not the ARENA_TOKEN it was given"),
    ],
)
def test_a_refused_hello_is_answered_and_reported_with_its_real_cause(
    flaw: str, said: str, tmp_path: Path
) -> None:
    code, report = flawed(flaw, tmp_path, "--startup-time", "4000")
    assert code == 1 and failed(report) == ["hello"], report
    hello = detail(report, "hello")
    assert said in hello and "did not say hello within" not in hello, hello
    if flaw != "hello-json":  # the bot prints the arena's answer: an error with a code
        assert any("'type': 'error'" in line for line in report["output"]), report["output"]


def test_one_cause_is_one_fail_line_in_the_protocol_page_words(tmp_path: Path) -> None:
    code, report = flawed("no-game-id", tmp_path)
    assert failed(report) == ["messages"]
    assert "field 'game_id' is missing" in detail(report, "messages")
    code, report = flawed("slow", tmp_path, "--move-time", "300", delay_ms="600")
    assert code == 1 and failed(report) == ["deadline"], report  # not ids, games or bye
    assert results(report)["ids"] == "pass"
    code, report = flawed("late-once", tmp_path, "--move-time", "300", delay_ms="600")
    assert failed(report) == ["deadline"], "its stale reply is dropped, not failed"


def test_the_games_at_once_are_judged_by_the_driver_stale_replies_dropped(tmp_path: Path) -> None:
    code, report = flawed("twice", tmp_path)  # every answer twice, max_games 4
    assert code == 0 and report["passed"], report
    assert detail(report, "concurrent").startswith("says max_games 4; 6 skull games, 4 at a time")


def test_a_command_bot_is_named_after_its_script_and_leaves_no_folder(tmp_path: Path) -> None:
    scratch = Path(tempfile.mkdtemp(prefix="check-tmp-"))  # not under tmp_path (mode 0700):
    scratch.chmod(0o755)  # bots of users of their own reach their endpoint's folder in it
    code, report = check(
        f"{FLAWED} --strategy v2",
        "--game",
        "skull",
        "--table-sizes",
        "3",
        "--sandbox",
        "off",
        "--db",
        str(tmp_path / "a.db"),
        env={"TMPDIR": str(scratch)},
    )
    assert code == 0 and report["bot"] == "flawed.py", report
    left = list(scratch.iterdir())
    shutil.rmtree(scratch)
    assert left == [], "the check's temporary folders are removed"


@pytest.mark.skipif(os.geteuid() != 0, reason="bots run as users of their own only as root")
def test_as_root_a_bot_in_a_folder_no_other_user_can_enter_still_runs(tmp_path: Path) -> None:
    shut = tmp_path / "home"
    (shut / "bot").mkdir(parents=True)
    shut.chmod(0o700)  # as root's home: others cannot enter it
    script = shut / "bot" / "flawed.py"
    shutil.copy(BOTS / "flawed.py", script)
    script.chmod(0o644)
    (tmp_path / "db").mkdir()  # the database's folder is private: the bot is elsewhere
    args = ("--game", "skull", "--table-sizes", "3", "--db", str(tmp_path / "db" / "a.db"))
    code, report = check(f"{sys.executable} {script}", *args)
    assert code == 0, report  # its folder is bound back for its user; the rest stays hidden
    script.chmod(0o600)
    code, report = check(f"{sys.executable} {script}", *args)
    assert code == 1 and failed(report) == ["hello"]
    assert f"cannot read {script} (mode 0600: not readable by others)" in detail(report, "hello")
    assert "Can't find source path" not in detail(report, "hello")


def test_unknown_game_is_one_line(tmp_path: Path) -> None:
    done = arena("bot", "check", "random", "--game", "chess", "--db", str(tmp_path / "a.db"))
    assert done.returncode == 2 and "unknown game" in done.stderr
    assert "Traceback" not in done.stderr


def test_bot_add_runs_the_same_checks(tmp_path: Path) -> None:
    done = arena(
        "bot",
        "add",
        "deaf",
        "--game",
        "skull",
        "--sandbox",
        "off",
        "--db",
        str(tmp_path / "a.db"),
        "--",
        sys.executable,
        str(BOTS / "deaf.py"),
    )
    assert done.returncode == 1
    assert "check failed" in done.stderr and "exits on bye" in done.stderr
    assert "Traceback" not in done.stderr


def test_bot_add_checks_at_the_deadline_the_bot_plays_under(tmp_path: Path) -> None:
    """A bot slow now and then (1.5 s on one answer in 25) times out in runs at the default
    deadline (1000 ms): it is refused at entry, unless it is checked, and so will play, under
    a longer one; the answer says at which deadline and on which games it was checked."""
    db = str(tmp_path / "a.db")
    add = ("bot", "add", "sometimes", "--game", "skull", "--sandbox", "off", "--db", db)
    bot = ("--", sys.executable, str(BOTS / "flawed.py"))
    env = {"ARENA_BOT_FLAW": "now-and-then"}
    refused = arena(*add, *bot, env=env)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "answers within the deadline" in refused.stderr
    assert "(skull; 1000 ms a move)" in refused.stderr
    assert "`arena bot check --move-time 1000`" in refused.stderr
    assert "sometimes" not in arena("bot", "list", "--db", db).stdout
    accepted = arena(*add, "--move-time", "2000", *bot, env=env)
    assert accepted.returncode == 0, accepted.stderr
    assert "; checked on skull at 2000 ms a move" in accepted.stdout


def test_bot_add_without_a_game_checks_every_game_and_says_so(tmp_path: Path) -> None:
    done = arena(
        "bot",
        "add",
        "wrongtoken",
        "--sandbox",
        "off",
        "--db",
        str(tmp_path / "a.db"),
        "--",
        sys.executable,
        str(BOTS / "flawed.py"),
        env={"ARENA_BOT_FLAW": "hello-token"},
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "checking wrongtoken (skull, skull-bank, skull-king, skyjo)" in done.stderr
    assert "check failed (skull, skull-bank, skull-king, skyjo; 1000 ms a move)" in done.stderr
    assert "name those it plays with --game" in done.stderr


@pytest.mark.parametrize(
    ("says", "hinted"),
    [("RangeError: integer out of range", True), ("KeyError: 'view'", False)],
)
def test_the_seed_hint_only_when_the_output_points_to_integers(
    tmp_path: Path, says: str, hinted: bool
) -> None:
    """A crash before the first decision is blamed on the 63-bit seed only when the bot's
    output speaks of decoding integers."""
    code, report = flawed("crash-first", tmp_path, says=says)
    assert code == 1 and failed(report) == ["games"]
    assert ("Decode msgpack integers as 64-bit" in detail(report, "games")) is hinted


def test_latency_percentiles_are_nearest_rank() -> None:
    from tournaments.catalogue.compliance import percentiles

    assert percentiles([]) == {}
    values = [float(v) for v in range(1, 101)]  # 1 .. 100 ms
    assert percentiles(values) == {"p50": 50.0, "p90": 90.0, "p99": 99.0, "max": 100.0}
    assert percentiles([7.0]) == {"p50": 7.0, "p90": 7.0, "p99": 7.0, "max": 7.0}


#: A bot that says hello in a protocol this arena does not speak.
PROTOCOL_2 = """
import random
import protocol.sdk as sdk
sdk.PROTOCOL_VERSION = 2
sdk.run_bot(lambda view, legal: random.choice(legal), name="p2")
"""


def test_a_bot_refused_for_its_protocol_is_said_refused_once(tmp_path: Path, shared: Path) -> None:
    """Its check names the code (bad-protocol) with no hub warning beside the report; in a
    tournament its seats' faults are `refused` (not `crash`), the reason said once."""
    script = shared / "p2.py"
    script.write_text(PROTOCOL_2)
    script.chmod(0o644)
    db = tmp_path / "a.db"
    done = arena("bot", "check", "--game", "skull", "--sandbox", "off", "--db", str(db),
                 "--", sys.executable, str(script))  # fmt: skip
    assert done.returncode == 1
    assert "was refused: bad-protocol: protocol 2 is not supported" in done.stdout
    assert "WARNING" not in done.stderr, done.stderr
    with Store.open(db) as store:
        add_unchecked(store, "p2", [sys.executable, str(script)])
    made = arena("tournament", "create", "--game", "skull", "--bots", "p2,random,first",
                 "--repetitions", "2", "--json", "--db", str(db))  # fmt: skip
    tid = json.loads(made.stdout)["id"]
    ran = arena("tournament", "run", str(tid), "-q", "--sandbox", "off", "--db", str(db))
    assert ran.returncode == 0 and ran.stderr.count("did not start") == 1, ran.stderr
    games = json.loads(arena("tournament", "games", str(tid), "--json", "--db", str(db)).stdout)
    kinds = {f["kind"] for g in games for f in g["faults"]}
    assert len(games) == 6 and kinds == {"refused"}
