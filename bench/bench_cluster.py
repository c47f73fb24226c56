"""Benchmark (issue 13): a tournament on a local 2-worker Dask cluster against ``--jobs 2``.

Plays the same plan three times in one run: locally with two worker processes (the baseline),
then on a Dask cluster of two ``dask worker`` processes (``--nthreads 1``, no nanny) started
here on localhost, with one game at a time per worker: as the arena batches games, and with one
game per task (as it sends long games). Prints the games/s and the cluster's ratio to the local
rate (target: at least 0.85), then the costs per game measured on the cluster: the parent's CPU
time (Dask client, recording, tallies), the store's write time and the scheduler's CPU time,
and from them a paper estimate for 100 workers: where the single writer becomes the limit.

Run: python bench/bench_cluster.py [--rounds 4]   (needs `pip install 'arena[cluster]'`)
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent.parent))  # the tests package, for its helpers

from arena.games import get_game  # noqa: E402
from arena.keys.seeds import new_key  # noqa: E402
from arena.procs.limits import Limits  # noqa: E402
from arena.procs.sandbox import SandboxMode  # noqa: E402
from tests.net import free_port  # noqa: E402
from tournaments.catalogue.bot_sandbox import sandbox_for  # noqa: E402
from tournaments.catalogue.lookup import Catalogue, bundled_bots, bundled_spec, plays  # noqa: E402
from tournaments.catalogue.shipping import ship  # noqa: E402
from tournaments.plans.schedule import TournamentSpec, plan  # noqa: E402
from tournaments.run import cluster as cluster_module  # noqa: E402
from tournaments.run.cluster import MAX_TASK_GAMES, TASK_S, ClusterConfig  # noqa: E402
from tournaments.run.playing import RunConfig, auto_games_per_worker  # noqa: E402
from tournaments.run.runner import run  # noqa: E402
from tournaments.store.facts import Store  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def entrants() -> list[str]:
    skull = [
        name
        for name, games in sorted(bundled_bots().items())
        if plays(games, "skull") and name not in ("random", "first", "ismcts")  # no search bot
    ]
    return ([*skull, "first"] + ["random"] * 6)[:6]


def make_tournament(db: Path, rounds: int) -> int:
    spec = TournamentSpec(
        game="skull",
        options={},
        bots=tuple(entrants()),
        table_size=4,
        repetitions=rounds,
        seed=7,
        move_ms=2000,
    )
    key = new_key()
    labels = spec.entrant_bots()
    with Store.open(db) as store:
        return store.create_tournament(
            spec, plan(spec, key=key), {e: (b, "bench") for e, b in labels.items()}, key=key
        )


def start_cluster(folder: Path) -> tuple[str, list[subprocess.Popen]]:
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env = dict(os.environ, PYTHONPATH=path)
    dask = str(Path(sys.executable).with_name("dask"))
    address = f"tcp://127.0.0.1:{free_port()}"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "env": env}
    procs = [
        subprocess.Popen(
            [dask, "scheduler", "--host", "127.0.0.1", "--port", address.rsplit(":", 1)[1]]
            + ["--no-dashboard"],
            **quiet,
        )
    ]
    for n in range(2):
        procs.append(
            subprocess.Popen(
                [dask, "worker", address, "--nthreads", "1", "--no-nanny", "--no-dashboard"]
                + ["--host", "127.0.0.1", "--local-directory", str(folder / f"w{n}")],
                **quiet,
            )
        )
    from distributed import Client

    with Client(address, timeout=60) as client:
        client.wait_for_workers(2, timeout=60)
    return address, procs


def timed_store(store: Store, spent: list[float]) -> None:
    """Measure the store's write time per game in the run (``record_game`` wrapped)."""
    record = store.record_game

    def wrapped(*args, **kwargs):  # type: ignore[no-untyped-def]
        started = time.perf_counter()
        try:
            return record(*args, **kwargs)
        finally:
            spent.append(time.perf_counter() - started)

    store.record_game = wrapped  # type: ignore[method-assign]


