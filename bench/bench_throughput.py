"""Benchmark (issues 15 and 34): tournament throughput with many games at once per bot process.

Prints, in one run:

(a) games/s of a 4-player Skull round robin among 6 SDK ``random`` bots (540 games), and (b) of
    a 4-player Skull King round robin among the bundled Skull King bots (240 games), each
    played as a tournament (``tournaments.run.runner.run``, sandboxed where bubblewrap works) at
    ``--games-per-worker`` K = 1 and at the default K, next to the in-process limit: the same
    planned games played by the referee over ``InProcessSeat``s calling the same bot functions
    (no processes). Each tournament figure comes with its ratio to that limit and the CPU time
    per decision of the arena's process (the referee; the decisions are those of the same games
    in process: the games are the same), and the CPU of this process and of everything it
    started over the run: the rest is the bot processes, their sandboxes, every ZeroMQ I/O
    thread and the kernel's work for them (counted by a cgroup v1 ``cpuacct`` group where it
    can be made, as root; else the whole machine's busy time from ``/proc/stat``, which counts
    anything else the machine runs: read that on a quiet machine; sandboxed bots are not the
    arena's reaped children, so rusage does not see them; ``bench_sdk.py`` gives one bot's CPU
    a turn), and the games/s that CPU would give with every core busy all the time (the
    bound: no overlap of referee and bots can beat it);
(c) per-decision latency of one game at a time over the protocol (the K = 1 path).

With ``--old PATH`` (a checkout of older code, e.g. made with ``git worktree add``) every
tournament figure and (c) are measured over both trees, alternated ``--repeat`` times (this
script's own functions over the old code), and the medians printed with the ratios new/old
pair by pair. Each figure comes from a fresh subprocess (``--measure``) so each code base runs
as itself. The machine may be shared: compare figures with their same-run baselines only
(the load average is printed before and after).

``BENCH_SANDBOX=OFF`` (or ``REQUIRED``) sets the bots' sandbox (default ``AUTO``).

Run: python bench/bench_throughput.py [--rounds 9] [--king-rounds 60] [--jobs 1] [--old PATH]
     [--repeat 3] [--json]
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
#: The tournaments' move time (ms): the default K follows from it.
MOVE_MS = 2000
#: The cores the machine's CPU time is spread over (the bound: every core busy all the time).
CORES = os.cpu_count() or 1
ROOT = HERE.parent

CASES = {
    "skull": ("skull", ("random",) * 6),
    "skull-king": ("skull-king", ("skull_king_bidder", "random", "first", "skull_king_bidder")),
}


def _tournament(case: str, rounds: int):
    """A fresh store with the case's tournament planned: (store, tid, specs, folder)."""
    from arena.keys.seeds import new_key
    from tournaments.catalogue.lookup import bundled_spec
    from tournaments.plans.schedule import TournamentSpec, plan
    from tournaments.store.facts import Store

    game, bots = CASES[case]
    folder = tempfile.mkdtemp(prefix="bench-throughput-")
    store = Store.open(Path(folder) / "bench.db")
    spec = TournamentSpec(
        game=game,
        options={},
        bots=bots,
        table_size=4,
        repetitions=rounds,
        seed=7,
        move_ms=MOVE_MS,
    )
    key = new_key()
    labels = spec.entrant_bots()
    tid = store.create_tournament(
        spec, plan(spec, key=key), {e: (b, "bench") for e, b in labels.items()}, key=key
    )
    return store, tid, {label: bundled_spec(bot) for label, bot in labels.items()}, folder


def measure_tournament(case: str, rounds: int, jobs: int, k: int | None) -> dict:
    """Games/s of one tournament run (K None: the code's default), and the CPU seconds of this
    process (the referee) over it."""
    from arena.games import get_game
    from arena.procs.limits import Limits
    from arena.procs.sandbox import SandboxMode
    from tournaments.catalogue.bot_sandbox import sandbox_for
    from tournaments.run.playing import RunConfig, auto_games_per_worker
    from tournaments.run.runner import run

    store, tid, specs, folder = _tournament(case, rounds)
    db = Path(folder) / "bench.db"
    config = RunConfig(
        game=get_game(CASES[case][0]),
        options={},
        bots=specs,
        limits=Limits(move_ms=MOVE_MS),
        at_once=k or auto_games_per_worker(MOVE_MS),
        sandbox=sandbox_for(SandboxMode[os.environ.get("BENCH_SANDBOX", "AUTO")], db),
        log_dir=db.parent / "arena-logs",
    )
    group = _own_cpu_group()
    machine = _machine_busy_s()
    tree = _group_cpu_s(group)
    cpu = time.process_time()
    started = time.perf_counter()
    try:
        summary = run(store, tid, config, jobs=jobs)
        wall = time.perf_counter() - started
        cpu = time.process_time() - cpu
        tree = _group_cpu_s(group) - tree
        machine = _machine_busy_s() - machine
    finally:
        _leave_cpu_group(group)
    store.close()
    by_cgroup = not math.isnan(tree)
    return {
        "games": summary.played,
        "wall_s": wall,
        "rate": summary.played / wall,
        "cpu_s": cpu,
        "processes": getattr(summary, "processes_started", 0),
        # this process and everything it started (bots, sandboxes, I/O threads), where a
        # cgroup counts it; else the whole machine's busy time
        "machine_cpu_s": tree if by_cgroup else machine,
        "counted_by": "cgroup" if by_cgroup else "machine",
    }


