"""A Swiss tournament on a real Dask cluster: each round played on the workers and the next
planned here, with the very rounds, deals and results of a local ``--jobs 2`` run of the same
plan."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cluster.conftest import LocalCluster
from tests.tournaments import create
from tests.tournaments.test_rounds_resume import plan_rows
from tests.tournaments.test_runner import cli, copy_database, results
from tournaments.run.cluster import ACCEPT_UNSANDBOXED as ACCEPT

pytest.importorskip("distributed")
pytestmark = pytest.mark.cluster


def test_a_swiss_tournament_on_a_cluster_plays_the_rounds_a_local_run_does(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    local, remote = tmp_path / "local.db", tmp_path / "cluster.db"
    tid = create(
        local, "random,first,random", "--copies", "3", "--table-size", "3", "--format",
        "swiss", "--rounds", "3", "--seed", "5", "--move-time", "20000",
    )[0]  # fmt: skip
    copy_database(local, remote)
    assert "27/27 games played" in cli(
        "tournament", "run", str(tid), "--jobs", "2", "--quiet", "--db", str(local)
    )
    out = cli(
        "tournament", "run", str(tid), "--cluster", cluster.address, "--sandbox", "auto",
        ACCEPT, "--quiet", "--db", str(remote),
    )  # fmt: skip
    assert "27/27 games played" in out and "standings after round 3" in out
    assert plan_rows(remote, tid) == plan_rows(local, tid)
    assert results(remote, tid) == results(local, tid)
