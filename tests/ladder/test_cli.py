"""``arena ladder`` on the command line: every mistake is one clear line and a non-zero exit;
tokens are printed once and kept only as hashes in the key file."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from click.testing import CliRunner

from arena.cli import main
from tests.ladder.conftest import cli


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.output


def test_create_show_and_mistakes(tmp_path: Path) -> None:
    db = str(tmp_path / "arena.db")
    assert "no ladders yet" in cli("ladder", "show", "--db", db)
    out = cli("ladder", "create", "skk", "--game", "skull-king", "--table-sizes", "3-5", "--db", db)
    assert "created ladder skk: skull-king, tables of 3-5" in out
    data = json.loads(cli("ladder", "show", "skk", "--json", "--db", db))
    assert data["games"] == 0 and data["lines"] == [] and data["ladder"]["table_sizes"] == "3-5"
    assert "no bot has entered yet" in cli("ladder", "show", "skk", "--db", db)

    for args, code, text in [
        (("create", "skk", "--game", "skull-king"), 1, "a ladder named 'skk' exists already"),
        (("create", "x", "--game", "skull", "--table-sizes", "2-4"), 2, "takes 3-6 players"),
        (("create", "x", "--game", "skull", "--table-sizes", "five"), 2, "N or MIN-MAX"),
        (("create", "bad name", "--game", "skull"), 2, "bad ladder name"),
        (("create", "x", "--game", "chess"), 1, "chess"),
        (("show", "nope"), 1, "no ladder named 'nope'"),
        (("submit", "skk", "no_such_bot"), 1, "no bot named 'no_such_bot'"),
        (("submit", "skk", "skull_odds"), 2, "does not play skull-king"),
        (("submit", "skk", "random", "--participant", "<b>"), 2, "bad participant name"),
        (("run", "nope", "--games", "1"), 1, "no ladder named 'nope'"),
    ]:
        code_got, output = run("ladder", *args, "--db", db)
        assert code_got == code, (args, output)
        assert text in output, (args, output)
        assert "Traceback" not in output

    cli("ladder", "submit", "skk", "random", "--db", db)
    code, output = run("ladder", "submit", "skk", "random", "--db", db)
    assert code == 0 and "is in play already for random: the same code, nothing changed" in output
    board = json.loads(cli("ladder", "show", "skk", "--json", "--db", db))
    assert [line["bot"] for line in board["lines"]] == ["random"]
    assert board["lines"][0]["sigma"] == round(25 / 3, 4)


def test_a_ladder_with_too_few_to_meet_stops_with_a_warning(tmp_path: Path) -> None:
    db = str(tmp_path / "arena.db")
    cli("ladder", "create", "sk", "--game", "skull", "--db", db)
    cli("ladder", "submit", "sk", "random", "--participant", "ann", "--db", db)
    cli("ladder", "submit", "sk", "first", "--participant", "ann", "--db", db)
    code, output = run("ladder", "run", "sk", "--games", "1", "--db", db)
    assert code == 0 and "too few versions can meet" in output


def test_invite_prints_a_token_once_and_keeps_its_hash_only(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    token = cli("ladder", "invite", "alice", "--db", str(db)).strip().splitlines()[-1]
    assert len(token) >= 40
    keys = (tmp_path / "arena.db.keys").read_text()
    assert token not in keys and hashlib.sha256(token.encode()).hexdigest() in keys
    assert token.encode() not in db.read_bytes()
    second = cli("ladder", "invite", "alice", "--db", str(db)).strip().splitlines()[-1]
    keys = (tmp_path / "arena.db.keys").read_text()
    assert hashlib.sha256(token.encode()).hexdigest() not in keys  # the old one is replaced
    assert hashlib.sha256(second.encode()).hexdigest() in keys
    assert "revoked alice's token" in cli("ladder", "invite", "alice", "--revoke", "--db", str(db))
    assert (
        hashlib.sha256(second.encode()).hexdigest() not in (tmp_path / "arena.db.keys").read_text()
    )
    code, output = run("ladder", "submit", "sk", str(tmp_path), "--to", "http://127.0.0.1:9")
    assert code == 2 and "--token" in output