#: cgroup v1's CPU accounting, where the machine mounts it (a cgroup counts every process
#: started inside it, sandboxed or not, reaped or not).
CPUACCT = Path("/sys/fs/cgroup/cpuacct")


def _own_cpu_group() -> Path | None:
    """A new cpuacct cgroup holding this process (and so everything it starts), or None
    where none can be made (no cgroup v1 cpuacct, or not root)."""
    group = CPUACCT / f"arena-bench-{os.getpid()}"
    try:
        group.mkdir()
        (group / "cgroup.procs").write_text(str(os.getpid()))
    except OSError:
        _leave_cpu_group(group if group.exists() else None)
        return None
    return group


def _group_cpu_s(group: Path | None) -> float:
    """CPU seconds spent by the cgroup's processes so far; NaN without one."""
    if group is None:
        return float("nan")
    return int((group / "cpuacct.usage").read_text()) / 1e9


def _leave_cpu_group(group: Path | None) -> None:
    if group is None:
        return
    try:
        (CPUACCT / "cgroup.procs").write_text(str(os.getpid()))
        group.rmdir()
    except OSError:
        pass  # a process left in it: the folder stays (harmless; named by this pid)


def _machine_busy_s() -> float:
    """CPU seconds the whole machine has spent busy since boot (every core, every process:
    ``/proc/stat``, all but idle and I/O wait); NaN where there is no ``/proc/stat``."""
    try:
        with open("/proc/stat") as f:
            ticks = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return float("nan")
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")


def measure_in_process(case: str, rounds: int) -> dict:
    """Games/s of the same planned games over in-process seats (the same bot functions), and
    their decisions."""
    import random

    from arena.games import get_game
    from arena.procs.limits import Limits
    from arena.referee import driver
    from arena.referee.game import GameSetup
    from arena.referee.seats import InProcessSeat

    store, tid, specs, _ = _tournament(case, rounds)
    decisions = 0
    info = store.tournament(tid)
    game = get_game(info.spec.game)
    pending = store.pending_games(tid)
    modules = {label: importlib.import_module(f"bots.{spec.name}") for label, spec in specs.items()}
    started = time.perf_counter()
    limits = Limits(move_ms=MOVE_MS)
    for game_id, planned in pending:
        random.seed(planned.deal_seed)  # the SDK seeds random at start; so does this
        seats = [
            InProcessSeat(_act_of(modules[label], seed), label)
            for label, seed in zip(planned.seating, planned.bot_seeds(), strict=True)
        ]
        setup = GameSetup(game, seats, planned.deal_seed, {}, game_id, planned.bot_seeds())
        decisions += sum(driver.play(setup, limits).decisions)
    wall = time.perf_counter() - started
    store.close()
    return {
        "games": len(pending),
        "wall_s": wall,
        "rate": len(pending) / wall,
        "decisions": decisions,
    }


def _act_of(module: Any, seed: int) -> Any:
    """A bundled bot's ``act``: its function, or a fresh, seeded instance's (``Bot`` class)."""
    if hasattr(module, "act"):
        return module.act
    from protocol.sdk import Bot

    kinds = [v for v in vars(module).values() if isinstance(v, type) and issubclass(v, Bot)]
    bot = next(kind for kind in kinds if kind is not Bot)()
    bot.random.seed(seed)
    return bot.act


def measure_latency(games: int) -> dict:
    """Per-decision µs of one 4-player Skull game at a time (bench_protocol's function, over
    whichever code base is on the path)."""
    sys.path.insert(0, str(HERE))
    from bench_protocol import protocol_decisions

    micros, decisions = protocol_decisions("skull", 4, games)
    return {"us": micros, "decisions": decisions}


