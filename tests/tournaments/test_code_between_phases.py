"""What runs in each phase is the code the tournament was planned with: a bot's code is hashed
again before each phase's processes start (and before each process starts), so a bot changed
during a run stops the run between phases, with one clear line, and loses or doubles nothing:
the games played stay recorded, the rest stay pending, and a run with the code put back
finishes. A bot cannot change its own code: its files are not its to write, and a file any
user may write is refused. Real bot processes, real files and SQLite."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from arena.procs.logs import bot_logs, log_texts
from arena.procs.sandbox import SandboxMode
from tournaments.catalogue.botcopies import BotCopies, BotFilesError
from tournaments.catalogue.registry import add_command_bot, add_folder_bot
from tournaments.errors import BotChanged
from tournaments.run.sink import Progress
from tournaments.service import RunOptions, create_tournament, prepare_run, run_tournament
from tournaments.store.facts import Store

ROOT = Path(__file__).resolve().parents[2]
#: A bot that says which code it runs; with ARENA_BOT_EDIT it tries to rewrite its own file on
#: its first turn (the next process of it would run other code under the same version).
SELF_EDITING = textwrap.dedent("""
    import os
    from protocol.sdk import run_bot

    HERE = os.path.abspath(__file__)
    EDITED = "# edited\\n"
    with open(HERE) as own:
        print("code", "edited" if own.read().endswith(EDITED) else "planned", flush=True)

    def act(view, legal):
        if os.environ.get("ARENA_BOT_EDIT"):
            try:
                with open(HERE, "a") as own:
                    own.write(EDITED)
                print("rewrote itself", flush=True)
            except OSError as exc:
                print("could not rewrite itself:", type(exc).__name__, flush=True)
            os.environ.pop("ARENA_BOT_EDIT")
        return legal[0]

    run_bot(act, name="selfedit")
""")


def codes(db: Path, name: str) -> list[str]:
    """What each process of bot ``name`` said it ran (its ``code`` line)."""
    return [
        line.split()[1]
        for path in bot_logs(db.parent / "arena-logs", name)
        for line in log_texts(path)
        if line.startswith("code ")
    ]


def counts(db: Path, tid: int) -> tuple[int, int, int]:
    """Games done, games in all, and games recorded more than once (none)."""
    with Store.open(db) as store:
        info = store.tournament(tid)
        doubled = store.db.execute(
            "SELECT COUNT(*) FROM (SELECT game_id FROM seats GROUP BY game_id, seat "
            "HAVING COUNT(*) > 1)"
        ).fetchone()[0]
        return info.games_done, info.games_total, doubled


def tournament(db: Path, bot: str) -> int:
    """Three deals' worth of phases: two games in each of three rotations."""
    with Store.open(db) as store:
        created = create_tournament(
            store,
            game_name="skull",
            bots=[bot, "random", "first"],
            table_size=3,
            repetitions=2,
            seed=3,
            options={},
            move_ms=1000,
        )
    return created.tid


def command_bot(tmp_path: Path) -> tuple[Path, Path]:
    """The database, and the script of command bot ``selfedit`` registered in it."""
    folder = tmp_path / "bot"
    folder.mkdir(mode=0o755)
    script = folder / "selfedit.py"
    script.write_text(SELF_EDITING)
    script.chmod(0o644)
    db = tmp_path / "data" / "arena.db"
    db.parent.mkdir()
    with Store.open(db) as store:
        add_command_bot(store, "selfedit", [sys.executable, str(script)], games=["skull"])
    return db, script


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_command_bot_edited_during_a_run_stops_it_before_its_next_phase(
    tmp_path: Path, jobs: int
) -> None:
    db, script = command_bot(tmp_path)
    tid = tournament(db, "selfedit")

    def edit(progress: Progress) -> None:
        """Its author edits it once the first phase's two games are recorded."""
        if progress.done == 2 and not script.read_text().endswith("# mine\n"):
            script.write_text(SELF_EDITING + "# mine\n")

    with Store.open(db) as store:
        prepared = prepare_run(store, tid, RunOptions(sandbox=SandboxMode.OFF), jobs=jobs)
        with pytest.raises(BotChanged) as stopped:
            run_tournament(store, prepared, edit)
    message = str(stopped.value)
    assert f"{script} has changed" in message and "changed during the run" in message
    assert "before its phase 2: 2 of 6 games are recorded" in message
    assert counts(db, tid) == (2, 6, 0)
    assert set(codes(db, "selfedit")) == {"planned"}, "no process ran the edited code"
    script.write_text(SELF_EDITING)  # put back as planned: the run finishes
    with Store.open(db) as store:
        run_tournament(store, prepare_run(store, tid, RunOptions(sandbox=SandboxMode.OFF)))
    assert counts(db, tid) == (6, 6, 0)
    assert set(codes(db, "selfedit")) == {"planned"}


