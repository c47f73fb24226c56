"""The version recorded is the code that ran: a folder bot runs from the arena's read-only copy
of its folder (edits after ``arena bot add`` change nothing until it is registered again), a
tournament runs the versions it was planned with, a command bot whose files changed is refused,
and old databases keep working. Real files, real bot processes, real SQLite."""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from sqlite_utils import Database

from arena.cli import main
from tournaments.catalogue.botcopies import BOTS_FOLDER, BotCopies, tree_digest
from tournaments.catalogue.oldversions import command_version as old_command_version
from tournaments.catalogue.oldversions import folder_version as old_folder_version
from tournaments.store.facts import Store
from tournaments.store.migrations import migrate

BOT = textwrap.dedent("""
    import random, sys
    from protocol.sdk import run_bot

    MARK = {mark!r}

    def act(view, legal):
        print("running", MARK, file=sys.stderr, flush=True)
        return random.choice(legal)

    if __name__ == "__main__":
        run_bot(act, name="mybot")
""")


def invoke(*args: str, db: Path | None = None) -> Result:
    """Run ``arena ARGS`` (``db``: as ``$ARENA_DB``, for ``arena play``)."""
    return CliRunner().invoke(main, list(args), env={"ARENA_DB": str(db)} if db else None)


def arena(*args: str) -> str:
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    return result.output


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.parent.chmod(0o755)
    path.write_text(text)
    path.chmod(0o644)
    return path


def folder_bot(root: Path, mark: str = "v1") -> Path:
    folder = root / "mybot"
    write(folder / "bot.py", BOT.format(mark=mark))
    write(folder / "bot.toml", 'name = "mybot"\ncommand = "python3 bot.py"\ngames = ["skull"]\n')
    return folder


def marks(db: Path, bot: str = "mybot") -> set[str]:
    """The marks the bot's processes logged (then the logs are cleared for the next run)."""
    folder = db.parent / "arena-logs" / bot
    found = set()
    for path in folder.glob("*.log*"):
        found |= set(re.findall(r"running (\S+)", path.read_text()))
    shutil.rmtree(folder, ignore_errors=True)
    return found


def create(db: Path, bots: str = "mybot,random,first") -> int:
    out = arena("tournament", "create", "--game", "skull", "--bots", bots, "--rounds", "1",
                "--json", "--db", str(db))  # fmt: skip
    return int(json.loads(out)["id"])


def run(db: Path, tid: int) -> Result:
    return invoke("tournament", "run", str(tid), "-q", "--sandbox", "off", "--db", str(db))


def listed(db: Path) -> dict[str, str]:
    rows = json.loads(arena("bot", "list", "--json", "--db", str(db)))
    return {row["name"]: row["version"] for row in rows}


def test_an_edit_after_add_runs_the_registered_code(tmp_path: Path, shared: Path) -> None:
    db = tmp_path / "arena.db"
    folder = folder_bot(shared)
    out = arena("bot", "add", str(folder), "--sandbox", "off", "--db", str(db))
    first = listed(db)["mybot"]
    assert f"registered mybot version {first}" in out
    copy = BotCopies.beside(db).path(tree_digest(folder))
    assert copy.parent == tmp_path / BOTS_FOLDER and copy.name.startswith(first)

    write(folder / "bot.py", BOT.format(mark="v2"))  # edited after add...
    write(folder / "helper.py", "")  # ... and a file added
    one = create(db)
    assert run(db, one).exit_code == 0
    assert marks(db) == {"v1"}, "the registered code ran, not the edited folder"
    assert listed(db)["mybot"] == first

    planned = create(db)  # planned with the first version
    again = invoke("bot", "add", str(folder), "--sandbox", "off", "--db", str(db))
    assert again.exit_code == 1 and "--replace" in again.output
    out = arena("bot", "add", "mybot", "--replace", "--sandbox", "off", "--db", str(db))
    second = listed(db)["mybot"]
    assert second != first
    assert f"registered mybot version {second}, a new version (was {first})" in out
    assert f"tournament {planned} was planned with mybot version {first}" in out

    result = run(db, planned)
    assert result.exit_code == 0, result.output
    assert f"are played by version {first}, as planned" in result.output
    assert marks(db) == {"v1"}, "a tournament runs the version it was planned with"
    later = create(db)
    assert run(db, later).exit_code == 0
    assert marks(db) == {"v2"}

    show = {tid: arena("tournament", "show", str(tid), "--db", str(db)) for tid in (planned, later)}
    assert f"mybot ({first})" in show[planned] and f"mybot ({second})" in show[later]
    with sqlite3.connect(db) as conn:
        (game,) = conn.execute(
            "SELECT MIN(id) FROM games WHERE tournament_id = ?", (later,)
        ).fetchone()
    replay = json.loads(arena("replay", str(game), "--json", "--db", str(db)))
    assert replay["versions"][replay["seating"].index("mybot")] == second