def measure_over(script: Path, code: Path, what: list[str]) -> dict:
    """One measurement by ``script --measure WHAT...`` in a fresh process over the code base at
    ``code`` (the script's own functions: the old code's bench may not measure what this one
    does): the JSON of its last line."""
    env = dict(os.environ, PYTHONPATH=str(code))
    out = subprocess.run(
        [sys.executable, str(script.resolve()), "--measure", *what],
        env=env,
        cwd=str(code),
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        raise SystemExit(f"measuring {what} over {code} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _run(code: Path, what: list[str]) -> dict:
    return measure_over(Path(__file__), code, what)


def _measure(args: list[str]) -> int:
    kind = args[0]
    if kind == "tournament":
        k = None if args[4] == "none" else int(args[4])
        result = measure_tournament(args[1], int(args[2]), int(args[3]), k)
    elif kind == "in-process":
        result = measure_in_process(args[1], int(args[2]))
    else:
        result = measure_latency(int(args[1]))
    print(json.dumps(result))
    return 0


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _median(runs: list[dict], key: str) -> float:
    return statistics.median(run[key] for run in runs)


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--measure":
        return _measure(sys.argv[2:])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9, help="Skull: 9 rounds = 540 games")
    parser.add_argument(
        "--king-rounds", type=int, default=60, help="Skull King: 60 rounds = 240 games"
    )
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--latency-games", type=int, default=100)
    parser.add_argument(
        "--old",
        type=Path,
        default=None,
        help="a checkout of older code to compare with (e.g. git worktree add /tmp/old REV)",
    )
    parser.add_argument("--repeat", type=int, default=1, help="runs of each tree, alternated")
    parser.add_argument("--skip-k1", action="store_true", help="only the default K")
    parser.add_argument(
        "--case",
        action="append",
        choices=("skull", "skull-king"),
        help="only this case (repeatable; default: both)",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    from tournaments.run.playing import auto_games_per_worker

    default_k = auto_games_per_worker(MOVE_MS)
    old = args.old.resolve() if args.old is not None and (args.old / "arena").is_dir() else None
    trees = {"new": ROOT, **({"old": old} if old is not None else {})}
    report: dict[str, Any] = {"load_before": _load(), "default_k": default_k, "cases": {}}
    if not args.json:
        print(f"jobs={args.jobs}; default K = {default_k}; load {report['load_before']}")
        print("shared machine: compare figures with their same-run baselines only.")
    ks = [default_k] if args.skip_k1 else [1, default_k]
    cases = (("skull", args.rounds), ("skull-king", args.king_rounds))
    for letter, (case, rounds) in zip("ab", cases, strict=True):
        if args.case and case not in args.case:
            continue
        limit = _run(ROOT, ["in-process", case, str(rounds)])
        decisions = limit["decisions"]
        runs: dict[str, dict[int, list[dict]]] = {name: {k: [] for k in ks} for name in trees}
        for _ in range(args.repeat):
            for k in ks:
                for name, tree in trees.items():
                    what = ["tournament", case, str(rounds), str(args.jobs), str(k)]
                    got = _run(tree, what)
                    got["rest_cpu_s"] = got["machine_cpu_s"] - got["cpu_s"]
                    runs[name][k].append(got)
        figures = {
            name: {
                k: {
                    "rate": _median(got, "rate"),
                    "ratio": _median(got, "rate") / limit["rate"],
                    "referee_cpu_us": _median(got, "cpu_s") / decisions * 1e6,
                    "machine_cpu_us": _median(got, "machine_cpu_s") / decisions * 1e6,
                    "rest_cpu_us": _median(got, "rest_cpu_s") / decisions * 1e6,
                    # games/s if every core were busy all the time with this CPU per game
                    "bound": limit["games"] / (_median(got, "machine_cpu_s") / CORES),
                    "processes": _median(got, "processes"),
                    "counted_by": got[0]["counted_by"],
                }
                for k, got in per_k.items()
            }
            for name, per_k in runs.items()
        }
        report["cases"][case] = {"limit": limit, "figures": figures}
        if args.json:
            continue
        games = limit["games"]
        print(f"\n({letter}) {case}: {games} games, {decisions} decisions, 4 seats")
        print(f"  in-process limit (same games, same bot functions)  {limit['rate']:8.1f} games/s")
        counted = {f["counted_by"] for per_k in figures.values() for f in per_k.values()}
        print(
            "  tree  K     games/s  x limit   CPU/decision: referee    the rest   machine"
            f"   bound at {CORES} cores   (the rest counted by: {', '.join(sorted(counted))})"
        )
        for name in trees:
            for k in ks:
                f = figures[name][k]
                print(
                    f"  {name:4s}  {k:<3d} {f['rate']:9.1f}  {f['ratio']:6.3f}x"
                    f"  {f['referee_cpu_us']:19.1f} us {f['rest_cpu_us']:8.1f} us"
                    f" {f['machine_cpu_us']:6.1f} us"
                    f"   {f['bound']:6.1f} ({f['bound'] / limit['rate']:.3f}x)"
                    f"   {f['processes']:.0f} bot processes"
                )
        if old is not None:
            for k in ks:
                pairs = list(zip(runs["new"][k], runs["old"][k], strict=True))
                rate = statistics.median(n["rate"] / o["rate"] for n, o in pairs)
                cpu = statistics.median(n["cpu_s"] / o["cpu_s"] for n, o in pairs)
                print(
                    f"  new/old at K = {k}, pair by pair: games/s {rate:.2f}, referee CPU {cpu:.2f}"
                )
    latency = {
        name: _run(tree, ["latency", str(args.latency_games)]) for name, tree in trees.items()
    }
    report["latency"] = latency
    report["load_after"] = _load()
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"\n(c) one 4-player Skull game at a time: {latency['new']['decisions']} decisions")
    for name in trees:
        print(f"  {name} code  {latency[name]['us']:8.1f} us per decision")
    print(f"\nload after: {report['load_after']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
