"""Bots started from a command line are named by what identifies them, not by the interpreter."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from arena.botproc import resolve_spec

ROGUES = Path(__file__).resolve().parents[1] / "rogues"


@pytest.mark.parametrize("command, name", [
    (f"{sys.executable} {ROGUES / 'snoop.py'}", "snoop.py"),
    (f"{sys.executable} -u {ROGUES}/", "rogues"),
    (f"{sys.executable} -m bots.random", "bots.random"),
    ("./mybot", "mybot"),
    ("java -jar bot.jar --fast", "bot.jar"),
])
def test_command_bots_are_named_by_their_script_folder_or_module(command: str,
                                                                 name: str) -> None:
    assert resolve_spec(command).name == name
