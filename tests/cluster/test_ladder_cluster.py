"""A ladder played on a Dask cluster (``arena ladder run --cluster``): each batch is played on
the workers as a tournament is, a folder version travels to them as its own registered bot,
and the skills are what the ``openskill`` package computes on the stored games."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.cluster.conftest import LocalCluster
from tests.ladder.conftest import cli, folder_bot, replay_openskill
from tests.security.conftest import needs_bwrap
from tournaments.store.facts import Store
from tournaments.store.ladders import LadderStore

pytest.importorskip("distributed")
pytestmark = pytest.mark.cluster


@needs_bwrap  # a ladder on a cluster sandboxes every bot (--sandbox required, the default)
def test_a_ladder_plays_its_batches_on_a_cluster(
    cluster: LocalCluster, tmp_path: Path, shared: Path
) -> None:
    db = str(tmp_path / "arena.db")
    cli("ladder", "create", "sk", "--game", "skull", "--table-sizes", "3", "--batch-games",
        "12", "--db", db)  # fmt: skip
    for bot in ("random", "first", "skull_odds"):
        cli("ladder", "submit", "sk", bot, "--db", db)
    cli("ladder", "submit", "sk", str(folder_bot(shared, "far_bot")), "--db", db)
    cli("ladder", "run", "sk", "--games", "20", "--cluster", cluster.address, "-q",
        "--db", db)  # fmt: skip
    conn = sqlite3.connect(db)
    try:
        assert (
            conn.execute("SELECT COUNT(*) FROM games WHERE status = 'pending'").fetchone()[0] == 0
        )
        assert (
            conn.execute("SELECT COUNT(*) FROM ladder_batches WHERE rated = 0").fetchone()[0] == 0
        )
    finally:
        conn.close()
    with Store.open(db) as store:
        lstore = LadderStore(store)
        ladder = lstore.ladder("sk")
        stored = {e: (s.mu, s.sigma, g) for e, (s, g) in lstore.skills(ladder.id).items()}
        far = next(e for e in lstore.entries(ladder.id) if e.bot == "far_bot")
    assert stored[far.id][2] > 0  # the folder version played on the workers
    assert sum(g for _, _, g in stored.values()) >= 20 * 3
    assert stored == replay_openskill(Path(db), "sk")
