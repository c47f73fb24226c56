"""Text a bot chose is shown escaped: its output in fault details, in `arena play`, in
`arena bot logs` and in tables never carries a control character to the terminal."""

from __future__ import annotations

import sys

from click.testing import CliRunner

from arena.cli import main
from arena.text import printable
from tests.arena.conftest import ROGUES
from tournaments.reports import format_table

CONTROL = ("\x1b", "\x07", "\r", "\u202e")


def test_printable_escapes_controls_and_keeps_text() -> None:
    assert printable("a\x1b[2Jb\r\u202e") == "a\\x1b[2Jb\\x0d\\u202e"
    assert printable("line\nnext\ttab", keep_lines=True) == "line\nnext\ttab"
    assert printable("line\nnext") == "line\\x0anext"
    assert printable("skull_odds é 中") == "skull_odds é 中"


def test_a_crash_s_last_output_is_shown_escaped(tmp_path) -> None:
    db = str(tmp_path / "arena.db")
    result = CliRunner().invoke(
        main,
        [
            "play",
            "skull",
            "--bot",
            "random",
            "--bot",
            "random",
            "--bot",
            f"{sys.executable} {ROGUES / 'ansi.py'}",
            "--seed",
            "1",
        ],
        env={"ARENA_DB": db},
    )
    assert result.exit_code == 0, result.output
    assert "crash" in result.output and "\\x1b[2J" in result.output
    assert not any(char in result.output for char in CONTROL)
    logs = CliRunner().invoke(main, ["bot", "logs", "ansi.py", "--db", db])
    assert logs.exit_code == 0, logs.output  # the log is kept beside the database
    assert "\\x1b]0;pwned" in logs.output
    assert not any(char in logs.output for char in CONTROL)


def test_tables_escape_names() -> None:
    table = format_table(["bot"], [["evil\x1b[2J\u202e"]])
    assert "\x1b" not in table and "\\x1b[2J\\u202e" in table
