"""Benchmark (issue 13): a tournament on a local 2-worker Dask cluster against ``--jobs 2``.

Plays the same plan twice in one run: locally with two worker processes (the baseline), then on
a Dask cluster of two ``dask worker`` processes (``--nthreads 1``, no nanny) started here on
localhost, with one game at a time per worker. Prints both games/s and their ratio (target: the
cluster reaches at least 0.85 of the local rate), then the parent's per-game costs measured in
the cluster run: its CPU time per game (Dask client, recording, tallies) and the store's write
time per game, and from them a paper estimate for 100 workers: where the single writer becomes
the limit.

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
from pathlib import Path

from arena.sandbox import SandboxMode, private_paths, resolve
from arena.seeds import new_key
from tests.net import free_port
from tournaments.catalogue import Catalogue, bundled_bots, bundled_spec, plays
from tournaments.cluster import ClusterConfig
from tournaments.runner import run
from tournaments.schedule import TournamentSpec, plan
from tournaments.shipping import ship
from tournaments.store import Store

ROOT = Path(__file__).resolve().parents[1]


def entrants() -> list[str]:
    skull = [
        name
        for name, games in sorted(bundled_bots().items())
        if plays(games, "skull") and name not in ("random", "first")
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


def one_run(db: Path, tid: int, *, cluster: str | None) -> dict[str, float]:
    writes: list[float] = []
    with Store.open(db) as store:
        timed_store(store, writes)
        labels = store.tournament(tid).spec.entrant_bots()
        specs = {label: bundled_spec(bot) for label, bot in labels.items()}
        config = None
        box = None
        if cluster is not None:
            catalogue = Catalogue({})
            config = ClusterConfig(
                address=cluster,
                at_once=1,
                sandbox=SandboxMode.AUTO,
                bots={label: ship(catalogue, bot) for label, bot in labels.items()},
            )
        else:
            box = resolve(SandboxMode.AUTO, hide=private_paths(db, db.parent / "logs"))
        cpu = time.process_time()
        started = time.perf_counter()
        summary = run(store, tid, specs=specs, jobs=2, sandbox=box, cluster=config)
        wall = time.perf_counter() - started
        cpu = time.process_time() - cpu
    return {
        "games": summary.played,
        "wall": wall,
        "rate": summary.played / wall,
        "play_s": summary.play_ms / 1000,
        "cpu_per_game": cpu / max(1, summary.played),
        "write_per_game": sum(writes) / max(1, len(writes)),
        "procs": summary.processes_started,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=4, help="4 rounds = 240 games")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (a shared machine)")
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        local_db, cluster_db = base / "local" / "bench.db", base / "cluster" / "bench.db"
        local_db.parent.mkdir()
        cluster_db.parent.mkdir()
        tid = make_tournament(local_db, args.rounds)
        for suffix in ("", ".keys"):
            shutil.copy(str(local_db) + suffix, str(cluster_db) + suffix)
        local = one_run(local_db, tid, cluster=None)
        address, procs = start_cluster(base)
        try:
            remote = one_run(cluster_db, tid, cluster=address)
        finally:
            for proc in procs:
                proc.kill()
                proc.wait()
    ratio = remote["rate"] / local["rate"]
    print(f"{local['games']} games of 4-player skull among {', '.join(entrants())}")
    for name, got in (("local --jobs 2", local), ("cluster, 2 workers", remote)):
        print(
            f"  {name:22}  {got['rate']:7.2f} games/s  ({got['wall']:.1f} s; games' play time "
            f"{got['play_s']:.1f} s summed; {got['procs']} bot processes)"
        )
    verdict = "met" if ratio >= 0.85 else "NOT met"
    print(f"  cluster / local         {ratio:7.2f}   [target >= 0.85: {verdict}]")
    game_s = remote["play_s"] / max(1, remote["games"])
    parent = remote["cpu_per_game"]
    write = remote["write_per_game"]
    print("per game, measured in the cluster run:")
    print(f"  play time on a worker   {game_s * 1000:7.1f} ms")
    print(
        f"  parent CPU (all of it)  {parent * 1000:7.2f} ms  -> at most {1 / parent:7.0f} games/s"
    )
    print(f"  store write             {write * 1000:7.2f} ms  -> at most {1 / write:7.0f} games/s")
    print("paper estimate, 100 workers of one game at a time each:")
    for seconds in (game_s, 1.0, 10.0, 60.0):
        offered = 100 / seconds
        busy = offered * parent
        print(
            f"  games of {seconds:6.2f} s: {offered:8.1f} games/s offered, parent "
            f"{busy * 100:5.1f} % busy{'  <- the single writer is the limit' if busy >= 1 else ''}"
        )
    print(
        f"  the parent is the limit once 100 workers finish more than {1 / parent:.0f} games/s, "
        f"i.e. games shorter than {100 * parent:.2f} s each"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
