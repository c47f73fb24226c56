"""``arena tournament create --gauntlet NEW``: every table holds NEW; played and ranked as
any tournament."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", *args],
        capture_output=True,
        check=False,
        text=True,
        timeout=240,
        cwd=ROOT,
    )


def test_a_gauntlet_seats_its_bot_at_every_table(tmp_path: Path) -> None:
    db = str(tmp_path / "g.db")
    created = arena(
        "tournament",
        "create",
        "--game",
        "skull",
        "--gauntlet",
        "skull_odds",
        "--bots",
        "random,first,random",
        "--table-size",
        "3",
        "--seed",
        "3",
        "--json",
        "--db",
        db,
    )
    assert created.returncode == 0, created.stderr
    info = json.loads(created.stdout)
    assert info["kind"] == "gauntlet" and info["gauntlet"] == "skull_odds"
    assert info["entrants"][0]["name"] == "skull_odds"
    assert info["games_total"] == 3 * 3  # C(3, 2) tables of 3, 3 rotations each
    ran = arena("tournament", "run", str(info["id"]), "--quiet", "--json", "--db", db)
    assert ran.returncode == 0, ran.stderr
    ranks = {row["entrant"]: row for row in json.loads(ran.stdout)}
    assert ranks["skull_odds"]["games"] == 9
    assert sum(row["games"] for row in ranks.values()) == 9 * 3
    with sqlite3.connect(db) as conn:
        seatings = [json.loads(s) for (s,) in conn.execute("SELECT seating FROM games")]
    assert all("skull_odds" in seating for seating in seatings)
    shown = arena("tournament", "show", str(info["id"]), "--db", db)
    assert "a gauntlet of skull_odds" in shown.stdout


def test_the_gauntlet_bot_is_not_also_an_opponent(tmp_path: Path) -> None:
    done = arena(
        "tournament",
        "create",
        "--game",
        "skull",
        "--gauntlet",
        "random",
        "--bots",
        "random,first,first",
        "--db",
        str(tmp_path / "g.db"),
    )
    assert done.returncode == 2 and "gauntlet" in done.stderr
    assert "Traceback" not in done.stderr


def test_older_tournaments_become_round_robins(tmp_path: Path) -> None:
    """Schema version 7 gives every tournament of an older database the kind it was."""
    from tests.tournaments import old_database
    from tournaments.plans.schedule import TournamentKind
    from tournaments.store.facts import Store

    db = tmp_path / "old.db"
    old_database(db)
    with Store.open(db) as store:
        info = store.tournament(1)
        assert info.spec.kind is TournamentKind.ROUND_ROBIN and info.spec.gauntlet is None
        assert store.sprt(1) is None
        assert info.to_dict()["kind"] == "round-robin"
