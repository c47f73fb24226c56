"""Shared set-up of the ladder tests: folder bots written on the fly, the command line, and an
independent OpenSkill replay of a ladder's stored games."""

from __future__ import annotations

import json
import math
import os
import shlex
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path

from click.testing import CliRunner

from arena.cli import main
from tests.web.conftest import browser, shots  # noqa: F401 - the browser tests' fixtures
from tournaments.catalogue.commandfiles import command_version, record
from tournaments.ladder import service
from tournaments.store.facts import Store
from tournaments.store.ladder_values import LadderSettings

RANDOM_BOT = """
import random
from protocol.sdk import run_bot
run_bot(lambda view, legal: random.choice(legal), name={name!r})
"""
#: Passes the entry check's protocol checks but plays an action it was not offered.
ILLEGAL_BOT = """
from protocol.sdk import run_bot
run_bot(lambda view, legal: "not-an-action", name={name!r})
"""


def folder_bot(
    parent: Path, name: str, *, source: str = RANDOM_BOT, games: str = "skull", extra: str = ""
) -> Path:
    """A folder bot ``name`` (``bot.toml`` and ``bot.py``), readable by bot users."""
    folder = parent / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.py").write_text(source.format(name=name) + extra)
    (folder / "bot.toml").write_text(
        f'name = "{name}"\ncommand = "{sys.executable} bot.py"\ngames = ["{games}"]\n'
    )
    for path in (parent, folder, folder / "bot.py", folder / "bot.toml"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return folder


def register_unchecked(
    store: Store, name: str, argv: Sequence[str], games: Sequence[str] = ("skull",)
) -> None:
    """Register a command bot without its entry check, as ``arena bot add`` would record it
    (it stands for a bot that passed its check and broke later, or for many bots at once)."""
    text = shlex.join(argv)
    files = record(argv, os.getcwd())
    store.add_bot(name, text, version=command_version(text, files), games=list(games), files=files)


def make_ladder(
    db: Path,
    sizes: str = "3",
    bots: tuple[str, ...] = (),
    *,
    move_ms: int = 1000,
    **settings: int,
) -> None:
    """Ladder ``sk`` of Skull at tables of ``sizes``, ``move_ms`` a move, with ``settings``
    (LadderSettings), and ``bots`` entered, each its own participant."""
    with Store.open(db) as store:
        service.create_ladder(
            store,
            name="sk",
            game_name="skull",
            table_sizes=sizes,
            options={},
            move_ms=move_ms,
            settings=LadderSettings(**settings),
        )
        for bot in bots:
            service.submit(store, "sk", bot)


def cli(*args: str, ok: bool = True) -> str:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    if ok:
        assert result.exit_code == 0, result.output
    return result.output


def replay_openskill(db: Path, ladder: str) -> dict[int, tuple[float, float, int]]:
    """Each entry's (mu, sigma, games) when the ``openskill`` package itself is fed the
    ladder's stored games of complete batches, in game-id order, each version starting from
    its predecessor's mu with sigma widened as docs/ladder.md says: computed here without
    the arena's rating code."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    conn = sqlite3.connect(db)
    try:
        lid = conn.execute("SELECT id FROM ladders WHERE name = ?", (ladder,)).fetchone()[0]
        previous = dict(
            conn.execute("SELECT id, previous_id FROM ladder_entries WHERE ladder_id = ?", (lid,))
        )
        seats = {
            (tid, label): entry
            for tid, label, entry in conn.execute(
                "SELECT tournament_id, label, entry_id FROM ladder_seats"
            )
        }
        complete = [
            tid
            for (tid,) in conn.execute(
                "SELECT b.tournament_id FROM ladder_batches b WHERE b.ladder_id = ? AND NOT "
                "EXISTS (SELECT 1 FROM games g WHERE g.tournament_id = b.tournament_id AND "
                "g.status = 'pending') ORDER BY b.number",
                (lid,),
            )
        ]
        rows = conn.execute(
            "SELECT tournament_id, seating, outcome FROM games WHERE status = 'done' "
            f"AND tournament_id IN ({','.join('?' * len(complete))}) ORDER BY id",
            complete,
        ).fetchall()
    finally:
        conn.close()
    state: dict[int, list] = {}

    def start(entry: int) -> list:
        if entry in state:
            return state[entry]
        before = previous.get(entry)
        if before is None:
            return [25.0, 25.0 / 3, 0]
        mu, sigma, _ = start(before)
        return [mu, min(25.0 / 3, math.hypot(sigma, 25.0 / 6)), 0]  # sqrt(s² + (25/6)²)

    for tid, seating, outcome in rows:
        entries = [seats[tid, label] for label in json.loads(seating)]
        places = json.loads(outcome)["places"]
        now = [start(e) for e in entries]
        teams = [[model.rating(mu=s[0], sigma=s[1])] for s in now]
        after = model.rate(teams, ranks=[float(p) for p in places])
        for entry, s, team in zip(entries, now, after):
            state[entry] = [team[0].mu, team[0].sigma, s[2] + 1]
    return {entry: tuple(value) for entry, value in state.items()}
