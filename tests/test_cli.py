"""The ``arena`` command through click's CliRunner (and real processes where it matters)."""

from __future__ import annotations

import importlib
import json
import sqlite3
import subprocess
import sys
import tomllib
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.keys.keyfile import KeyFile
from arena.keys.seeds import deal_seed
from tournaments.reports import when

ROGUES = Path(__file__).resolve().parent / "rogues"


def run(*args: str, db: Path | None = None) -> click.testing.Result:
    argv = list(args)
    if db is not None:
        argv += ["--db", str(db)]
    return CliRunner().invoke(main, argv, catch_exceptions=False)


def keys_in(data: object) -> set[str]:
    """Every key of every mapping in a JSON value."""
    if isinstance(data, dict):
        return set(data).union(*(keys_in(v) for v in data.values()))
    if isinstance(data, list):
        return set().union(*(keys_in(v) for v in data))
    return set()


def all_commands(group: click.Group, prefix: tuple[str, ...] = ()):
    context = click.Context(group)
    for name in group.list_commands(context):
        command = group.get_command(context, name)
        yield prefix + (name,), command
        if isinstance(command, click.Group):
            yield from all_commands(command, prefix + (name,))


def test_every_command_and_option_has_help() -> None:
    seen = 0
    for path, command in all_commands(main):
        result = run(*path, "--help")
        assert result.exit_code == 0, path
        assert command.help or command.short_help, f"{' '.join(path)} has no help"
        for param in command.params:
            if isinstance(param, click.Option):
                assert param.help, f"{' '.join(path)} {param.opts} has no help"
        seen += 1
    assert seen >= 12


def test_the_command_list_shows_each_command_s_own_help() -> None:
    """``arena --help`` lists the commands from a table (so that it imports none of them):
    each line is that command's own one-line help."""
    from arena.cli import COMMANDS

    listed = run("--help").output
    for name, (module, attr, line) in COMMANDS.items():
        command = getattr(importlib.import_module(module), attr)
        assert command.get_short_help_str(limit=200) == line, name
        assert name in listed


