"""``arena bot check``: the compliance suite against real bot processes, good and bad."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ROGUES = ROOT / "tests" / "rogues"
BOTS = Path(__file__).resolve().parent / "bots"


def arena(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``python -m arena ARGS`` as a user runs it (its own process: exit status, stderr)."""
    return subprocess.run(
        [sys.executable, "-m", "arena", *args],
        capture_output=True,
        check=False,
        text=True,
        timeout=timeout,
        cwd=ROOT,
    )


def check(spec: str, *args: str, timeout: float = 120) -> tuple[int, dict]:
    done = arena("bot", "check", spec, "--json", "--games", "2", *args, timeout=timeout)
    assert "Traceback" not in done.stdout + done.stderr, done.stderr
    return done.returncode, json.loads(done.stdout)


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
        "bye",
    }
    assert report["games_played"] == 4 and report["games"] == ["skull", "skyjo"]
    concurrent = next(c for c in report["checks"] if c["check"] == "concurrent")
    assert concurrent["detail"].startswith("says max_games 32; 6 skull games, 4 at a time")
    assert "up to 4 waiting at once" in concurrent["detail"]
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
    assert len(lines) == 8 and all(line.startswith("[pass] ") for line in lines)
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


@pytest.mark.parametrize(
    "rogue, failed",
    [
        ("illegal.py", "legal"),
        ("wrong_request.py", "ids"),
        ("wrong_game.py", "ids"),
        ("garbage.py", "messages"),
    ],
)
def test_a_misbehaving_bot_fails_the_check_that_names_its_fault(
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
    assert results(report)[failed] == "fail", report
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


def test_latency_percentiles_are_nearest_rank() -> None:
    from tournaments.compliance import percentiles

    assert percentiles([]) == {}
    values = [float(v) for v in range(1, 101)]  # 1 .. 100 ms
    assert percentiles(values) == {"p50": 50.0, "p90": 90.0, "p99": 99.0, "max": 100.0}
    assert percentiles([7.0]) == {"p50": 7.0, "p90": 7.0, "p99": 7.0, "max": 7.0}
