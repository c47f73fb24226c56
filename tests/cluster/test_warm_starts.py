"""Warm starts on a real Dask cluster's worker (``tournaments.run.cluster_worker``): while a phase
plays, the worker makes the next phase's first processes of the bundled bots ready
(``arena.procs.warm``); they wait through the barrier, are the processes that play the next
phase, and are ended unused where that phase gives the worker no game, and when the run
closes. The game tasks and the end of each phase are sent as the arena sends them."""

from __future__ import annotations

import secrets

import pytest

from tests.cluster.conftest import LocalCluster, still_running, warm_processes
from tests.fairness.test_warm_start import needs_own_user

pytest.importorskip("distributed")
pytestmark = pytest.mark.cluster

SEATING = ("a", "b", "c")
#: Seconds a game task may take on a loaded machine.
TASK_S = 120


@needs_own_user
def test_a_worker_readies_the_next_phase_and_ends_what_it_does_not_use(
    cluster: LocalCluster,
) -> None:
    from distributed import Client

    from arena.games import get_game
    from arena.procs.limits import Limits
    from arena.procs.sandbox import SandboxMode
    from tournaments.catalogue.lookup import Catalogue
    from tournaments.catalogue.shipping import ship
    from tournaments.plans.schedule import PlannedGame
    from tournaments.run.cluster_worker import PLUGIN_PREFIX, ClusterRun, RunPlugin, end_phase
    from tournaments.run.cluster_worker import play_games as task
    from tournaments.run.playing import RunConfig

    run = ClusterRun(
        run_id=f"warm-{secrets.token_hex(4)}",
        config=RunConfig(
            game=get_game("skull"), options={}, bots={}, limits=Limits(move_ms=2000), at_once=1
        ),
        bots={label: ship(Catalogue({}), "random") for label in SEATING},
        sandbox=SandboxMode.OFF,
    )
    name = PLUGIN_PREFIX + run.run_id
    with Client(cluster.address, timeout=30) as client:
        worker = sorted(client.scheduler_info()["workers"])[0]

        def play(phase: int, upcoming: tuple[str, ...]) -> set[int]:
            """One game of ``phase`` on the worker; the pids of the processes that played."""
            planned = PlannedGame(
                index=phase, repetition=0, table=0, rotation=phase, deal_seed=5,
                seating=SEATING, seat_seeds=(1, 2, 3),
            )  # fmt: skip
            answer = client.submit(
                task, run.run_id, phase, SEATING, [(phase + 1, planned)], upcoming,
                workers=[worker], pure=False,
            ).result(TASK_S)  # fmt: skip
            assert answer.played[0].record is not None, answer.played[0].error
            return {record.pid for record in answer.records}

        def waiting() -> dict[str, tuple[int, str]]:
            return client.run(warm_processes, run.run_id, workers=[worker])[worker][1]

        def end(phase: int) -> set[int]:
            ended = client.run(end_phase, run.run_id, phase, workers=[worker])[worker]
            assert all(record.confirmed for record in ended)
            return {record.pid for record in ended}

        client.register_plugin(RunPlugin(run), name=name)
        try:
            first = play(0, upcoming=SEATING)
            ready = waiting()
            assert set(ready) == {f"{label}.p0" for label in SEATING}, "one for each entrant"
            assert all("-m arena.procs.warm bots.random" in cmd for _, cmd in ready.values())
            warm = {pid for pid, _ in ready.values()}
            assert len(first) == 3 and not warm & first
            assert end(0) == first, "the barrier ends the phase's processes..."
            assert waiting() == ready, "...and leaves the next phase's waiting"
            assert play(1, upcoming=SEATING) == warm, "the processes made ready play"
            unused = {pid for pid, _ in waiting().values()}
            assert len(unused) == 3 and not unused & warm
            assert end(1) == warm and waiting().keys() == ready.keys()
            assert end(2) == set(), "phase 2 gave this worker no game..."
            assert waiting() == {} and still_running(unused) == set(), "...so they went unused"
            last = play(3, upcoming=SEATING) | {pid for pid, _ in waiting().values()}
            assert len(last) == 6
        finally:
            client.unregister_worker_plugin(name)  # closes the run on the worker
        assert still_running(last) == set(), "the run's close ends the waiting ones too"
