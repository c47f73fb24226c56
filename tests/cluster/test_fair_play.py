"""On a Dask cluster the barrier between phases spans the workers: the pooling rogue
(``tests/rogues/pooler.py``, through byte-range locks on its own file: the workers share this
machine) names no more of its opponents' cards than chance, and the process records, kept for
every worker, pass the audit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cluster.conftest import LocalCluster
from tests.fairness import pooling
from tests.fairness.test_pooling import audit
from tests.tournaments.test_runner import cli
from tests.unchecked import add_unchecked
from tournaments.run.cluster import ACCEPT_UNSANDBOXED
from tournaments.store.facts import Store

pytest.importorskip("distributed")
pytestmark = pytest.mark.cluster


def test_the_rogue_pools_nothing_across_the_cluster(cluster: LocalCluster, tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    with Store.open(db) as store:
        add_unchecked(store, pooling.NAME, pooling.spec().argv, games=["skull-king"])
    created = cli(
        "tournament", "create", "--game", "skull-king", "--bots", f"{pooling.NAME},random,first",
        "--table-size", "3", "--rounds", "3", "--seed", "5", "--move-time", "2000", "--json",
        "--db", str(db),
    )  # fmt: skip
    tid = json.loads(created)["id"]
    out = cli(
        "tournament", "run", str(tid), "--cluster", cluster.address, "--jobs", "4",
        "--sandbox", "auto", ACCEPT_UNSANDBOXED, "--quiet", "--db", str(db),
    )  # fmt: skip
    assert "9/9 games played" in out
    logs = sorted({path.parent.parent for path in cluster.folder.rglob(f"{pooling.NAME}.p*.log")})
    with Store.open(db) as store:
        evidence = pooling.evidence(store, tid, *logs)
        assert evidence.biddings == 3 * 3 * 10
        assert evidence.z < pooling.BOUND, f"the rogue's processes pooled a deal: {evidence}"
        audit(store, tid)
        assert {r.host for r in store.processes.of(tid)} <= set(cluster_workers(cluster))


def cluster_workers(cluster: LocalCluster) -> list[str]:
    from distributed import Client

    with Client(cluster.address, timeout=30) as client:
        return list(client.scheduler_info()["workers"])
