"""Benchmark (issue 3a): a 4-player Skull round robin among 6 bots, 540 games.

Prints the tournament's wall time next to the summed play time of its games (the time the
referee spent inside games), so the cost of scheduling, process management and storage shows
as the difference, and how many phases the run had (at each phase's end every bot process is
ended: docs/security.md, "Fair play"). Target: under 20 % on top of the play time. Compare
two code bases by alternating runs of each (the machine may be shared).

Run: python bench/bench_tournament.py [--rounds 9] [--jobs 1 2]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from arena.games import get_game
from arena.keys.seeds import new_key
from arena.procs.limits import Limits
from arena.procs.sandbox import SandboxMode
from tournaments.catalogue.bot_sandbox import sandbox_for
from tournaments.catalogue.lookup import bundled_bots, bundled_spec, plays
from tournaments.plans.schedule import TournamentSpec, plan
from tournaments.run.playing import RunConfig, auto_games_per_worker
from tournaments.run.runner import run
from tournaments.store.facts import Store


def entrants() -> list[str]:
    skull = [
        name
        for name, games in sorted(bundled_bots().items())
        if plays(games, "skull") and name not in ("random", "first", "ismcts")  # no search bot
    ]
    names = skull + ["first"]
    return (names + ["random"] * 6)[:6]


def one_run(rounds: int, jobs: int) -> None:
    bots = entrants()
    with tempfile.TemporaryDirectory() as folder:
        store = Store.open(Path(folder) / "bench.db")
        spec = TournamentSpec(
            game="skull",
            options={},
            bots=tuple(bots),
            table_size=4,
            repetitions=rounds,
            seed=7,
            move_ms=2000,
        )
        key = new_key()
        games = plan(spec, key=key)
        labels = spec.entrant_bots()
        tid = store.create_tournament(
            spec, games, {e: (b, "bench") for e, b in labels.items()}, key=key
        )
        specs = {label: bundled_spec(bot) for label, bot in labels.items()}
        db = Path(folder) / "bench.db"
        config = RunConfig(
            game=get_game("skull"),
            options={},
            bots=specs,
            limits=Limits(move_ms=spec.move_ms),
            at_once=auto_games_per_worker(spec.move_ms),
            sandbox=sandbox_for(SandboxMode.AUTO, db),
            log_dir=db.parent / "arena-logs",
        )
        started = time.perf_counter()
        summary = run(store, tid, config, jobs=jobs)
        wall = time.perf_counter() - started
        store.close()
    play_s = summary.play_ms / 1000
    ideal = play_s / jobs
    overhead = (wall - ideal) / ideal * 100
    print(f"jobs={jobs}: {summary.played} games among {', '.join(bots)}")
    print(f"  tournament wall time            {wall:8.2f} s")
    print(f"  summed game play time / jobs    {ideal:8.2f} s   (sum {play_s:.2f} s)")
    print(
        f"  scheduling+processes+storage    {overhead:+7.1f} %   "
        f"[target < 20 %: {'met' if overhead < 20 else 'NOT met'}]"
    )
    print(f"  bot processes started           {summary.processes_started}")
    print(f"  phases (every process ended)    {summary.phases}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9, help="9 rounds = 540 games")
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    for jobs in args.jobs:
        one_run(args.rounds, jobs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