def test_the_same_code_is_the_same_version(tmp_path: Path, shared: Path) -> None:
    db = tmp_path / "arena.db"
    folder = folder_bot(shared)
    arena("bot", "add", str(folder), "--sandbox", "off", "--db", str(db))
    version = listed(db)["mybot"]
    out = arena("bot", "add", str(folder), "--replace", "--db", str(db))
    assert f"mybot is unchanged: version {version}" in out and "checking" not in out
    arena("bot", "remove", "mybot", "--db", str(db))
    arena("bot", "add", str(folder), "--sandbox", "off", "--db", str(db))
    assert listed(db)["mybot"] == version
    assert len(list((tmp_path / BOTS_FOLDER).iterdir())) == 1


@pytest.mark.parametrize(
    "entry, make",
    [
        ("outside", lambda f: (f / "outside").symlink_to("/etc")),
        ("up", lambda f: (f / "up").symlink_to("../other")),
        ("lib/escape", lambda f: (f / "lib" / "escape").symlink_to("../../other/x")),
        ("twisty", lambda f: ((f / "here").symlink_to("."), (f / "twisty").symlink_to("here/.."))),
        ("pipe", lambda f: os.mkfifo(f / "pipe")),
    ],
    ids=["absolute", "relative-out", "nested-out", "out-through-a-link", "fifo"],
)
def test_what_leaves_the_folder_is_refused(tmp_path: Path, shared: Path, entry, make) -> None:
    db = tmp_path / "arena.db"
    folder = folder_bot(shared)
    (folder / "lib").mkdir()
    make(folder)
    result = invoke("bot", "add", str(folder), "--sandbox", "off", "--db", str(db))
    assert result.exit_code == 1
    assert f"the bot folder {folder}: '{entry}'" in result.output
    assert "Traceback" not in result.output
    assert "mybot" not in listed(db)
    assert list((tmp_path / BOTS_FOLDER).iterdir()) == [], "nothing is left in the store"


def test_a_bot_that_fails_its_check_leaves_no_copy(tmp_path: Path, shared: Path) -> None:
    db = tmp_path / "arena.db"
    folder = folder_bot(shared)
    write(folder / "bot.py", "import sys\nsys.exit(3)\n")
    result = invoke("bot", "add", str(folder), "--sandbox", "off", "--db", str(db))
    assert result.exit_code == 1 and "check failed" in result.output
    assert "mybot" not in listed(db)
    assert list((tmp_path / BOTS_FOLDER).iterdir()) == []


def test_a_folder_holding_the_database_is_refused(shared: Path) -> None:
    """Its copy would hold the database and its key file, readable by the bot."""
    folder = folder_bot(shared)
    db = folder / "arena.db"
    arena("tournament", "list", "--db", str(db))  # the database, and its key file, exist
    result = invoke("bot", "add", str(folder), "--sandbox", "off", "--db", str(db))
    assert result.exit_code == 1 and "private to the arena" in result.output
    assert not (folder / BOTS_FOLDER).exists()