def one_run(
    db: Path, tid: int, *, cluster: str | None, scheduler: int | None = None
) -> dict[str, float]:
    """One run of tournament ``tid``: locally (``cluster`` None) or on the cluster (whose
    scheduler's pid is ``scheduler``); its rate and the parent's and scheduler's costs."""
    import psutil  # comes with distributed

    writes: list[float] = []
    with Store.open(db) as store:
        timed_store(store, writes)
        labels = store.tournament(tid).spec.entrant_bots()
        specs = {label: bundled_spec(bot) for label, bot in labels.items()}
        move_ms = store.tournament(tid).spec.move_ms
        config = RunConfig(
            game=get_game("skull"),
            options={},
            bots=specs,
            limits=Limits(move_ms=move_ms),
            at_once=auto_games_per_worker(move_ms),
        )
        where = None
        if cluster is not None:
            catalogue = Catalogue({})
            where = ClusterConfig(
                address=cluster,
                sandbox=SandboxMode.AUTO,
                bots={label: ship(catalogue, bot) for label, bot in labels.items()},
                unsandboxed_accepted=True,  # its own workers, the bundled bots: as the local run
            )
        else:
            config = replace(
                config,
                sandbox=sandbox_for(SandboxMode.AUTO, db),
                log_dir=db.parent / "arena-logs",
            )
        sched = psutil.Process(scheduler) if scheduler else None
        sched_cpu = sum(sched.cpu_times()[:2]) if sched else 0.0
        cpu = time.process_time()
        started = time.perf_counter()
        summary = run(store, tid, config, jobs=2, cluster=where)
        wall = time.perf_counter() - started
        cpu = time.process_time() - cpu
        sched_cpu = sum(sched.cpu_times()[:2]) - sched_cpu if sched else 0.0
    return {
        "games": summary.played,
        "wall": wall,
        "rate": summary.played / wall,
        "play_s": summary.play_ms / 1000,
        "cpu_per_game": cpu / max(1, summary.played),
        "sched_per_game": sched_cpu / max(1, summary.played),
        "write_per_game": sum(writes) / max(1, len(writes)),
        "procs": summary.processes_started,
    }


def fresh_copy(source: Path, target: Path) -> Path:
    target.parent.mkdir()
    for suffix in ("", ".keys"):
        shutil.copy(str(source) + suffix, str(target) + suffix)
    return target


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=4, help="4 rounds = 240 games")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (a shared machine)")
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        local_db = base / "local" / "bench.db"
        local_db.parent.mkdir()
        tid = make_tournament(local_db, args.rounds)
        batched_db = fresh_copy(local_db, base / "cluster" / "bench.db")
        single_db = fresh_copy(local_db, base / "single" / "bench.db")
        local = one_run(local_db, tid, cluster=None)
        address, procs = start_cluster(base)
        try:
            remote = one_run(batched_db, tid, cluster=address, scheduler=procs[0].pid)
            cluster_module.MAX_TASK_GAMES = 1  # as with long games: one game per task
            single = one_run(single_db, tid, cluster=address, scheduler=procs[0].pid)
        finally:
            for proc in procs:
                proc.kill()
                proc.wait()
    report(local, remote, single)
    return 0


def per_game(batched: dict, single: dict, key: str, batch: int) -> float:
    """A cost per game with ``batch`` games per task: the batched run's cost, plus the rest of
    a task's cost (the one-game run's excess) shared by the batch."""
    return batched[key] + max(0.0, single[key] - batched[key]) / batch


def report(local: dict, remote: dict, single: dict) -> None:
    ratio = remote["rate"] / local["rate"]
    print(f"{local['games']} games of 4-player skull among {', '.join(entrants())}")
    for name, got in (
        ("local --jobs 2", local),
        ("cluster, 2 workers", remote),
        ("  one game per task", single),
    ):
        print(
            f"  {name:22}  {got['rate']:7.2f} games/s  ({got['wall']:.1f} s; games' play time "
            f"{got['play_s']:.1f} s summed; {got['procs']} bot processes)"
        )
    verdict = "met" if ratio >= 0.85 else "NOT met"
    print(f"  cluster / local         {ratio:7.2f}   [target >= 0.85: {verdict}]")
    game_s = remote["play_s"] / max(1, remote["games"])
    print("per game, measured on the cluster (batched | one game per task):")
    print(f"  play time on a worker   {game_s * 1000:7.1f} ms")
    for name, key in (
        ("parent CPU (all of it)", "cpu_per_game"),
        ("  of which store writes", "write_per_game"),
        ("scheduler CPU", "sched_per_game"),
    ):
        print(f"  {name:22}  {remote[key] * 1000:7.2f} ms | {single[key] * 1000:7.2f} ms")
    print(
        "paper estimate, 100 workers, one game at a time each (batches as the arena makes "
        "them; a task's cost shared by its games):"
    )
    for seconds in (game_s, 0.25, 1.0, 10.0, 60.0):
        offered = 100 / seconds
        batch = max(1, min(MAX_TASK_GAMES, int(TASK_S / seconds)))
        parent = offered * per_game(remote, single, "cpu_per_game", batch)
        scheduler = offered * per_game(remote, single, "sched_per_game", batch)
        limit = "  <- the single writer limits" if parent >= 1 else ""
        limit += "  <- the scheduler limits" if scheduler >= 1 else ""
        print(
            f"  games of {seconds:6.2f} s: {offered:8.1f} games/s offered ({batch:2} per task), "
            f"parent {parent * 100:5.1f} % busy, scheduler {scheduler * 100:5.1f} %{limit}"
        )
    most = 1 / single["cpu_per_game"]
    print(
        f"  one game per task, the parent records at most {most:.0f} games/s: 100 workers reach "
        f"that with games of {100 / most:.2f} s; shorter games go in batches "
        f"(at most {1 / remote['cpu_per_game']:.0f} games/s)"
    )


if __name__ == "__main__":
    sys.exit(main())
