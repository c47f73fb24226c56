"""Benchmark: ``arena serve`` on a database of 100,000 games, and what its live view costs a
running tournament.

1. A tournament of 100,000 synthetic finished games is written (as ``bench_ratings`` does) and
   its ratings rebuilt (as a finished run leaves them); a small real tournament (real bots,
   real games that replay) is added beside it.
2. ``arena serve`` runs in its own process; each address is fetched over HTTP once ("first":
   the first request of the tournament page waits for the ratings the server computes when it
   starts) and then again (median of 7). Targets:
   tournament page and its API under 200 ms, a replay page under 100 ms. Baselines in the same
   run: a static file from the same server (the HTTP floor) and ``arena tournament show
   --json``'s data computed in process (what the CLI pays).
3. Live cost: a real tournament (bundled bots) is run alone and while a poller fetches its
   live endpoint every second (twice as often as the page does), twice each, in the order
   alone, polled, polled, alone (a load that drifts during the benchmark cancels out);
   reported are the throughputs and the CPU the polled server spent beyond an idle one, as a
   share of the run's CPU (target: under 2 %).

    python bench/bench_web.py [--games 100000] [--db PATH]
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_ratings import fill  # noqa: E402
from bench.bench_store import arguments  # noqa: E402
from tests.net import free_port  # noqa: E402
from tournaments import published  # noqa: E402
from tournaments.store import Store  # noqa: E402

ENV = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))


def arena(*args: str) -> str:
    return subprocess.run(
        [sys.executable, "-m", "arena", *args], env=ENV, check=True, capture_output=True, text=True
    ).stdout


def serve(db: str) -> tuple[subprocess.Popen, str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", "--db", db, "--port", str(port)],
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            httpx.get(url + "/static/arena.css")
            return proc, url
        except httpx.TransportError:
            time.sleep(0.05)
    raise RuntimeError("the server did not start")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed(client: httpx.Client, url: str) -> float:
    start = time.perf_counter()
    response = client.get(url)
    elapsed = time.perf_counter() - start
    if response.status_code != 200:
        raise RuntimeError(f"{url}: {response.status_code} {response.text[:200]}")
    return elapsed * 1000


def page_times(url: str, tid: int, game: int) -> None:
    addresses = [
        ("static file (HTTP floor, baseline)", "/static/arena.css"),
        ("tournament page", f"/tournaments/{tid}"),
        ("tournament API (= tournament show --json)", f"/api/tournaments/{tid}"),
        ("rankings API (with LOS)", f"/api/tournaments/{tid}/rankings"),
        ("games page 1000 (API)", f"/api/tournaments/{tid}/games?page=1000"),
        ("live endpoint", f"/api/tournaments/{tid}/live"),
        ("replay page", f"/games/{game}"),
        ("replay frames (referee)", f"/games/{game}/frames/referee.js"),
    ]
    with httpx.Client(base_url=url, timeout=120) as client:
        for label, path in addresses:
            cold = timed(client, path)
            warm = statistics.median(timed(client, path) for _ in range(7))
            print(f"  {label:44s} first {cold:8.1f} ms   then {warm:7.1f} ms", flush=True)


def one_run(folder: str, name: str, rounds: int, polled: bool) -> tuple[float, float, float]:
    """A real tournament run, with or without a poller of its live endpoint; returns
    (games/s, CPU s of the run, CPU s of the server)."""
    db = os.path.join(folder, f"live-{name}.db")
    tid = json.loads(
        arena(
            "tournament",
            "create",
            "--game",
            "skull",
            "--bots",
            "skull_odds,random,first",
            "--rounds",
            str(rounds),
            "--seed",
            "3",
            "--json",
            "--db",
            db,
        )
    )["id"]
    proc, url = serve(db)
    stop = threading.Event()

    def poll() -> None:
        with httpx.Client(base_url=url) as client:
            while not stop.wait(1.0):
                client.get(f"/api/tournaments/{tid}/live")

    poller = threading.Thread(target=poll, daemon=True)
    try:
        server_cpu0 = cpu_seconds(proc.pid)
        if polled:
            poller.start()
        before = os.times()
        start = time.perf_counter()
        arena("tournament", "run", str(tid), "-q", "--sandbox", "off", "--db", db)
        wall = time.perf_counter() - start
        after = os.times()
        stop.set()
        server_cpu = cpu_seconds(proc.pid) - server_cpu0
    finally:
        proc.terminate()
        proc.wait()
    run_cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    return 3 * rounds / wall, run_cpu, server_cpu


def live_cost(folder: str, rounds: int, repeats: int = 1) -> None:
    results: dict[bool, list[tuple[float, float, float]]] = {False: [], True: []}
    order = [False, True, True, False] * repeats  # ABBA: a drifting load cancels out
    for i, polled in enumerate(order):
        rate, run_cpu, server_cpu = one_run(folder, f"{i}-{polled}", rounds, polled)
        results[polled].append((rate, run_cpu, server_cpu))
        print(
            f"  run {i + 1} {'polled' if polled else 'alone':6s}: {rate:5.2f} games/s, "
            f"run CPU {run_cpu:5.1f} s, server CPU {server_cpu:5.2f} s",
            flush=True,
        )
    alone = statistics.mean(r[0] for r in results[False])
    polled = statistics.mean(r[0] for r in results[True])
    share = (sum(r[2] for r in results[True]) - sum(r[2] for r in results[False])) / sum(
        r[1] for r in results[True]
    )
    print(
        f"  mean throughput alone {alone:.2f} games/s, polled {polled:.2f} games/s "
        f"({100 * (polled - alone) / alone:+.1f} %; wall-clock noise on a shared 2-core "
        "machine is several %)"
    )
    print(
        f"  CPU the polled server spent beyond an idle one: {100 * share:.2f} % of the run's "
        f"CPU ({'meets' if share < 0.02 else 'MISSES'} the 2 % target)"
    )


def main() -> None:
    args = arguments(100_000)
    with tempfile.TemporaryDirectory() as folder:
        db = args.db or os.path.join(folder, "bench.db")
        started = time.perf_counter()
        tid = fill(db, args.games)
        with Store.open(db) as store:
            store.rebuild_ratings(tid)
        small = json.loads(
            arena(
                "tournament",
                "create",
                "--game",
                "skull-king",
                "--bots",
                "skull_king_bidder,random,first",
                "--json",
                "--db",
                db,
            )
        )["id"]
        arena("tournament", "run", str(small), "-q", "--sandbox", "off", "--db", db)
        with Store.open(db) as store:
            game = store.db.execute(
                "SELECT MAX(id) FROM games WHERE tournament_id = ?", (small,)
            ).fetchone()[0]
            t0 = time.perf_counter()
            published.tournament_data(store, tid)
            cli_ms = (time.perf_counter() - t0) * 1000
        print(
            f"database: {args.games:,} games ({os.path.getsize(db) / 1e6:.0f} MB) built in "
            f"{time.perf_counter() - started:.0f} s"
        )
        print(
            f"baseline: `arena tournament show --json` data in process: {cli_ms:.0f} ms", flush=True
        )
        proc, url = serve(db)
        try:
            page_times(url, tid, game)
        finally:
            proc.terminate()
            proc.wait()
        print(
            "live view cost on a running tournament (300 real games, one job, polled every second):"
        )
        live_cost(folder, 100)


if __name__ == "__main__":
    main()
