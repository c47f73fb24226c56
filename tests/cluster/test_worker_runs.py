"""A worker's side of a cluster run, in this process (``tournaments.run.cluster_worker``): a run
whose arena went quiet is closed with its bots, and the progress bar counts the workers."""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("distributed")

from arena.cli.progress import ProgressBar  # noqa: E402
from arena.games import get_game  # noqa: E402
from arena.procs.limits import Limits  # noqa: E402
from arena.procs.sandbox import SandboxMode  # noqa: E402
from tournaments.catalogue.lookup import Catalogue  # noqa: E402
from tournaments.catalogue.shipping import ship  # noqa: E402
from tournaments.errors import ClusterError  # noqa: E402
from tournaments.plans.schedule import PlannedGame  # noqa: E402
from tournaments.run import cluster_worker  # noqa: E402
from tournaments.run.playing import RunConfig  # noqa: E402
from tournaments.run.sink import Progress  # noqa: E402


def test_a_run_the_arena_stopped_renewing_is_closed_with_its_bots(tmp_path: Path) -> None:
    seating = ("a", "b", "c")
    config = cluster_worker.ClusterRun(
        run_id="quiet-arena",
        config=RunConfig(
            game=get_game("skull"), options={}, bots={}, limits=Limits(move_ms=2000), at_once=1
        ),
        bots={label: ship(Catalogue({}), "random") for label in seating},
        sandbox=SandboxMode.OFF,
    )
    plugin = cluster_worker.RunPlugin(config)
    plugin.setup(SimpleNamespace(local_directory=str(tmp_path), periodic_callbacks={}))
    try:
        run = cluster_worker._open(config.run_id)
        planned = PlannedGame(
            index=0, repetition=0, table=0, rotation=0, deal_seed=5, seating=seating,
            seat_seeds=(1, 2, 3),
        )  # fmt: skip
        future = run.submit(0, seating, 1, planned)
        assert future is not None and future.result(60).record is not None
        assert run.submit(0, seating, 1, planned) is None  # a game once per run and worker
        bots = [proc.popen for proc in run.runner.session.pool.procs.values()]
        assert bots and all(popen.poll() is None for popen in bots)
        assert cluster_worker.reap(time.monotonic()) == []  # renewed just now
        later = time.monotonic() + cluster_worker.LEASE_S + 1
        assert cluster_worker.reap(later) == [config.run_id]
        for popen in bots:
            popen.wait(10)  # killed with the run
        with pytest.raises(ClusterError, match="not open"):
            cluster_worker._open(config.run_id)
    finally:
        cluster_worker.close_run(config.run_id)


def test_the_progress_bar_counts_the_cluster_workers() -> None:
    bar = ProgressBar(quiet=True)
    local = Progress(done=1, total=4, played=1, elapsed_s=1.0, leader=None)
    assert "workers" not in bar.render(local)
    cluster = Progress(done=1, total=4, played=1, elapsed_s=1.0, leader="x", workers=3)
    assert "workers: 3" in bar.render(cluster)
