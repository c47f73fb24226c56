"""What a participant uploaded runs only in the sandbox, wherever it is entered.

The mark is on the bot version (``bot_versions.uploaded``), not on the ladder entry: entered by
name into another ladder, a tournament, ``arena play`` or ``arena bot check``, the uploaded code
runs sandboxed (``--sandbox auto`` becomes ``required``) or not at all (``--sandbox off`` is
refused, naming the bot); and a bot process of that code never starts without a sandbox, on any
path (``arena.procs.botproc.prepare``). Real uploads (``service.upload``: unpacked, checked in
bubblewrap), real tournaments and SQLite.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.errors import BotStartError
from arena.procs import sandbox
from arena.procs.botproc import BotSpec, prepare
from arena.procs.hub import Hub
from arena.procs.logs import bot_logs, log_texts
from arena.procs.sandbox import SandboxMode
from tests.ladder.conftest import RANDOM_BOT, folder_bot, make_ladder
from tests.ladder.test_uploads import tgz
from tournaments.catalogue.lookup import Catalogue
from tournaments.errors import UsageProblem
from tournaments.ladder import service
from tournaments.service import RunOptions, prepare_run
from tournaments.store.facts import Store

pytestmark = pytest.mark.skipif(
    sandbox.available() is None, reason="uploaded bots run only in bubblewrap, missing here"
)

#: Says in its log which pid it has: 1 or 2 in the sandbox's own pid namespace.
PID_BOT = 'import os\nprint("my-pid", os.getpid(), flush=True)\n' + RANDOM_BOT


def uploaded(tmp_path: Path) -> Path:
    """A database with ladder ``sk`` and alice's uploaded bot ``alices_bot`` in it."""
    db = tmp_path / "arena.db"
    make_ladder(db, bots=("random", "first"))
    with Store.open(db) as store:
        service.upload(
            store, "sk", "alice", tgz(folder_bot(tmp_path / "src", "alices_bot", source=PID_BOT))
        )
    return db


def run_cli(*args: str, db: Path | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args), env={"ARENA_DB": str(db)} if db else None)
    return result.exit_code, result.output


def pids(db: Path) -> list[int]:
    return [
        int(line.split()[1])
        for path in bot_logs(db.parent / "arena-logs", "alices_bot")
        for line in log_texts(path)
        if line.startswith("my-pid")
    ]


def test_a_tournament_of_uploaded_code_runs_it_sandboxed_or_not_at_all(tmp_path: Path) -> None:
    db = uploaded(tmp_path)
    code, out = run_cli(
        "tournament", "create", "--game", "skull", "--bots", "alices_bot,random,first",
        "--table-size", "3", "--db", str(db), "--json",
    )  # fmt: skip
    assert code == 0, out
    with Store.open(db) as store:
        (tid,) = [info.id for info in store.list_tournaments() if info.spec.kind.value != "ladder"]
    code, out = run_cli("tournament", "run", str(tid), "--sandbox", "off", "--db", str(db))
    assert code != 0 and "'alices_bot' was uploaded by a participant" in out, out
    assert "runs only in the sandbox" in out and "Traceback" not in out
    with Store.open(db) as store:
        assert store.tournament(tid).games_done == 0, "nothing ran unsandboxed"
    assert pids(db) == []
    code, out = run_cli("tournament", "run", str(tid), "--db", str(db))  # auto: sandboxed
    assert code == 0, out
    with Store.open(db) as store:
        assert store.tournament(tid).games_done == store.tournament(tid).games_total
    found = pids(db)
    assert found and all(pid <= 3 for pid in found), f"in the sandbox's pid namespace: {found}"


def test_uploaded_code_entered_by_name_elsewhere_keeps_its_mark(tmp_path: Path) -> None:
    db = uploaded(tmp_path)
    with Store.open(db) as store:
        service.create_ladder(
            store, name="other", game_name="skull", table_sizes="3", options={}, move_ms=1000
        )
        service.submit(store, "other", "alices_bot", participant="alice")  # by name, not uploaded
        for bot in ("random", "first"):
            service.submit(store, "other", bot)
        with pytest.raises(UsageProblem, match="'alices_bot' was uploaded by a participant"):
            service.run_ladder(store, "other", RunOptions(sandbox=SandboxMode.OFF), until_games=1)
        assert service.leaderboard(store, "other").games == 0
        catalogue = Catalogue.of(store)
        assert catalogue.find("alices_bot").spec.sandboxed_only
        assert not catalogue.find("random").spec.sandboxed_only
        batch = max(tid for (tid,) in store.db.execute("SELECT id FROM tournaments"))
        prepared = prepare_run(store, batch, RunOptions(sandbox=SandboxMode.AUTO))
        assert prepared.config.sandbox is not None, "auto becomes required"
    code, out = run_cli(
        "play", "skull", "--bot", "alices_bot", "--bot", "random", "--bot", "first",
        "--sandbox", "off", db=db,
    )  # fmt: skip
    assert code != 0 and "runs only in the sandbox" in out, out
    code, out = run_cli("bot", "check", "alices_bot", "--sandbox", "off", "--db", str(db))
    assert code != 0 and "runs only in the sandbox" in out, out
    assert pids(db) == []


def test_a_process_of_uploaded_code_never_starts_unsandboxed(tmp_path: Path) -> None:
    spec = BotSpec(name="up", argv=("python3", "-c", "pass"), sandboxed_only=True)
    hub = Hub()
    try:
        with pytest.raises(BotStartError, match="runs only in the sandbox"):
            prepare(spec, hub, "up", log_dir=tmp_path, sandbox=None)
    finally:
        hub.close()


def test_versions_uploaded_before_the_mark_are_marked_from_their_entries(tmp_path: Path) -> None:
    db = uploaded(tmp_path)
    conn = sqlite3.connect(db)
    with conn:
        for table in ("bots", "bot_versions"):
            conn.execute(f"ALTER TABLE {table} DROP COLUMN uploaded")  # as schema 14 left it
        for column in ("per_entrant", "round_count", "advance", "draw"):  # schema 16's
            conn.execute(f"ALTER TABLE tournaments DROP COLUMN {column}")
        conn.execute("PRAGMA user_version = 14")
    conn.close()
    with Store.open(db) as store:
        assert store.get_bot("alices_bot").uploaded
        assert [v.uploaded for v in store.bot_versions() if v.name == "alices_bot"] == [True]
