"""Remote bots cannot be kept from remembering a deal across rotations: create says so."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from arena.cli import main


def test_create_warns_that_remote_bots_see_every_rotation(tmp_path: Path) -> None:
    db = str(tmp_path / "arena.db")
    runner = CliRunner()
    added = runner.invoke(main, ["bot", "add", "far", "--remote", "--game", "skull", "--db", db])
    assert added.exit_code == 0, added.output
    made = runner.invoke(
        main, ["tournament", "create", "--game", "skull", "--bots", "far,random,first", "--db", db]
    )
    assert made.exit_code == 0, made.output
    assert "warning: remote bot(s) far play every seat rotation" in made.output
    local = runner.invoke(
        main,
        ["tournament", "create", "--game", "skull", "--bots", "random,first,random", "--db", db],
    )
    assert local.exit_code == 0 and "warning" not in local.output
