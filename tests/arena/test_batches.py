"""Several turns per message (issue 34): real processes, one hub, a bot that takes batches.

A process whose hello says ``batch: true`` gets what the referee holds for it in one ``batch``
and may answer a batch's turns in one. Each entry of its answer is judged on its own: a
missing, duplicate, unknown, late or malformed entry is a fault of its own game only (the
victim: its first game), never of the other games of the batch, nor of the other bots; a bot
that does not batch sees every message alone, and may sit at a table with batching bots.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from arena.procs.botproc import BotSpec
from arena.procs.limits import Limits
from arena.procs.logs import bot_logs, log_texts
from arena.referee import driver
from arena.referee.record import FaultKind, Played
from arena.referee.session import Session
from tests.arena.conftest import ROGUES, bundled
from tests.arena.test_many_games import tables

LIMITS = Limits(move_ms=3000, startup_ms=10_000)
OTHERS = [("r1", bundled("random")), ("r2", bundled("random")), ("r3", bundled("random"))]


def batcher(mode: str) -> BotSpec:
    return BotSpec(name="batcher", argv=(sys.executable, str(ROGUES / "batcher.py"), mode))


def unbatched(name: str) -> BotSpec:
    """A bundled SDK bot told not to batch (``ARENA_BOT_BATCH=0``)."""
    spec = bundled(name)
    return BotSpec(name=spec.name, argv=("/usr/bin/env", "ARENA_BOT_BATCH=0", *spec.argv))


def play(tmp_path: Path, entries: list, count: int, at_once: int) -> tuple[list[Played], dict]:
    """The games played, and each process's hello as the hub took it (label -> batch)."""
    with Session(LIMITS, log_dir=tmp_path) as session:
        played = list(driver.play_many(tables(session, entries, count), at_once, LIMITS))
        batching = {peer.label: peer.batch for peer in session.hub.peers.values()}
    return played, batching


def batches(tmp_path: Path) -> list[int]:
    """The turns in each batch the rogue got."""
    return [
        int(line.split()[1])
        for path in bot_logs(tmp_path, "batcher")
        for line in log_texts(path)
        if line.startswith("batch ")
    ]


def test_sdk_bots_batch_by_default_and_play_the_games_they_play_unbatched(tmp_path: Path) -> None:
    entries = [("a", bundled("random")), ("b", bundled("first")), *OTHERS[:2]]
    alone, flags = play(tmp_path / "plain", [(k, unbatched(s.name)) for k, s in entries], 12, 8)
    assert set(flags.values()) == {False}
    together, flags = play(tmp_path / "batched", entries, 12, 8)
    assert set(flags.values()) == {True}
    assert [p.error for p in alone + together] == [None] * 24
    by_id = {p.game_id: p.record for p in together}
    for p in alone:
        assert by_id[p.game_id].joint_actions() == p.record.joint_actions()
        assert by_id[p.game_id].places == p.record.places
        assert p.record.faults == () and by_id[p.game_id].faults == ()


def test_a_mixed_table_of_batching_and_plain_bots_plays_cleanly(tmp_path: Path) -> None:
    entries = [("x", batcher("honest")), ("p", unbatched("random")), *OTHERS[:2]]
    played, flags = play(tmp_path, entries, 8, 4)
    assert flags == {"x": True, "p": False, "r1": True, "r2": True}
    assert [p.error for p in played] == [None] * 8
    assert all(p.record.faults == () for p in played)
    assert all(a.by.value == "bot" for p in played for a in p.record.actions)
    assert max(batches(tmp_path)) >= 2, "turns of several games came in one message"


@pytest.mark.parametrize(
    ("mode", "victim_faults"),
    [
        ("missing", [FaultKind.TIMEOUT]),
        ("duplicate", []),
        ("unknown", [FaultKind.WRONG_ID]),
        ("late", [FaultKind.TIMEOUT]),
        ("malformed", [FaultKind.MALFORMED]),
        ("unnamed", [FaultKind.MALFORMED]),
    ],
)
def test_a_bad_entry_of_a_batch_is_a_fault_of_its_own_game_only(
    tmp_path: Path, mode: str, victim_faults: list[FaultKind]
) -> None:
    """The rogue misanswers the first turn of its first game (game 1) inside a batch that
    answers other games' turns too: game 1 records that one fault of the rogue's seat, every
    other game none, and every other seat played each of its moves itself."""
    played, _ = play(tmp_path, [("x", batcher(mode)), *OTHERS], 8, 4)
    assert [p.error for p in played] == [None] * 8
    faults = {p.game_id: [(f.seat, f.kind) for f in p.record.faults] for p in played}
    assert faults.pop(1) == [(0, kind) for kind in victim_faults]
    assert set(map(tuple, faults.values())) == {()}, "no other game of the batch is charged"
    for p in played:
        assert all(a.by.value == "bot" for a in p.record.actions if a.seat != 0)
    assert max(batches(tmp_path)) >= 2, "the rogue's turns came in batches"
