"""The example bot in another language (examples/node): it passes ``arena bot check`` for every
game and plays a tournament without a fault. Needs ``node`` and the packages ``npm ci`` installs
in examples/node (``.ci/run`` does both); skipped with the reason otherwise."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NODE_BOT = ROOT / "examples" / "node"

pytestmark = [
    pytest.mark.skipif(
        shutil.which("node") is None,
        reason="node is not installed (.ci/run installs the Debian packages nodejs and npm)",
    ),
    pytest.mark.skipif(
        not (NODE_BOT / "node_modules" / "zeromq").is_dir(),
        reason="examples/node has no node_modules: run `npm ci` there (.ci/run does)",
    ),
]


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", *args],
        capture_output=True,
        check=False,
        text=True,
        timeout=300,
        cwd=ROOT,
    )


def test_the_node_bot_passes_every_check_of_every_game(tmp_path: Path) -> None:
    done = arena(
        "bot", "check", str(NODE_BOT), "--games", "2", "--json", "--db", str(tmp_path / "n.db")
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["bot"] == "node-example" and report["passed"]
    assert report["games"] == ["skull", "skull-bank", "skull-king", "skyjo"]
    # at least two games of each game, and every table size in every seat: 3+4+5+6 games of each
    # disc game, 2+3+...+8 of Skull King and of Skyjo
    assert report["games_played"] == 18 + 18 + 35 + 35
    assert all(coverage["complete"] for coverage in report["coverage"])
    assert {check["result"] for check in report["checks"]} == {"pass"}
    batch = next(check["detail"] for check in report["checks"] if check["check"] == "batch")
    assert batch.startswith("says batch: true; answered batches of up to"), batch


def test_the_node_bot_plays_a_tournament_without_faults(tmp_path: Path) -> None:
    db = str(tmp_path / "n.db")
    added = arena("bot", "add", str(NODE_BOT), "--db", db)
    assert added.returncode == 0, added.stderr
    created = arena(
        "tournament",
        "create",
        "--game",
        "skull",
        "--bots",
        "node-example,random,skull_odds",
        "--rounds",
        "2",
        "--seed",
        "5",
        "--json",
        "--db",
        db,
    )
    assert created.returncode == 0, created.stderr
    tid = str(json.loads(created.stdout)["id"])
    ran = arena("tournament", "run", tid, "--quiet", "--json", "--db", db)
    assert ran.returncode == 0, ran.stderr
    rows = {row["entrant"]: row for row in json.loads(ran.stdout)}
    assert rows["node-example"]["games"] == 6
    assert all(row["faults"] == 0 and row["forfeits"] == 0 for row in rows.values())