def test_a_bot_that_tries_to_rewrite_itself_cannot(tmp_path: Path) -> None:
    """Its file is not its to write (as root it runs as a uid of its own; sandboxed, the file
    is read-only): it runs as registered to the end, through every phase."""
    db, script = command_bot(tmp_path)
    tid = tournament(db, "selfedit")
    env = {**os.environ, "ARENA_BOT_EDIT": "1", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "arena", "tournament", "run", str(tid), "--jobs", "2",
         "--quiet", "--db", str(db)],
        capture_output=True, text=True, env=env, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert counts(db, tid) == (6, 6, 0) and script.read_text() == SELF_EDITING
    assert set(codes(db, "selfedit")) == {"planned"}


def test_a_bot_file_any_user_may_write_is_refused(tmp_path: Path) -> None:
    """The bot itself could rewrite it between a check and its run: refused when it is
    registered, and when it is run after it became so."""
    db, script = command_bot(tmp_path)
    tid = tournament(db, "selfedit")
    writable = tmp_path / "bot" / "other.py"
    writable.write_text(SELF_EDITING)
    writable.chmod(0o666)
    with Store.open(db) as store, pytest.raises(BotFilesError, match="may be written by any"):
        add_command_bot(store, "other", [sys.executable, str(writable)], games=["skull"])
    script.chmod(0o666)
    with Store.open(db) as store, pytest.raises(BotFilesError, match="may be written by any"):
        prepare_run(store, tid, RunOptions(sandbox=SandboxMode.OFF))
    assert counts(db, tid) == (0, 6, 0)


def test_an_altered_copy_of_a_folder_bot_stops_the_run_before_its_next_phase(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "folderbot"
    folder.mkdir(mode=0o755)
    (folder / "bot.py").write_text(SELF_EDITING.replace("selfedit", "folderbot"))
    (folder / "bot.toml").write_text(
        f'name = "folderbot"\ncommand = "{sys.executable} bot.py"\ngames = ["skull"]\n'
    )
    for path in folder.iterdir():
        path.chmod(0o644)
    db = tmp_path / "data" / "arena.db"
    db.parent.mkdir()
    with Store.open(db) as store:
        registered = add_folder_bot(store, folder, sandbox=SandboxMode.OFF)
    tid = tournament(db, "folderbot")
    copy = BotCopies.beside(db).find(registered.info.digest or "")

    def tamper(progress: Progress) -> None:
        """After the first phase: the copy's owner (the arena's user) changes it."""
        if progress.done == 2 and os.stat(copy / "bot.py").st_mode & 0o200 == 0:
            copy.chmod(0o755)
            (copy / "bot.py").chmod(0o644)
            with open(copy / "bot.py", "a") as own:
                own.write("# edited by itself\n")

    with Store.open(db) as store:
        prepared = prepare_run(store, tid, RunOptions(sandbox=SandboxMode.OFF))
        with pytest.raises(BotChanged, match="copy .* was altered.*changed during the run"):
            run_tournament(store, prepared, tamper)
    played, total, doubled = counts(db, tid)
    assert 0 < played < total and doubled == 0
    assert set(codes(db, "folderbot")) == {"planned"}
    with Store.open(db) as store:  # registered again from its folder: the copy is put back
        add_folder_bot(store, folder, replace=True, sandbox=SandboxMode.OFF)
        run_tournament(store, prepare_run(store, tid, RunOptions(sandbox=SandboxMode.OFF)))
    assert counts(db, tid) == (total, total, 0)
