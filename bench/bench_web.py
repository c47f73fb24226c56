"""Benchmark: ``arena serve`` on a database of 100,000 games (page weight, first and warm
timings), the size of ``arena export`` per 1,000 real games, and what the live view costs a
running tournament. Runs from the repository root as it is (no PYTHONPATH, nothing of the
tests imported).

1. A tournament of 100,000 synthetic finished games (8 entrants, tables of 4) is written and
   its ratings rebuilt (as a finished run leaves them); a small real Skull King tournament
   (real bots, real games that replay) is added beside it.
2. ``arena serve`` runs in its own process; each address is fetched once ("first": the
   tournament page's first request waits for the ratings the server computes when it starts,
   a replay's first request builds it) and then 7 times more (the median is "warm"). Page
   weight is what crosses the wire (gzip, as a browser asks) and the size unpacked.
3. Export size: a real tournament of each game is played and exported; the bytes of the
   replays (pages and data) per game, times 1,000.
4. Live cost: a real tournament is run alone and while a poller fetches its live endpoint
   every second, in the order alone, polled, polled, alone (a drifting load cancels out);
   reported are the throughputs and the CPU the polled server spent beyond an idle one.

With ``--old PATH`` (another checkout of the arena, e.g. a release) every step runs on both
trees, each on a database it wrote itself, and the timings alternate old and new request by
request (the machine's load falls on both alike).

    python bench/bench_web.py [--games 100000] [--old PATH] [--rounds 10] [--no-live]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

#: The arena tree this process benchmarks (``--old`` runs this script again in the other tree).
ROOT = Path(os.environ.get("ARENA_BENCH_TREE") or Path(__file__).resolve().parent.parent)
BOTS = tuple(f"bot{i}" for i in range(8))
ACTIONS = ("place:flower", "place:skull", "bid:2", "bid:3", "pass", "flip:1", "flip:2")
WARM = 7


def tree_env(tree: Path) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(tree), ARENA_BENCH_TREE=str(tree))


def arena(tree: Path, *args: str) -> str:
    return subprocess.run(
        [sys.executable, "-m", "arena", *args],
        env=tree_env(tree),
        cwd=tree,  # ``-m`` puts the working folder first on the path
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# -- the database ---------------------------------------------------------------------------


def fill(db: str, games: int) -> int:
    """A tournament of ``games`` synthetic finished games (a Skull-like game of 40 actions,
    places from the entrants' strengths plus noise, an occasional fault), ratings rebuilt;
    returns its id. Runs in the tree this process imports (``ARENA_BENCH_TREE``)."""
    sys.path.insert(0, str(ROOT))
    from arena.games.base import places_from_keys

    try:  # this tree's layout
        from arena.keys.seeds import new_key
        from arena.referee.record import (
            ActionRecord,
            Chooser,
            Fault,
            FaultKind,
            GameRecord,
            final_places,
        )
    except ImportError:  # an older tree's (--old): one flat arena package
        from arena.record import ActionRecord, Chooser, Fault, FaultKind, GameRecord, final_places
        from arena.seeds import new_key
    from tournaments.plans.schedule import TournamentSpec, plan
    from tournaments.store.facts import Store

    spec = TournamentSpec(
        game="skull", bots=BOTS, table_size=4, repetitions=max(1, -(-games // 280)), seed=1
    )
    rng = random.Random(7)
    strengths = {b: i / 3 for i, b in enumerate(BOTS)}

    def record(planned: object) -> GameRecord:
        seating = planned.seating
        steps, faults = [], []
        for step in range(40):
            seat, by = step % len(seating), Chooser.BOT
            if rng.random() < 0.02:
                kind = rng.choice(list(FaultKind))
                faults.append(Fault(seat=seat, step=step, kind=kind, detail="synthetic"))
                by = Chooser.REFEREE
            action = rng.choice(ACTIONS)
            think = rng.randrange(20, 400)
            steps.append(ActionRecord(step=step, seat=seat, action=action, by=by, think_us=think))
        keys = [-round(strengths[label] + rng.gauss(0, 1.0)) for label in seating]
        places = places_from_keys(keys)
        return GameRecord(
            game="skull",
            options={},
            seed=planned.deal_seed,
            bots=tuple(seating),
            actions=tuple(steps),
            faults=tuple(faults),
            forfeits=(),
            scores=tuple(float(len(seating) - p) for p in places),
            game_places=places,
            places=final_places(places, ()),
            think_us=(1000,) * len(seating),
            decisions=(10,) * len(seating),
            wall_ms=round(rng.uniform(1.0, 30.0), 3),
        )

    key = new_key()
    with Store.open(db) as store:
        tid = store.create_tournament(
            spec, plan(spec, key=key), {b: (b, "v1") for b in BOTS}, key=key
        )
        pending = store.pending_games(tid)[:games]
        for start in range(0, len(pending), 5000):
            store.record_games([(gid, record(p)) for gid, p in pending[start : start + 5000]])
        store.results.rebuild_ratings(tid)
    return tid


def build(tree: Path, db: str, games: int) -> tuple[int, int, int]:
    """The benchmark database in ``tree``: (big tournament, small tournament, a game of it)."""
    out = subprocess.run(
        [sys.executable, __file__, "--fill", db, "--games", str(games)],
        env=tree_env(tree),
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    big = int(out.split()[-1])
    small = json.loads(
        arena(
            tree,
            "tournament",
            "create",
            "--game",
            "skull-king",
            "--bots",
            "skull_king_bidder,random,first",
            "--seed",
            "5",
            "--json",
            "--db",
            db,
        )
    )["id"]
    arena(tree, "tournament", "run", str(small), "-q", "--sandbox", "off", "--db", db)
    game = int(
        subprocess.run(
            [sys.executable, "-c", SQL_MAX, db, str(small)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    )
    return big, small, game


SQL_MAX = (
    "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
    "print(c.execute('SELECT MAX(id) FROM games WHERE tournament_id = ?', "
    "(int(sys.argv[2]),)).fetchone()[0])"
)


# -- serving --------------------------------------------------------------------------------


def serve(tree: Path, db: str) -> tuple[subprocess.Popen, str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", "--db", db, "--port", str(port)],
        env=tree_env(tree),
        cwd=tree,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(400):
        try:
            httpx.get(url + "/static/arena.css")
            return proc, url
        except httpx.TransportError:
            time.sleep(0.05)
    raise RuntimeError("the server did not start")


def fetch(client: httpx.Client, paths: list[str]) -> tuple[float, int, int]:
    """Fetch ``paths`` in turn: (ms in all, bytes over the wire, bytes unpacked)."""
    start = time.perf_counter()
    wire = raw = 0
    for path in paths:
        response = client.get(path, headers={"Accept-Encoding": "gzip"})
        if response.status_code != 200:
            raise RuntimeError(f"{path}: {response.status_code} {response.text[:200]}")
        wire += response.num_bytes_downloaded
        raw += len(response.content)
    return (time.perf_counter() - start) * 1000, wire, raw


def packs_replays(tree: Path) -> bool:
    """Whether ``tree`` serves a game's replay data as one packed script with the pages of its
    time (the browser view's second round); an older arena served a script per perspective."""
    return "replay.js" in (tree / "arena" / "web" / "app.py").read_text()


def addresses(tree: Path, big: int, small: int, game: int) -> dict[str, list[str] | None]:
    """What each row of the table fetches in ``tree`` (None: that arena has no such page)."""
    new = packs_replays(tree)
    replay = (
        [f"/games/{game}/replay.js"]
        if new
        else [f"/games/{game}/frames/{p}.js" for p in ("referee", "0", "1", "2")]
    )
    return {
        "static file (the HTTP floor)": ["/static/arena.css"],
        "tournaments (index)": ["/"],
        "tournament page (100,000 games)": [f"/tournaments/{big}"],
        "tournament page, games page 1000": [f"/tournaments/{big}?page=1000"],
        "games with faults, by faults": (
            [f"/tournaments/{big}?faults=with&sort=faults&order=desc"] if new else None
        ),
        "head-to-head (bot0 against bot1)": (
            [f"/tournaments/{big}?entrant=bot0&opponent=bot1"] if new else None
        ),
        "tournament API (= tournament show --json)": [f"/api/tournaments/{big}"],
        "live endpoint": [f"/api/tournaments/{big}/live"],
        "rankings.csv": [f"/tournaments/{big}/rankings.csv"] if new else None,
        "bot page (bot3, in 100,000 games)": ["/bots/bot3"],
        "Skull King replay page": [f"/games/{game}"],
        "its data, every perspective": replay,
    }


def page_table(servers: dict[str, tuple[str, tuple[int, int, int], Path]]) -> None:
    """Each address first, then warm (median of WARM), old and new alternating."""
    kinds = list(servers)
    rows = {k: addresses(servers[k][2], *servers[k][1]) for k in kinds}
    clients = {k: httpx.Client(base_url=servers[k][0], timeout=600) for k in kinds}
    head = " | ".join(f"{k} first | {k} warm | {k} weight" for k in kinds)
    print(f"| address | {head} |")
    print("|---" * (1 + 3 * len(kinds)) + "|")
    for label in rows["new"]:
        cells: dict[str, list[str]] = {}
        warm: dict[str, list[float]] = {k: [] for k in kinds}
        for k in kinds:
            paths = rows[k][label]
            if paths is None:
                cells[k] = ["-", "-", "-"]
                continue
            ms, wire, raw = fetch(clients[k], paths)
            cells[k] = [f"{ms:.1f} ms", "", f"{wire / 1000:.1f} kB ({raw / 1000:.0f} kB)"]
        for _ in range(WARM):
            for k in kinds:
                if rows[k][label] is not None:
                    warm[k].append(fetch(clients[k], rows[k][label])[0])
        for k in kinds:
            if warm[k]:
                cells[k][1] = f"{statistics.median(warm[k]):.1f} ms"
        print(f"| {label} | " + " | ".join(" | ".join(cells[k]) for k in kinds) + " |", flush=True)
    for client in clients.values():
        client.close()


def jsonl_download(url: str, big: int) -> None:
    """The 100,000 games as JSON Lines, streamed: lines, size, time."""
    start = time.perf_counter()
    raw = lines = 0
    path = f"{url}/tournaments/{big}/games.jsonl"
    with httpx.stream("GET", path, timeout=600, headers={"Accept-Encoding": "gzip"}) as response:
        for line in response.iter_lines():
            raw += len(line) + 1
            lines += 1
        wire = response.num_bytes_downloaded
    print(
        f"games.jsonl of the 100,000-game tournament: {lines:,} lines, {raw / 1e6:.0f} MB "
        f"({wire / 1e6:.0f} MB over the wire) in {time.perf_counter() - start:.1f} s",
        flush=True,
    )


# -- export size ----------------------------------------------------------------------------

GAMES = {
    "skull": "skull_odds,random,first",
    "skull-bank": "skull_bank_odds,random,first",
    "skull-king": "skull_king_bidder,random,first",
    "skyjo": "skyjo_greedy,random,first",
}


def play_export_games(tree: Path, db: str, rounds: int) -> dict[str, int]:
    """A real tournament of each game in ``db`` (played by ``tree``); their ids by game."""
    ids = {}
    for game, bots in GAMES.items():
        ids[game] = json.loads(
            arena(
                tree,
                "tournament",
                "create",
                "--game",
                game,
                "--bots",
                bots,
                "--rounds",
                str(rounds),
                "--seed",
                "11",
                "--json",
                "--db",
                db,
            )
        )["id"]
        arena(tree, "tournament", "run", str(ids[game]), "-q", "--sandbox", "off", "--db", db)
    return ids


def export_sizes(kind: str, tree: Path, db: str, ids: dict[str, int], folder: str) -> None:
    """Bytes per game of the replays ``arena export`` writes, for real games of each game."""
    for game, tid in ids.items():
        out = Path(folder) / f"site-{kind}-{game}"
        start = time.perf_counter()
        arena(tree, "export", str(out), "--tournament", str(tid), "--db", db)
        seconds = time.perf_counter() - start
        games = len(list(out.glob("game-*.html")))
        replays = sum(p.stat().st_size for p in out.glob("game-*"))
        total = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
        print(
            f"  {kind:3s} {game:10s}: {games} games, replays {replays / games / 1000:6.1f} kB a "
            f"game = {replays / games / 1000:6.0f} MB per 1,000 games; whole export "
            f"{total / 1e6:5.1f} MB in {seconds:.1f} s",
            flush=True,
        )


# -- live cost ------------------------------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def one_run(folder: str, name: str, rounds: int, polled: bool) -> tuple[float, float, float]:
    """A real tournament run, with or without a poller of its live endpoint; returns
    (games/s, CPU s of the run, CPU s of the server)."""
    db = os.path.join(folder, f"live-{name}.db")
    tid = json.loads(
        arena(
            ROOT,
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
    proc, url = serve(ROOT, db)
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
        arena(ROOT, "tournament", "run", str(tid), "-q", "--sandbox", "off", "--db", db)
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


def live_cost(folder: str, rounds: int) -> None:
    results: dict[bool, list[tuple[float, float, float]]] = {False: [], True: []}
    for i, polled in enumerate([False, True, True, False]):  # ABBA
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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--old", type=Path, help="another arena checkout to compare with")
    parser.add_argument("--rounds", type=int, default=10, help="rounds of the exported games")
    parser.add_argument("--no-live", action="store_true", help="skip the live-cost runs")
    parser.add_argument("--fill", metavar="DB", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.fill:
        print(fill(args.fill, args.games))
        return
    trees = {"new": ROOT} | ({"old": args.old.resolve()} if args.old else {})
    with tempfile.TemporaryDirectory() as folder:
        built: dict[str, tuple[int, int, int]] = {}
        for kind, tree in trees.items():
            started = time.perf_counter()
            db = os.path.join(folder, f"{kind}.db")
            built[kind] = build(tree, db, args.games)
            print(
                f"{kind} database: {args.games:,} games ({os.path.getsize(db) / 1e6:.0f} MB) "
                f"built in {time.perf_counter() - started:.0f} s",
                flush=True,
            )
        servers, procs = {}, []
        try:
            for kind, tree in trees.items():
                proc, url = serve(tree, os.path.join(folder, f"{kind}.db"))
                procs.append(proc)
                servers[kind] = (url, built[kind], tree)
            page_table(servers)
            jsonl_download(servers["new"][0], built["new"][0])
        finally:
            for proc in procs:
                proc.terminate()
                proc.wait()
        print(
            f"export size ({args.rounds} rounds of 3 bots, real games, the same games for "
            "every tree):",
            flush=True,
        )
        oldest = trees.get("old", ROOT)
        played = os.path.join(folder, "export.db")
        ids = play_export_games(oldest, played, args.rounds)
        for kind, tree in trees.items():
            db = os.path.join(folder, f"export-{kind}.db")
            shutil.copy(played, db)
            shutil.copy(played + ".keys", db + ".keys")
            arena(tree, "tournament", "list", "--db", db)  # brings it to the tree's schema
            export_sizes(kind, tree, db, ids, folder)
        if not args.no_live:
            print("live view cost on a running tournament (300 real games, polled every second):")
            live_cost(folder, 100)


if __name__ == "__main__":
    main()