def test_listing_the_games_loads_no_database_wire_or_process_code() -> None:
    """``arena --help`` and ``arena games`` start fast: they import only what they use."""
    heavy = ("sqlite_utils", "zmq", "msgpack", "numpy", "tournaments.store.facts", "arena.procs")
    probe = (
        "import sys, runpy; sys.argv = ['arena'] + sys.argv[1:]\n"
        "try:\n    runpy.run_module('arena', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        f"print(sorted(m for m in sys.modules if m.startswith({heavy!r})))"
    )
    for args in (["--help"], ["games"]):
        done = subprocess.run(
            [sys.executable, "-c", probe, *args], capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip().splitlines()[-1] == "[]", (args, done.stdout[-500:])


def test_the_commands_that_play_load_no_numpy_pandas_or_asyncio() -> None:
    """``arena play`` and ``arena demo`` start fast too: sqlite_utils comes without numpy and
    pandas (``tournaments.store.sqlite``), and nothing brings asyncio (the door's connection count
    reads its monitor's events itself; CURVE's authenticator is imported only with CURVE). A
    later ``import numpy`` still works where numpy is installed."""
    heavy = ("numpy", "pandas", "asyncio")
    probe = (
        "import importlib.util, sys\n"
        "import arena.cli.play, arena.cli.demo, arena.procs.hub\n"
        f"print(sorted(m for m in sys.modules if m.startswith({heavy!r})))\n"
        "if importlib.util.find_spec('numpy') is not None:\n"
        "    import numpy\n"
        "    print(numpy.zeros(2).tolist())\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[0] == "[]", done.stdout[-500:]
    assert lines[1:] in ([], ["[0.0, 0.0]"])


def test_the_console_script_and_python_m_arena_run_the_cli_package() -> None:
    root = Path(__file__).resolve().parent.parent
    target = tomllib.loads((root / "pyproject.toml").read_text())["project"]["scripts"]["arena"]
    module, _, name = target.partition(":")
    assert getattr(importlib.import_module(module), name) is main
    done = subprocess.run(
        [sys.executable, "-m", "arena", "--version"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and done.stdout.startswith("arena, version"), done.stderr


def test_games_lists_every_game_with_player_counts() -> None:
    result = run("games")
    assert result.exit_code == 0
    assert "skull" in result.output and "3-6" in result.output
    listing = json.loads(run("games", "--json").output)
    assert {g["name"] for g in listing} >= {"skull"}


@pytest.mark.parametrize("players", [3, 6])
def test_play_skull_over_real_processes(players: int) -> None:
    bots = ["--bot", "random"] * players
    result = run("play", "skull", *bots, "--seed", "11")
    assert result.exit_code == 0, result.output
    assert "place" in result.output and "seat 0: random" in result.output
    data = json.loads(run("play", "skull", *bots, "--seed", "11", "--json").output)
    # the record keeps the deal seed: --seed 11 keyed with the user's secret key
    assert data["seed"] == deal_seed(KeyFile.of_user().play_key(), 11, 0, 0) != 11
    assert len(data["places"]) == players
    assert data["events"] and data["actions"]
    again = json.loads(run("play", "skull", *bots, "--seed", "11", "--json").output)
    assert [a["action"] for a in again["actions"]] == [a["action"] for a in data["actions"]]


def test_play_as_one_seat_shows_its_views() -> None:
    result = run(
        "play",
        "skull",
        "--bot",
        "random",
        "--bot",
        "random",
        "--bot",
        "random",
        "--seed",
        "3",
        "--seat",
        "1",
        "--json",
    )
    data = json.loads(result.output)
    assert data["seat"] == 1 and data["turns"]
    assert all(turn["action"] in turn["legal"] for turn in data["turns"])
    assert "seed" not in keys_in(data) and "events" not in data  # they reveal every hand
    text = run(
        "play",
        "skull",
        "--bot",
        "random",
        "--bot",
        "random",
        "--bot",
        "random",
        "--seed",
        "3",
        "--seat",
        "1",
    ).output
    assert "seed" not in text


@pytest.mark.parametrize(
    "args, message",
    [
        (["play", "chess", "--bot", "random", "--bot", "random"], "unknown game 'chess'"),
        (["play", "skull", "--bot", "random", "--bot", "random"], "skull takes 3-6 players, not 2"),
        (
            ["play", "skull", "--bot", "random", "--bot", "random", "--bot", "nosuchbot"],
            "no bundled or registered bot 'nosuchbot'",
        ),
        (
            [
                "play",
                "skull",
                "--bot",
                "random",
                "--bot",
                "random",
                "--bot",
                f"{sys.executable} {ROGUES / 'exit_at_once.py'}",
            ],
            "stopped before saying hello",
        ),
        (
            ["play", "skull", "--bot", "random", "--bot", "random", "--bot", "/no/such/program"],
            "/no/such/program",
        ),
        (
            ["play", "skull-king", "--bot", "random", "--bot", "random", "--option", "colour=red"],
            "has no option 'colour'",
        ),
    ],
)
def test_user_errors_are_one_line_and_non_zero(args, message) -> None:
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1
    assert message in result.output
    assert "Traceback" not in result.output
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit)


def test_rankings_are_never_stale_and_reading_them_writes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    created = run(
        "tournament",
        "create",
        "--game",
        "skull",
        "--bots",
        "random,first,random",
        "--table-size",
        "3",
        "--seed",
        "5",
        "--json",
        db=db,
    )
    tid = str(json.loads(created.output)["id"])
    assert run("tournament", "run", tid, "--quiet", db=db).exit_code == 0
    fresh = json.loads(run("rankings", tid, "--json", db=db).output)["rankings"]
    conn = sqlite3.connect(db)
    with conn:  # as if the run had been killed before its final rebuild of ratings
        conn.execute("DELETE FROM ratings")
    before = db.read_bytes()
    again = json.loads(run("rankings", tid, "--json", db=db).output)["rankings"]
    text = run("rankings", tid, db=db).output
    assert again == fresh, "computed from the stored games"
    assert conn.execute("SELECT COUNT(*) FROM ratings").fetchone()[0] == 0, "nothing written"
    assert db.read_bytes() == before
    assert str(round(fresh[0]["elo"])) in text, "text and --json agree"


def test_bad_usage_is_a_usage_error() -> None:
    result = CliRunner().invoke(main, ["play", "skull", "--bot", "random", "--seed", "x"])
    assert result.exit_code == 2 and "Invalid value" in result.output


def test_tournament_create_run_and_read(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    created = run(
        "tournament",
        "create",
        "--game",
        "skull",
        "--bots",
        "random,first,random",
        "--table-size",
        "3",
        "--repetitions",
        "2",
        "--seed",
        "5",
        "--json",
        db=db,
    )
    assert created.exit_code == 0, created.output
    info = json.loads(created.output)
    tid = info["id"]
    assert info["games_total"] == 2 * 1 * 3  # rounds x tables x rotations
    result = run("tournament", "run", str(tid), "--quiet", db=db)
    assert result.exit_code == 0, result.output
    assert "6/6 games played" in result.output
    ranks = json.loads(run("rankings", str(tid), "--json", db=db).output)
    assert {r["entrant"] for r in ranks["rankings"]} == {"random", "first", "random#2"}
    assert all(r["games"] == 6 for r in ranks["rankings"])
    cross = json.loads(run("crosstable", str(tid), "--json", db=db).output)
    assert cross["entrants"] == ["random", "first", "random#2"]
    text = run("crosstable", str(tid), db=db).output
    assert "random#2" in text
    listing = json.loads(run("tournament", "list", "--json", db=db).output)
    assert listing[0]["status"] == "done"
    created = listing[0]["created_at"]  # the table says the date and the zone, as pages do
    assert (
        when(created).endswith(" UTC") and when(created) in run("tournament", "list", db=db).output
    )
    shown = run("tournament", "show", str(tid), db=db)
    assert "6/6 games played" in shown.output
    game_id = sqlite3.connect(db).execute("SELECT MIN(id) FROM games").fetchone()[0]
    replayed = json.loads(run("replay", str(game_id), "--json", db=db).output)
    assert replayed["events"] and replayed["seed"]
    seat = json.loads(run("replay", str(game_id), "--seat", "0", "--json", db=db).output)
    assert seat["turns"] and "seed" not in keys_in(seat) and "events" not in seat
    assert str(replayed["seed"]) not in json.dumps(seat)
    assert "seed" not in run("replay", str(game_id), "--seat", "0", db=db).output
    assert "place" in run("replay", str(game_id), db=db).output


@pytest.mark.parametrize(
    "args, message",
    [
        (["--game", "skull", "--bots", "random,nobody,first"], "no bot named 'nobody'"),
        (["--game", "skull", "--bots", "random,first"], "cannot fill a table of 3"),
        (
            ["--game", "skull", "--bots", "random,first,random", "--table-size", "2"],
            "takes 3-6 players",
        ),
        (
            ["--game", "skyjo", "--bots", "random,first", "--option", "columns=maybe"],
            "takes true or false",
        ),
    ],
)
def test_bad_tournaments_write_nothing(tmp_path: Path, args, message) -> None:
    db = tmp_path / "t.db"
    result = CliRunner().invoke(main, ["tournament", "create", *args, "--db", str(db)])
    assert result.exit_code == 1 and message in result.output, result.output
    assert json.loads(run("tournament", "list", "--json", db=db).output) == []


def test_corrupt_database_is_a_clear_error(tmp_path: Path) -> None:
    db = tmp_path / "bad.db"
    db.write_bytes(b"this is not a database" * 100)
    result = CliRunner().invoke(main, ["tournament", "list", "--db", str(db)])
    assert result.exit_code == 1
    assert "arena: error:" in result.output and str(db) in result.output
    assert "Traceback" not in result.output


def test_locked_database_is_a_clear_error(tmp_path: Path, monkeypatch) -> None:
    db = tmp_path / "t.db"
    run("tournament", "list", db=db)
    holder = sqlite3.connect(db, timeout=0.1)
    holder.execute("BEGIN EXCLUSIVE")
    monkeypatch.setattr("tournaments.store.facts.DEFAULT_BUSY_TIMEOUT_MS", 200)
    try:
        result = CliRunner().invoke(
            main,
            [
                "tournament",
                "create",
                "--game",
                "skull",
                "--bots",
                "random,random,random",
                "--db",
                str(db),
            ],
        )
    finally:
        holder.rollback()
        holder.close()
    assert result.exit_code == 1
    assert "locked" in result.output and "Traceback" not in result.output


def test_bot_add_checks_before_registering(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    good = run(
        "bot",
        "add",
        "mine",
        "--game",
        "skull",
        "--db",
        str(db),
        "--",
        sys.executable,
        "-m",
        "bots.random",
    )
    assert good.exit_code == 0, good.output
    listing = json.loads(run("bot", "list", "--json", db=db).output)
    mine = [b for b in listing if b["name"] == "mine"]
    assert mine and mine[0]["kind"] == "registered" and mine[0]["version"]
    bad = CliRunner().invoke(
        main,
        [
            "bot",
            "add",
            "rogue",
            "--game",
            "skull",
            "--db",
            str(db),
            "--",
            sys.executable,
            str(ROGUES / "illegal.py"),
        ],
    )
    assert bad.exit_code == 1 and "check failed" in bad.output and "illegal" in bad.output
    listing = json.loads(run("bot", "list", "--json", db=db).output)
    assert "rogue" not in {b["name"] for b in listing}
    assert run("bot", "remove", "mine", db=db).exit_code == 0


def test_bot_add_from_a_folder_with_a_manifest(tmp_path: Path) -> None:
    folder = tmp_path / "firstbot"
    folder.mkdir()
    (folder / "bot.py").write_text(
        "from protocol.sdk import run_bot\nrun_bot(lambda view, legal: legal[0], name='firstbot')\n"
    )
    (folder / "bot.toml").write_text(
        f'name = "firstbot"\ncommand = "{sys.executable} bot.py"\ngames = ["skull"]\n'
    )
    db = tmp_path / "t.db"
    result = run("bot", "add", str(folder), db=db)
    assert result.exit_code == 0, result.output
    created = run(
        "tournament",
        "create",
        "--game",
        "skull",
        "--bots",
        "firstbot,random,random",
        "--seed",
        "1",
        "--json",
        db=db,
    )
    tid = json.loads(created.output)["id"]
    assert run("tournament", "run", str(tid), "--quiet", db=db).exit_code == 0
    ranks = json.loads(run("rankings", str(tid), "--json", db=db).output)["rankings"]
    assert {r["entrant"] for r in ranks} == {"firstbot", "random", "random#2"}
    assert all(r["faults"] == 0 for r in ranks)


def test_the_help_names_an_authors_first_commands() -> None:
    listed = run("--help").output
    assert "arena bot check SPEC" in listed and "arena bot ask SPEC" in listed


def test_a_read_only_command_creates_no_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``arena bot list`` in an empty folder lists the bundled bots and leaves the folder
    empty (it used to create ./arena.db)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ARENA_DB", raising=False)
    listed = run("bot", "list")
    assert listed.exit_code == 0 and "random" in listed.output
    assert list(tmp_path.iterdir()) == []


def test_errors_come_in_one_style() -> None:
    """A usage mistake and an arena error both say ``arena: error:`` (never click's
    ``Error:``), with their exit codes."""
    done = subprocess.run(
        [sys.executable, "-m", "arena", "tournament", "show", "nope"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and done.stderr.startswith("arena: error: "), done.stderr
    assert "\nError:" not in done.stderr and "Traceback" not in done.stderr


def test_bot_list_marks_a_command_bot_whose_files_changed(tmp_path: Path) -> None:
    """Its version is the code it was registered with: once its file is edited, the list says
    so (it showed the old version with no mark), and why."""
    from tests.unchecked import add_unchecked
    from tournaments.store.facts import Store

    db, script = tmp_path / "a.db", tmp_path / "mine.py"
    script.write_text("print('v1')\n")
    with Store.open(db) as store:
        add_unchecked(store, "mine", [sys.executable, str(script)])
    before = json.loads(run("bot", "list", "--json", db=db).output)
    assert next(r for r in before if r["name"] == "mine")["changed"] is None
    script.write_text("print('v2')\n")
    listed = CliRunner().invoke(main, ["bot", "list", "--db", str(db)])
    line = next(x for x in listed.stdout.splitlines() if x.startswith("mine "))
    assert "(changed)" in line and f"{script} has changed" in listed.stderr
    rows = json.loads(run("bot", "list", "--json", db=db).output)
    assert f"{script} has changed" in next(r for r in rows if r["name"] == "mine")["changed"]
