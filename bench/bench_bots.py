"""Benchmark: the strength and speed of the search bot ``ismcts``, measured by the arena itself.

Strength, per game: a round-robin tournament of ``ismcts``, the game's heuristic bot and
``random`` at tables of three, every seat rotation of every deal (``arena tournament create``
and ``run`` in child processes, results in a fresh SQLite file); it prints each entrant's Elo
with its 95 % interval (the arena's batch fit, ``tournament show --json``): the heuristic bot
and random are the baseline of the same run. ``ismcts`` thinks ``--move-ms`` per move (passed
as ``ARENA_BOT_MOVE_MS``, which the arena hands to bots); the per-move deadline is that plus
1 s. Run it with ``--jobs 1`` (the default) so that the bot's clock is not shared.

Speed, per game, in this process: ``ismcts`` plays a few games against the heuristic bot and
random at ``--move-ms``; it prints search iterations per second, and how far each answer ran
past the move budget (median, 99th percentile, maximum; and the maximum in CPU time, which
leaves out the time the process waited for a core on a loaded machine). The baseline of the
same run: uniformly random games per second from a fresh deal.

    python bench/bench_bots.py [--games skull,skull-bank] [--move-ms 200] [--tables 200]
        [--jobs 1] [--seed 1] [--speed-games 2] [--no-strength]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TREE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TREE))

from arena.games import get_game  # noqa: E402
from bots.ismcts import HEURISTICS, Ismcts, Settings, heuristic  # noqa: E402

ALL_GAMES = ("skull", "skull-bank", "skull-king", "skyjo")
TABLE = 3  # ismcts, the heuristic, random


def arena(*args: str, env: dict[str, str]) -> str:
    """Run one ``arena`` command in a child process; return its standard output."""
    done = subprocess.run(
        [sys.executable, "-m", "arena", *args], env=env, capture_output=True, text=True
    )
    if done.returncode:
        raise SystemExit(f"arena {' '.join(args)} failed:\n{done.stderr}")
    return done.stdout


def strength(game: str, move_ms: int, tables: int, jobs: int, seed: int) -> dict[str, Any]:
    """Play the tournament of ``game``; return its rankings and wall time."""
    env = dict(os.environ, PYTHONPATH=str(TREE), ARENA_BOT_MOVE_MS=str(move_ms))
    rotations = TABLE  # a round robin of three bots at tables of three: one table, 3 rotations
    repetitions = max(1, math.ceil(tables / rotations))
    with tempfile.TemporaryDirectory() as folder:
        db = str(Path(folder) / "bench.db")
        bots = f"ismcts,{HEURISTICS[game].rpartition('.')[2]},random"
        created = json.loads(
            arena(
                "tournament", "create", "--game", game, "--bots", bots,
                "--table-size", str(TABLE), "--repetitions", str(repetitions),
                "--seed", str(seed), "--move-time", str(move_ms + 1000),
                "--db", db, "--json",
                env=env,
            )
        )  # fmt: skip
        started = time.monotonic()
        arena("tournament", "run", str(created["id"]), "--jobs", str(jobs), "--db", db, env=env)
        wall = time.monotonic() - started
        shown = json.loads(
            arena("tournament", "show", str(created["id"]), "--db", db, "--json", env=env)
        )
    return {"rankings": shown["rankings"], "games": shown["games_done"], "seconds": wall}


def speed(game: str, move_ms: int, games: int, seed: int) -> dict[str, float]:
    """Iterations per second of ``ismcts`` and its overrun of the budget, in this process."""
    rule = get_game(game)
    prior = heuristic(game)
    overruns: list[float] = []
    cpu_overruns: list[float] = []
    iterations = 0
    thinking = 0.0
    for number in range(games):
        state = rule.new(TABLE, seed + number)
        hero = number % TABLE
        bot = Ismcts(Settings(move_ms=move_ms))
        bot.start({"seed": seed + number, "game": game, "seat": hero, "players": TABLE})
        rng = random.Random(number)
        random.seed(number)
        while not state.is_over():
            joint = {}
            for seat in state.to_act():
                view, legal = state.view(seat), state.legal(seat)
                if seat == hero:
                    began, cpu = time.monotonic(), time.process_time()
                    joint[seat] = bot.act(view, legal)
                    took = time.monotonic() - began
                    if len(legal) > 1:
                        overruns.append(took * 1000 - move_ms)
                        cpu_overruns.append((time.process_time() - cpu) * 1000 - move_ms)
                        thinking += took
                elif seat == (hero + 1) % TABLE and prior is not None:
                    joint[seat] = prior(view, legal)
                else:
                    joint[seat] = rng.choice(legal)
            state.apply(joint)
        assert bot.search is not None
        iterations += bot.search.iterations_done
    overruns.sort()
    return {
        "iterations_per_s": iterations / thinking if thinking else 0.0,
        "moves": len(overruns),
        "overrun_median_ms": statistics.median(overruns) if overruns else 0.0,
        "overrun_p99_ms": overruns[int(0.99 * (len(overruns) - 1))] if overruns else 0.0,
        "overrun_max_ms": overruns[-1] if overruns else 0.0,
        "cpu_overrun_max_ms": max(cpu_overruns, default=0.0),
        "playouts_per_s": random_playouts(game, seed),
    }


def random_playouts(game: str, seed: int, seconds: float = 1.0) -> float:
    """The baseline: uniformly random games per second from a fresh deal at tables of three."""
    rule = get_game(game)
    rng = random.Random(seed)
    count = 0
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        state = rule.new(TABLE, seed + count)
        while not state.is_over():
            state.apply({s: rng.choice(state.legal(s)) for s in state.to_act()})
        count += 1
    return count / (time.monotonic() - started)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=",".join(ALL_GAMES), help="comma-separated games")
    parser.add_argument("--move-ms", type=int, default=200, help="ismcts's thinking per move")
    parser.add_argument("--tables", type=int, default=200, help="games per game (at least)")
    parser.add_argument("--jobs", type=int, default=1, help="games at once in a tournament")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--speed-games", type=int, default=2, help="in-process games per game")
    parser.add_argument("--no-strength", action="store_true", help="only the speed figures")
    args = parser.parse_args(argv)
    games = [name.strip() for name in args.games.split(",") if name.strip()]
    print(f"ismcts at {args.move_ms} ms per move, tables of {TABLE}, jobs {args.jobs}")
    for game in games:
        fast = speed(game, args.move_ms, args.speed_games, args.seed)
        print(
            f"{game}: {fast['iterations_per_s']:,.0f} iterations/s over {fast['moves']} moves "
            f"(baseline: {fast['playouts_per_s']:,.0f} random games/s); past the budget: "
            f"median {fast['overrun_median_ms']:+.1f} ms, p99 {fast['overrun_p99_ms']:+.1f} ms, "
            f"max {fast['overrun_max_ms']:+.1f} ms (in CPU time: max "
            f"{fast['cpu_overrun_max_ms']:+.1f} ms; the rest is waiting for a core)"
        )
        if args.no_strength:
            continue
        result = strength(game, args.move_ms, args.tables, args.jobs, args.seed)
        rows = {row["entrant"]: row for row in result["rankings"]}
        print(f"{game}: {result['games']} games in {result['seconds']:.0f} s")
        for name, row in rows.items():
            print(
                f"  {name:18} Elo {row['elo']:6.0f} ± {row['margin']:3.0f}  "
                f"mean place {row['mean_place']:.2f}  wins {row['wins']}  faults {row['faults']}"
            )
        others = [row for name, row in rows.items() if name not in ("ismcts", "random")]
        if others:
            gap = rows["ismcts"]["elo"] - others[0]["elo"]
            print(f"  ismcts - {others[0]['entrant']}: {gap:+.0f} Elo")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
