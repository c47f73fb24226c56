"""What runs in each phase is the code the tournament was planned with: a bot's code is hashed
again before each phase's processes start, so a bot changed during a run (by its author, or by
itself) stops the run between phases, with one clear line, and loses or doubles nothing: the
games played stay recorded, the rest stay pending, and a run with the code put back finishes.
Real bot processes (``arena tournament run`` in a process of its own), real files and SQLite."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from arena.procs.logs import bot_logs, log_texts
from arena.procs.sandbox import SandboxMode
from tournaments.catalogue.botcopies import BotCopies
from tournaments.catalogue.registry import add_command_bot, add_folder_bot
from tournaments.errors import BotChanged
from tournaments.service import RunOptions, create_tournament, prepare_run, run_tournament
from tournaments.store.facts import Store

ROOT = Path(__file__).resolve().parents[2]
#: A bot that says which code it runs, and (with ARENA_BOT_EDIT) rewrites its own file on its
#: first turn: the next process of it would run other code under the same version.
SELF_EDITING = textwrap.dedent("""
    import os
    from protocol.sdk import run_bot

    HERE = os.path.abspath(__file__)
    EDITED = "# edited by itself\\n"
    with open(HERE) as own:
        print("code", "edited" if own.read().endswith(EDITED) else "planned", flush=True)

    def act(view, legal):
        if os.environ.get("ARENA_BOT_EDIT"):
            with open(HERE) as own:
                done = own.read().endswith(EDITED)
            if not done:
                with open(HERE, "a") as own:
                    own.write(EDITED)
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


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_command_bot_that_edits_itself_stops_the_run_before_its_next_phase(
    tmp_path: Path, jobs: int
) -> None:
    folder = tmp_path / "bot"
    folder.mkdir(mode=0o755)
    script = folder / "selfedit.py"
    script.write_text(SELF_EDITING)
    script.chmod(0o666)  # its own uid may write it (as root every bot is a uid of its own)
    db = tmp_path / "data" / "arena.db"
    db.parent.mkdir()
    with Store.open(db) as store:
        add_command_bot(store, "selfedit", [sys.executable, str(script)], games=["skull"])
    tid = tournament(db, "selfedit")
    env = {**os.environ, "ARENA_BOT_EDIT": "1", "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "arena", "tournament", "run", str(tid), "--sandbox", "off",
               "--jobs", str(jobs), "--quiet", "--db", str(db)]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "changed during the run" in done.stderr and f"{script} has changed" in done.stderr
    assert "Traceback" not in done.stderr
    played, total, doubled = counts(db, tid)
    assert 0 < played < total and doubled == 0
    assert codes(db, "selfedit") and set(codes(db, "selfedit")) == {"planned"}
    script.write_text(SELF_EDITING)  # put back as planned: the run finishes
    env.pop("ARENA_BOT_EDIT")
    again = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    assert again.returncode == 0, again.stderr
    assert counts(db, tid) == (total, total, 0)
    assert set(codes(db, "selfedit")) == {"planned"}


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

    def tamper(progress: object) -> None:
        """After the first game: the copy's owner (the arena's user) changes it."""
        if getattr(progress, "played", 0) >= 1 and os.stat(copy / "bot.py").st_mode & 0o200 == 0:
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
