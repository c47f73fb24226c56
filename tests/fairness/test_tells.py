"""Tells that need not be there: what a bot process can see that says which phase, run or
database it plays in, or which of its games is which. None names a card; with a channel that
outlives a process each would help match one process's games to another's.

- a seat the same through a phase (each phase one rotation): each deal of a batch plays
  another rotation in a phase (``tournaments.run.phases``), so a process's seats vary;
- the same order of deals in every phase (the i-th game of every phase the same deal): each
  phase's games are played in an order drawn per run;
- the database's folder and the copy's digest in a folder bot's working folder, command line
  and mounts, and a per-run folder in its hub socket's address: the sandbox shows its own
  folder at ``/bot`` and its socket at ``/run/arena``, from memory-backed views whose names
  come from their content;
- as root, a uid that is a fixed offset plus the host pid (a count of the machine's process
  starts): the offset is mixed with a secret of the machine (``arena.procs.identity``).
"""

from __future__ import annotations

import os
import shutil
import sys
from collections import defaultdict
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.errors import SandboxError
from arena.games import get_game
from arena.keys.seeds import bot_seeds
from arena.procs import identity
from arena.procs import sandbox as sandboxing
from arena.procs.botproc import BotSpec
from arena.procs.limits import Limits
from arena.procs.logs import bot_logs, log_texts
from tests.fairness import with_rogue
from tests.unchecked import add_folder_unchecked
from tournaments.plans.schedule import TournamentSpec
from tournaments.run.playing import RunConfig
from tournaments.run.runner import run
from tournaments.store.facts import Store

ROGUES = Path(__file__).resolve().parent.parent / "rogues"
DEALS = 6


def lines(log_dir: Path, name: str, prefix: str) -> list[list[str]]:
    """The words after the stamp of the lines of ``name``'s logs that start with ``prefix``."""
    return [
        line.split()
        for path in bot_logs(log_dir, name)
        for line in log_texts(path)
        if line.startswith(prefix)
    ]


def test_a_process_sees_no_rotation_in_its_seats_nor_a_phase_in_its_order(
    tmp_path: Path,
) -> None:
    db, log_dir = tmp_path / "arena.db", tmp_path / "arena-logs"
    spec = TournamentSpec(
        game="skull", bots=("memo", "random", "first"), table_size=3, repetitions=DEALS, seed=3
    )
    store, tid, specs = with_rogue(
        db, spec, BotSpec(name="memo", argv=(sys.executable, str(ROGUES / "memo.py")))
    )
    config = RunConfig(
        game=get_game("skull"),
        options=spec.options,
        bots=specs,
        limits=Limits(move_ms=spec.move_ms),
        at_once=DEALS,
        log_dir=log_dir,
    )
    summary = run(store, tid, config)
    assert summary.failed == () and summary.phases == 3
    with store:
        key = store.tournament_key(tid)
        deals = {
            store.game(game_id).planned.deal_seed
            for (game_id,) in store.db.execute(
                "SELECT id FROM games WHERE tournament_id = ?", (tid,)
            )
        }
    deal_of = {  # (bot seed, seat) -> deal: a bot knows its game by an opaque id only
        (seed, seat): deal for deal in deals for seat, seed in enumerate(bot_seeds(key, deal, 3))
    }
    seen: dict[str, list[tuple[int, int]]] = defaultdict(list)  # process -> (deal, seat)
    for words in lines(log_dir, "memo", "memo "):
        process, seed, seat = words[1], int(words[2]), int(words[3])
        seen[process].append((deal_of[seed, seat], seat))
    assert len(deals) == DEALS and len(seen) == 3, "one process of the rogue a phase"
    for games in seen.values():
        assert sorted(deal for deal, _ in games) == sorted(deals), "each deal once"
        assert len({seat for _, seat in games}) == 3, f"its seat tells its phase: {games}"
    orders = {tuple(deal for deal, _ in games) for games in seen.values()}
    assert len(orders) > 1, f"every phase plays its deals in one order: {orders}"


@pytest.fixture
def tells_bot(tmp_path: Path) -> Path:
    folder = tmp_path / "tells"
    folder.mkdir()
    for name in ("tells.py", "_wire.py"):
        shutil.copy(ROGUES / name, folder / name)
    for path in (tmp_path, folder, *folder.iterdir()):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return folder


def test_a_folder_bot_sees_no_database_copy_or_run_in_its_surroundings(
    tmp_path: Path, tells_bot: Path
) -> None:
    try:
        sandboxing.resolve("required")
    except SandboxError as exc:
        pytest.skip(str(exc))
    db = tmp_path / "data" / "arena.db"
    db.parent.mkdir()
    with Store.open(db) as store:
        info = add_folder_unchecked(store, "tells", tells_bot, f"{sys.executable} tells.py")
    digest = info.digest or ""
    for args in (
        [
            "tournament",
            "create",
            "--game",
            "skull",
            "--bots",
            "tells,random,first",
            "--rounds",
            "1",
        ],
        ["tournament", "run", "1", "-q", "--sandbox", "required"],
    ):
        more = ["--rounds", "1"] if "create" in args else []
        result = CliRunner().invoke(main, [*args, *more, "--db", str(db)])
        assert result.exit_code == 0, result.output
    log_dir = db.parent / "arena-logs"
    told = [words[1:] for words in lines(log_dir, "tells", "tell-")]
    assert told, "the bot logged what it saw"
    for words in lines(log_dir, "tells", "tell-"):
        text = " ".join(words)
        assert str(db.parent) not in text and digest[:12] not in text, text
    cwds = {words[1] for words in lines(log_dir, "tells", "tell-cwd")}
    assert cwds == {sandboxing.OWN}
    for words in lines(log_dir, "tells", "tell-endpoint"):
        assert words[1] == f"ipc://{sandboxing.DOOR}/bot.sock", "no per-run folder in it"
    if identity.separate_users():
        with Store.open(db) as store:
            pids = {record.pid for record in store.processes.of(1) if record.pid}
        assert pids
        for words in lines(log_dir, "tells", "tell-uid"):
            assert int(words[1]) - identity.USER_BASE not in pids, "its uid tells its pid"
            assert int(words[1]) > identity.USER_BASE, "a user of its own"


def test_the_uid_of_a_bot_is_its_pid_mixed_with_a_secret_of_the_machine() -> None:
    if not identity.separate_users():
        pytest.skip("bots run as users of their own only when the arena runs as root")
    uids = {identity.uid_of(pid) for pid in range(1, 5000)}
    assert len(uids) == 4999, "one uid per pid"
    assert all(identity.USER_BASE < uid < identity.USER_BASE + (1 << 22) for uid in uids)
    assert sum(identity.uid_of(pid) == identity.USER_BASE + pid for pid in range(1, 5000)) < 50
    assert os.stat(identity.MASK_FILE).st_mode & 0o077 == 0, "the secret is root's alone"
