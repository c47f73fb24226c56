"""A folder bot's copy in the arena's store (``arena-bots/``), as root: each bot runs as a user of
its own from its own copy, which it can read; another bot's copy is hidden by the sandbox, and
unsandboxed the store cannot be listed. Real registrations, a real tournament, real bots."""

from __future__ import annotations

import os
import re
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from tests.security.conftest import needs_bwrap
from tournaments.catalogue.botcopies import BotCopies
from tournaments.store.facts import Store

needs_root = pytest.mark.skipif(
    os.geteuid() != 0, reason="bots run as users of their own only when the arena runs as root"
)

#: Reads its own secret, tries another bot's copy and the store, logs what it got, then plays.
PEEK = textwrap.dedent("""
    import os, random, sys
    from protocol.sdk import run_bot

    def attempt(action):
        try:
            return action()
        except OSError as exc:
            return type(exc).__name__

    found = {
        "own": attempt(lambda: open("secret.txt").read().strip()),
        "other": attempt(lambda: open(os.environ["ARENA_BOT_OTHER"]).read().strip()),
        "store": attempt(lambda: ",".join(os.listdir(os.environ["ARENA_BOT_STORE"])) or "-"),
        "write": attempt(lambda: open("new.txt", "w").write("x") and "ok"),
        "uid": os.getuid(),
    }
    print("peek:", " ".join(f"{k}={v}" for k, v in found.items()), file=sys.stderr, flush=True)
    run_bot(lambda view, legal: random.choice(legal), name="peek")
""")
PLAIN = "from protocol.sdk import run_bot\nrun_bot(lambda view, legal: legal[0], name='plain')\n"


def invoke(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def bot_folder(root: Path, name: str, code: str, secret: str) -> Path:
    folder = root / name
    folder.mkdir(mode=0o700)  # private to the arena's user: the copy is what bots read
    (folder / "bot.py").write_text(code)
    (folder / "secret.txt").write_text(secret)
    (folder / "bot.toml").write_text(
        f'name = "{name}"\ncommand = "python3 bot.py"\ngames = ["skull"]\n'
    )
    return folder


@needs_root
@pytest.mark.parametrize("mode", [pytest.param("required", marks=needs_bwrap), "off"])
def test_a_bot_reads_its_own_copy_and_not_the_others(
    shared: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    db = shared / "arena.db"
    peek = bot_folder(tmp_path, "peek", PEEK, "peek-secret")
    plain = bot_folder(tmp_path, "plain", PLAIN, "plain-secret")
    copies = BotCopies.beside(db)
    monkeypatch.setenv("ARENA_BOT_OTHER", "/nonexistent")  # the check runs before plain exists
    monkeypatch.setenv("ARENA_BOT_STORE", str(copies.root))
    for folder in (plain, peek):
        invoke("bot", "add", str(folder), "--sandbox", mode, "--db", str(db))
    with Store.open(db) as store:
        other = copies.path(store.get_bot("plain").digest or "")
    assert (other / "secret.txt").read_text() == "plain-secret"
    monkeypatch.setenv("ARENA_BOT_OTHER", str(other / "secret.txt"))
    for log in (shared / "arena-logs").rglob("*.log*"):
        log.unlink()
    invoke("tournament", "create", "--game", "skull", "--bots", "peek,plain,random",
           "--rounds", "1", "--db", str(db))  # fmt: skip
    invoke("tournament", "run", "1", "-q", "--sandbox", mode, "--db", str(db))
    text = "".join(p.read_text() for p in (shared / "arena-logs" / "peek").glob("*.log*"))
    lines = [
        dict(kv.split("=", 1) for kv in line.split()) for line in re.findall(r"peek: (.*)", text)
    ]
    assert lines, "the bot logged what it found"
    for found in lines:
        assert int(found["uid"]) != 0, "a user of its own"
        assert found["own"] == "peek-secret", "it reads its own copy"
        assert found["write"] in ("PermissionError", "OSError"), "its copy is read-only"
        if mode == "required":
            assert found["other"] == "FileNotFoundError", "the sandbox hides other copies"
            assert other.name not in found["store"].split(",")
        else:
            assert found["store"] == "PermissionError", "the store cannot be listed"