def test_a_command_bot_whose_script_changed_is_refused(tmp_path: Path, shared: Path) -> None:
    db = tmp_path / "arena.db"
    script = write(shared / "cmdbot.py", BOT.format(mark="c1"))
    arena("bot", "add", "cmdbot", "--game", "skull", "--sandbox", "off", "--db", str(db), "--",
          sys.executable, str(script))  # fmt: skip
    first = listed(db)["cmdbot"]
    planned = create(db, "cmdbot,random,first")

    write(script, BOT.format(mark="c2"))
    refusals = {
        "run": run(db, planned),
        "play": invoke(
            "play", "skull", "--bot", "cmdbot", "--bot", "random", "--bot", "first", db=db
        ),
        "check": invoke("bot", "check", "cmdbot", "--db", str(db)),
        "match": invoke("match", "cmdbot", "random", "--game", "skull", "--db", str(db)),
        "create": invoke(
            "tournament", "create", "--game", "skull", "--bots", "cmdbot,random", "--db", str(db)
        ),  # fmt: skip
    }
    for what, result in refusals.items():  # arena match: 5, an error's code, never a verdict's
        assert result.exit_code == (5 if what == "match" else 1), (what, result.output)
        assert f"{script} has changed" in result.output, what
        assert "Traceback" not in result.output
    assert "arena bot add cmdbot --replace" in refusals["play"].output
    with Store.open(db) as store:
        assert store.tournament(planned).games_done == 0
    assert marks(db, "cmdbot") == set()

    out = arena("bot", "add", "cmdbot", "--replace", "--sandbox", "off", "--db", str(db))
    second = listed(db)["cmdbot"]
    assert f"registered cmdbot version {second}, a new version (was {first})" in out
    result = run(db, planned)  # planned with the first version, whose script is gone
    assert result.exit_code == 1
    assert f"tournament {planned}: bot 'cmdbot'" in result.output
    assert "put its files back as they were to play it, or give it up with" in result.output
    write(script, BOT.format(mark="c1"))  # put back: the planned version runs
    result = run(db, planned)
    assert result.exit_code == 0, result.output
    assert marks(db, "cmdbot") == {"c1"}


def test_old_databases_keep_working(tmp_path: Path, shared: Path) -> None:
    """Bots registered before the arena kept copies run while their files are as they were,
    and are refused once they changed, until registered again."""
    db = tmp_path / "arena.db"
    folder = folder_bot(shared, mark="old")
    script = write(shared / "cmdbot.py", BOT.format(mark="oldcmd"))
    argv = [sys.executable, str(script)]
    conn = sqlite3.connect(db, isolation_level=None)
    migrate(Database(conn), path=str(db), target=7)  # as an older arena left it
    conn.executemany(
        "INSERT INTO bots (name, command, path, kind, version, games, played, added_at) "
        "VALUES (?, ?, ?, 'registered', ?, '[\"skull\"]', 0, '2024-01-01')",
        [
            ("mybot", "python3 bot.py", str(folder), old_folder_version(folder)),
            ("cmdbot", " ".join(argv), None, old_command_version(argv)),
        ],
    )
    conn.close()

    assert set(listed(db)) >= {"mybot", "cmdbot"}
    tid = create(db, "mybot,cmdbot,random")
    assert run(db, tid).exit_code == 0
    assert marks(db) == {"old"} and marks(db, "cmdbot") == {"oldcmd"}

    write(folder / "bot.py", BOT.format(mark="edited"))
    write(script, BOT.format(mark="editedcmd"))
    later = invoke("tournament", "create", "--game", "skull", "--bots", "mybot,random",
                   "--db", str(db))  # fmt: skip
    assert later.exit_code == 1 and "changed since version" in later.output
    assert "arena bot add mybot --replace" in later.output
    played = invoke("play", "skull", "--bot", "cmdbot", "--bot", "random", "--bot", "first", db=db)
    assert played.exit_code == 1 and "is not the code of its version" in played.output
    out = arena("bot", "add", "mybot", "--replace", "--sandbox", "off", "--db", str(db))
    assert "a new version" in out
    with Store.open(db) as store:
        assert store.get_bot("mybot").digest == tree_digest(folder)
