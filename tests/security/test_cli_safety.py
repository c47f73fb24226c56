"""The safety options from the command line: sandbox modes, limits, logs, parallel runs."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from click.testing import CliRunner

from arena.cli import main
from arena.procs.logs import LOG_FOLDER
from tests.arena.conftest import ROGUES
from tests.security.test_limits import fake_bwrap


def invoke(*args: str, env: dict[str, str] | None = None):
    return CliRunner(env=env).invoke(main, list(args))


def test_required_sandbox_without_bwrap_is_one_line_and_non_zero(tmp_path) -> None:
    env = {"PATH": str(tmp_path), "ARENA_DB": str(tmp_path / "arena.db")}
    result = invoke(
        "play",
        "skull",
        "--bot",
        "random",
        "--bot",
        "random",
        "--bot",
        "random",
        "--sandbox",
        "required",
        env=env,
    )
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("arena: error: --sandbox required, but")


def test_required_sandbox_refuses_a_bwrap_that_does_not_work(tmp_path, private) -> None:
    # in a folder bot users can reach: as root, the probe runs bwrap as a bot user
    folder = fake_bwrap(private / "bin", works=False).parent
    env = {"PATH": f"{folder}:/usr/bin:/bin", "ARENA_DB": str(tmp_path / "arena.db")}
    result = invoke(
        "play",
        "skull",
        "--bot",
        "random",
        "--bot",
        "random",
        "--bot",
        "random",
        "--sandbox",
        "required",
        env=env,
    )
    assert result.exit_code == 1 and "does not work here" in result.output


def test_bot_output_is_logged_next_to_the_database(tmp_path) -> None:
    env = {"ARENA_DB": str(tmp_path / "arena.db")}
    command = f"{sys.executable} {ROGUES / 'chatty.py'}"
    result = invoke(
        "play",
        "skull",
        "--bot",
        command,
        "--bot",
        "random",
        "--bot",
        "random",
        "--seed",
        "2",
        "--log-bytes",
        "5000",
        "--json",
        env=env,
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["faults"] == []
    folder = tmp_path / LOG_FOLDER
    assert folder.is_dir()
    name = json.loads(result.output)["bots"][0]
    shown = invoke("bot", "logs", name, env=env)
    assert shown.exit_code == 0
    assert shown.output.startswith("==> ") and "spam spam" in shown.output
    assert "output over 5000 bytes discarded" in shown.output
    listed = invoke("bot", "logs", name, "--list", env=env)
    assert "bytes" in listed.output and listed.output.count("\n") == 1
    missing = invoke("bot", "logs", "nobody", env=env)
    assert missing.exit_code == 1 and "no logs of bot 'nobody'" in missing.output


def test_tournament_run_takes_limits_and_refuses_remote_bots_in_parallel(tmp_path) -> None:
    db = str(tmp_path / "arena.db")
    assert invoke("bot", "add", "far", "--remote", "--db", db).exit_code == 0
    created = invoke(
        "tournament",
        "create",
        "--game",
        "skull",
        "--bots",
        "far,random,first",
        "--seed",
        "1",
        "--json",
        "--db",
        db,
    )
    tid = str(json.loads(created.stdout)["id"])
    result = invoke(
        "tournament", "run", tid, "--jobs", "2", "--listen", "tcp://127.0.0.1:0", "--db", db
    )
    assert result.exit_code == 1
    assert "remote bots join one listening arena process: use --jobs 1" in result.output
    result = invoke("tournament", "run", tid, "--db", db)
    assert result.exit_code == 1 and "is remote: give --listen" in result.output


def test_parallel_tournament_with_a_crashing_rogue_loses_nothing(tmp_path) -> None:
    """Two worker processes, a real game, a bot that crashes in every game it plays (at its
    second turn of each game, so a game that gave it two turns cannot leave it alive)."""
    db = str(tmp_path / "arena.db")
    command = ["--", sys.executable, str(ROGUES / "crash_mid.py")]
    # registration checks the bot: a crashing bot is refused, so it enters as a command spec
    assert invoke("bot", "add", "crasher", "--db", db, *command).exit_code == 1
    from tests.unchecked import add_unchecked
    from tournaments.store.facts import Store

    with Store.open(db) as store:
        add_unchecked(store, "crasher", [sys.executable, str(ROGUES / "crash_mid.py")])
    created = invoke(
        "tournament",
        "create",
        "--game",
        "skull",
        "--bots",
        "crasher,random,first,random",
        "--table-size",
        "3",
        "--seed",
        "3",
        "--move-time",
        "500",
        "--json",
        "--db",
        db,
    )
    tid = str(json.loads(created.output)["id"])
    result = invoke(
        "tournament",
        "run",
        tid,
        "--jobs",
        "2",
        "--quiet",
        "--json",
        "--memory",
        "512",
        "--max-procs",
        "32",
        "--db",
        db,
    )
    assert result.exit_code == 0, result.output
    with Store.open(db) as store:
        info = store.tournament(int(tid))
        assert info.games_done == info.games_total == 12
        faults = store.db.execute(
            "SELECT s.entrant, f.kind FROM faults f JOIN seats s ON s.game_id = f.game_id "
            "AND s.seat = f.seat"
        ).fetchall()
        rogue_games = store.db.execute(
            "SELECT COUNT(*) FROM seats WHERE entrant = 'crasher'"
        ).fetchone()[0]
    assert {entrant for entrant, _ in faults} == {"crasher"}
    assert [kind for _, kind in faults] == ["crash"] * rogue_games == ["crash"] * 9
    assert Path(db).with_name(LOG_FOLDER).is_dir()
