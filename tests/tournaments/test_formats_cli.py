"""``arena tournament create --format ...`` on the command line: each format planned and shown
(text and JSON), and every request that cannot be played refused with one clear line and a
non-zero exit, nothing written."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from tests.tournaments import cli, create


def arena(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


@pytest.mark.parametrize(
    ("args", "code", "words"),
    [
        (("--format", "swiss", "--rounds", "3", "--copies", "2"), 1, "needs at least 6 entrants"),
        (
            ("--advance", "1", "--copies", "5"),
            1,
            r"cannot end at one table of 3 \(fields 10 -> 4 -> 2\); fields that work near it: "
            r"5, 7, 9, 11, 13, 15",
        ),
        (("--format", "knockout", "--copies", "5"), 1, "needs its number going on"),
        (("--advance", "3", "--copies", "5"), 1, "sends on 1-2 of each table"),
        (("--tables-per-entrant", "4", "--table-size", "4", "--copies", "2"), 1, "more than 4"),
        (("--tables-per-entrant", "0", "--copies", "5"), 2, "0 is not in the range"),
        (("--format", "swiss", "--copies", "5"), 2, "a Swiss tournament needs --rounds R"),
        (("--tables-per-entrant", "2", "--advance", "1", "--copies", "5"), 2, "two formats"),
        (("--format", "swiss", "--advance", "1", "--rounds", "2", "--copies", "5"), 2, "not of"),
        (("--rounds", "2", "--repetitions", "3"), 2, "give one of them"),
        (("--format", "league", "--copies", "5"), 2, "'league' is not one of"),
    ],
)
def test_requests_that_cannot_be_played_are_refused(
    tmp_path: Path, args: tuple[str, ...], code: int, words: str
) -> None:
    db = str(tmp_path / "a.db")
    exit_code, output = arena(
        "tournament", "create", "--game", "skull", "--bots", "random,first",
        "--table-size", "3", *args, "--db", db,
    )  # fmt: skip
    assert exit_code == code, output
    assert "Traceback" not in output
    assert re.search(words, output), output
    if Path(db).exists():
        assert json.loads(cli("tournament", "list", "--json", "--db", db)) == []


def test_each_format_is_planned_and_shown(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    balanced, games = create(
        db, "random,first", "--copies", "4", "--table-size", "4", "--tables-per-entrant", "3"
    )
    assert games == 8 * 3  # six tables of four, four rotations each
    shown = json.loads(cli("tournament", "show", str(balanced), "--json", "--db", str(db)))
    assert shown["kind"] == "balanced" and shown["per_entrant"] == 3
    assert shown["format"]["balance"]["seats_min"] == shown["format"]["balance"]["seats_max"] == 3
    text = cli("tournament", "show", str(balanced), "--db", str(db))
    assert "balanced: 3 tables each" in text and "balance    6 tables; each entrant at 3" in text

    swiss, games = create(
        db, "random,first", "--copies", "5", "--table-size", "3", "--format", "swiss",
        "--rounds", "4", "--repetitions", "2",
    )  # fmt: skip
    assert games == 3 * 3 * 2, "the first round: three tables, two deals each"
    shown = json.loads(cli("tournament", "show", str(swiss), "--json", "--db", str(db)))
    assert (shown["kind"], shown["rounds"], shown["repetitions"]) == ("swiss", 4, 2)
    assert shown["format"] == {"format": "swiss", "rounds_planned": 1, "standings": []}

    knockout, games = create(
        db, "random,first,random", "--copies", "9", "--table-size", "3", "--advance", "1"
    )
    assert games == 9 * 3
    shown = json.loads(cli("tournament", "show", str(knockout), "--json", "--db", str(db)))
    assert (shown["kind"], shown["rounds"], shown["advance"]) == ("knockout", 3, 1)
    assert len(shown["format"]["bracket"][0]["tables"]) == 9
    text = cli("tournament", "list", "--db", str(db))
    kinds = [line.split()[1:3] for line in text.splitlines()[2:]]
    assert kinds == [["balanced", "tournament"], ["Swiss", "tournament"], ["knockout", "skull"]]


def test_a_swiss_run_says_each_round_and_shows_the_standings(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    tid, _ = create(
        db, "random,first", "--copies", "4", "--table-size", "3", "--format", "swiss",
        "--rounds", "2", "--seed", "3",
    )  # fmt: skip
    exit_code, output = arena("tournament", "run", str(tid), "--db", str(db))
    assert exit_code == 0, output
    assert "round 1 of 2 played; first: " in output
    assert "round 2 planned: 6 games, sitting out: " in output
    assert "round 2 of 2 played" in output
    bars = re.findall(r"\] (\d+)/(\d+) games", output)
    assert bars and {total for _, total in bars} == {"12"}, "the bar counts both rounds' games"
    assert "standings after round 2" in output and "r1  r2" in output
    data = json.loads(cli("tournament", "show", str(tid), "--json", "--db", str(db)))
    final = data["format"]["standings"][-1]
    assert [line["rank"] for line in final] == list(range(1, 9))
    assert sum(line["byes"] for line in final) == 2 * 2, "two sit out each round"
    assert data["status"] == "done" and data["games_done"] == 12


def test_a_knockout_run_says_who_goes_on_and_who_won(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    tid, _ = create(
        db, "random,first,random", "--copies", "3", "--table-size", "3", "--advance", "1"
    )
    exit_code, output = arena("tournament", "run", str(tid), "--db", str(db))
    assert exit_code == 0, output
    data = json.loads(cli("tournament", "show", str(tid), "--json", "--db", str(db)))
    first, final = data["format"]["bracket"]
    finalists = [s["entrant"] for s in final["tables"][0]["scores"]]
    said = re.search(r"round 1 of 2 played; going on: (.*); round 2 planned: 3 games", output)
    assert said is not None, output
    assert sorted(said.group(1).split(", ")) == sorted(finalists)
    assert f"round 2 of 2 played; winner: {finalists[0]}" in output
    assert data["format"]["order"][0] == finalists[0]
    assert "final\n  table 1  " in output and "order      1. " + finalists[0] in output
