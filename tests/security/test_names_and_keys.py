"""Names a bot author chooses, and files a bot folder holds, cannot be turned against others.

- a registered name is plain text: no control characters (terminal escapes), no look-alikes
  of another bot's log folder, no path separators;
- no entrant's name can make its process key another entrant's: one process never plays two
  seats (it would see both hands), and the pool refuses to seat one process twice;
- a bot folder's FIFO or a link to an endless device cannot hang or exhaust ``arena bot add``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.errors import BotStartError
from arena.procs.botproc import BotSpec
from arena.procs.pool import BotPool
from tests.arena.conftest import bundled
from tournaments.catalogue.oldversions import folder_version
from tournaments.errors import TournamentError
from tournaments.run.playing import process_key
from tournaments.store.facts import Store

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "name",
    [
        "x\x1b]0;PWNED\x07",  # a terminal title escape
        "victim bot",  # a look-alike of victim_bot's log folder
        "victim/bot",
        "../up",
        ".hidden",
        "a" * 65,
        "",
        "naïve\u200b",
    ],
)
def test_a_bot_name_is_plain_text(tmp_path: Path, name: str) -> None:
    with Store.open(tmp_path / "a.db") as store:
        with pytest.raises(TournamentError, match="bad bot name"):
            store.add_bot(name, "python bot.py")
        assert store.list_bots() == []


def test_plain_names_still_register(tmp_path: Path) -> None:
    with Store.open(tmp_path / "a.db") as store:
        for name in ("victim_bot", "v2.1-final", "A"):
            assert store.add_bot(name, "python bot.py").name == name


def test_a_manifest_name_with_an_escape_is_refused_before_anything_runs(tmp_path: Path) -> None:
    folder = tmp_path / "esc"
    folder.mkdir()
    (folder / "bot.toml").write_text(
        'name = "x\\u001b[31mRED"\ncommand = "python -m bots.random"\ngames = ["skull"]\n'
    )
    done = subprocess.run(
        [sys.executable, "-m", "arena", "bot", "add", str(folder), "--db", str(tmp_path / "a.db")],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert done.returncode != 0 and "bad bot name" in done.stderr
    assert "\x1b" not in done.stdout + done.stderr
    assert "Traceback" not in done.stderr


def test_no_entrant_name_takes_another_entrants_process_key() -> None:
    local = BotSpec(name="a", argv=("python", "a.py"))
    remote = BotSpec(name="a.p1", argv=(), remote=True)
    keys = {process_key("a", r, local) for r in range(8)}
    assert process_key("a.p1", 0, remote) not in keys
    assert process_key("a.p1", 2, local) not in keys
    assert process_key("a.p1", 0, local) not in keys
    assert len(keys) == 8


def test_the_pool_never_seats_one_process_twice(pool: BotPool) -> None:
    with pytest.raises(BotStartError, match="two seats"):
        pool.get([("same", bundled("random")), ("same", bundled("random"))])
    assert pool.procs == {}


@pytest.mark.timeout(60)
def test_special_files_in_a_bot_folder_are_not_read(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text("print('hi')\n")
    before = folder_version(tmp_path)
    os.mkfifo(tmp_path / "pipe")  # opening it would block for ever
    os.symlink("/dev/zero", tmp_path / "zero")  # reading it would never end
    after = folder_version(tmp_path)
    assert after != before  # the entries count, by kind and link target
    assert folder_version(tmp_path) == after
