"""Benchmark: the strength and speed of the search bot ``ismcts``, measured by the arena itself.

Strength, per game: round-robin tournaments of ``ismcts``, the game's heuristic bot and
``random`` at tables of three (``arena tournament create`` and ``run`` in child processes,
results in a fresh SQLite file), every deal in every seat rotation, and the deals split between
the two seat orders (``ORDERS``) so that each bot sits right after each other one equally often.
It prints each entrant's Elo with its 95 % interval (the arena's batch fit over the games of
both orders), the gap of ``ismcts`` over the heuristic with its interval, and that gap in each
order alone (their difference is what the seat order is worth): the heuristic bot and random
are the baseline of the same run. ``ismcts`` thinks ``--move-ms`` per move (passed as
``ARENA_BOT_MOVE_MS``, which the arena hands to bots); the per-move deadline is that plus
1 s. Run it with ``--jobs 1`` (the default) so that the bot's clock is not shared (or give it a
fixed number of iterations, below).

Speed, per game and table size (``--speed-players``: three and eight by default, each capped
at the game's range), in this process: ``ismcts`` plays a few games at ``--move-ms``; it prints
search iterations (playouts) per second, and how far each answer ran past the move budget
(median, 99th percentile, maximum; and the maximum in CPU time, which leaves out the time the
process waited for a core on a loaded machine). The baseline of the same run: uniformly random
games per second from a fresh deal. The load average is printed with the figures.

    python bench/bench_bots.py [--games skull,skull-bank] [--move-ms 200] [--tables 200]
        [--jobs 1] [--seed 1] [--speed-games 2] [--speed-players 3,8] [--iterations N]
        [--no-strength] [--json]

With ``--iterations N`` the strength tournaments give ``ismcts`` N iterations a move and no
clock (``ARENA_BOT_MOVE_MS=0``, ``ARENA_BOT_ITERATIONS=N``) and a per-move deadline of a
minute: its choices are then a function of the seed alone, so a loaded machine slows the run
but cannot weaken the bot. Choose N as what
``--move-ms`` gives on a quiet machine (the speed figures of the same run: iterations/s x the
budget).
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
from tournaments.ratings import Z95, PairCounts, batch_ratings  # noqa: E402

ALL_GAMES = ("skull", "skull-bank", "skull-king", "skyjo")
TABLE = 3  # ismcts, the heuristic, random
LARGEST = 8  # the speed games' largest table (where the game allows it)


def arena(*args: str, env: dict[str, str]) -> str:
    """Run one ``arena`` command in a child process; return its standard output."""
    done = subprocess.run(
        [sys.executable, "-m", "arena", *args], env=env, capture_output=True, text=True
    )
    if done.returncode:
        raise SystemExit(f"arena {' '.join(args)} failed:\n{done.stderr}")
    return done.stdout


#: The per-move deadline with ``--iterations`` (ms): ``ismcts`` stops thinking short of the
#: arena's deadline, so a deadline a loaded machine can reach would cut some moves short (and
#: time some out), and the choices would no longer be the seed's alone.
FIXED_MOVE_TIME_MS = 60_000

#: The seat orders each deal is played in (indices into ``(ismcts, heuristic, random)``), each
#: in its cyclic rotations: together every bot sits right after every other one equally often.
#: (The rotations of one order alone would always seat the heuristic right after ismcts and
#: ismcts right after random: in Skyjo the seat after random's discards gains about 75 Elo.)
ORDERS = ((0, 1, 2), (0, 2, 1))


def strength(
    game: str, move_ms: int, tables: int, jobs: int, seed: int, iterations: int | None = None
) -> dict[str, Any]:
    """Play the tournaments of ``game`` (one per seat order of ``ORDERS``, the deals split
    between them); return the Elo fit over all their games, per-entrant totals, and the gap
    of ismcts over the heuristic measured in each order alone. With ``iterations``, ismcts
    thinks that many iterations a move without a clock (``--move-ms 0``): deterministic per
    seed, whatever the machine's load."""
    env = dict(os.environ, PYTHONPATH=str(TREE), ARENA_BOT_MOVE_MS=str(move_ms))
    move_time = move_ms + 1000
    if iterations is not None:
        env.update(ARENA_BOT_MOVE_MS="0", ARENA_BOT_ITERATIONS=str(iterations))
        move_time = FIXED_MOVE_TIME_MS  # the bot stops short of the deadline: keep it far
    lineup = ("ismcts", HEURISTICS[game].rpartition(".")[2], "random")
    repetitions = max(1, math.ceil(tables / (TABLE * len(ORDERS))))
    everything = PairCounts(lineup)
    totals: dict[str, dict[str, float]] = {
        name: {"games": 0, "wins": 0, "places": 0, "faults": 0} for name in lineup
    }
    gaps: list[float] = []
    wall = 0.0
    with tempfile.TemporaryDirectory() as folder:
        db = str(Path(folder) / "bench.db")
        for number, order in enumerate(ORDERS):
            bots = ",".join(lineup[i] for i in order)
            created = json.loads(
                arena(
                    "tournament", "create", "--game", game, "--bots", bots,
                    "--table-size", str(TABLE), "--repetitions", str(repetitions),
                    "--seed", str(seed + number), "--move-time", str(move_time),
                    "--db", db, "--json",
                    env=env,
                )
            )  # fmt: skip
            tid = str(created["id"])
            started = time.monotonic()
            arena("tournament", "run", tid, "--jobs", str(jobs), "--db", db, env=env)
            wall += time.monotonic() - started
            games = json.loads(arena("tournament", "games", tid, "--db", db, "--json", env=env))
            alone = PairCounts(lineup)
            for played in games:
                if not played["places"]:
                    continue
                for counts in (everything, alone):
                    counts.add_game(played["seating"], played["places"])
                for seat, name in enumerate(played["seating"]):
                    totals[name]["games"] += 1
                    totals[name]["wins"] += played["places"][seat] == 1
                    totals[name]["places"] += played["places"][seat]
            fitted = batch_ratings(alone).by_entrant()
            gaps.append(fitted["ismcts"].rating - fitted[lineup[1]].rating)
            shown = json.loads(arena("tournament", "show", tid, "--db", db, "--json", env=env))
            for row in shown["rankings"]:
                totals[row["entrant"]]["faults"] += row["faults"]
    fit = batch_ratings(everything)
    fitted = fit.by_entrant()
    cov = fit.covariance  # entrants in lineup order: ismcts, the heuristic, random
    gap_margin = Z95 * math.sqrt(max(0.0, cov[0][0] + cov[1][1] - 2 * cov[0][1]))
    rows = [
        {
            "entrant": name,
            "elo": fitted[name].rating,
            "margin": fitted[name].hi - fitted[name].rating,
            "games": int(totals[name]["games"]),
            "wins": int(totals[name]["wins"]),
            "mean_place": totals[name]["places"] / max(1, totals[name]["games"]),
            "faults": int(totals[name]["faults"]),
        }
        for name in lineup
    ]
    return {
        "rankings": rows,
        "games": everything.games[0],
        "seconds": wall,
        "gap": fitted["ismcts"].rating - fitted[lineup[1]].rating,
        "gap_margin": gap_margin,
        "gap_by_order": gaps,
    }


def speed(game: str, move_ms: int, games: int, seed: int, players: int) -> dict[str, float]:
    """Iterations per second of ``ismcts`` and its overrun of the budget, in this process, at
    tables of ``players``: the seat after it plays the heuristic bot, the others random at
    tables of three, the heuristic at larger tables (whose rounds then run their usual length).
    """
    rule = get_game(game)
    prior = heuristic(game)
    overruns: list[float] = []
    cpu_overruns: list[float] = []
    iterations = 0
    thinking = 0.0
    for number in range(games):
        state = rule.new(players, seed + number)
        hero = number % players
        bot = Ismcts(Settings(move_ms=move_ms))
        bot.start({"seed": seed + number, "game": game, "seat": hero, "players": players})
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
                elif prior is not None and (players > TABLE or seat == (hero + 1) % players):
                    joint[seat] = prior(view, legal)
                else:
                    joint[seat] = rng.choice(legal)
            state.apply(joint)
        assert bot.search is not None
        iterations += bot.search.iterations_done
    overruns.sort()
    return {
        "players": players,
        "iterations_per_s": iterations / thinking if thinking else 0.0,
        "moves": len(overruns),
        "overrun_median_ms": statistics.median(overruns) if overruns else 0.0,
        "overrun_p99_ms": overruns[int(0.99 * (len(overruns) - 1))] if overruns else 0.0,
        "overrun_max_ms": overruns[-1] if overruns else 0.0,
        "cpu_overrun_max_ms": max(cpu_overruns, default=0.0),
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
    parser.add_argument(
        "--speed-players",
        default=f"{TABLE},{LARGEST}",
        help="table sizes of the speed games, comma-separated (each capped at the game's range)",
    )
    parser.add_argument(
        "--iterations",
        type=int,
        help="in the strength tournaments, ismcts thinks this many iterations a move without a "
        "clock (deterministic, unbent by the load; the speed figures say what --move-ms gives)",
    )
    parser.add_argument("--no-strength", action="store_true", help="only the speed figures")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args(argv)
    games = [name.strip() for name in args.games.split(",") if name.strip()]
    sizes = [int(size) for size in args.speed_players.split(",") if size.strip()]
    say = (lambda _text: None) if args.json else print
    if args.iterations is not None and args.iterations < 1:
        parser.error("--iterations must be >= 1")
    thinking = (
        f"{args.move_ms} ms per move"
        if args.iterations is None
        else f"{args.iterations} iterations per move (speed at {args.move_ms} ms)"
    )
    say(f"ismcts at {thinking}, jobs {args.jobs}, load {os.getloadavg()[0]:.1f}")
    report: dict[str, Any] = {
        "move_ms": args.move_ms,
        "iterations": args.iterations,
        "jobs": args.jobs,
        "games": {},
    }
    for game in games:
        rule = get_game(game)
        entry: dict[str, Any] = {
            "speed": [],
            "random_games_per_s": random_playouts(game, args.seed),
        }
        report["games"][game] = entry
        for players in sorted(
            {max(rule.min_players, min(size, rule.max_players)) for size in sizes}
        ):
            fast = speed(game, args.move_ms, args.speed_games, args.seed, players)
            entry["speed"].append(fast)
            say(
                f"{game} at {players}: {fast['iterations_per_s']:,.0f} iterations/s over "
                f"{fast['moves']} moves (baseline: {entry['random_games_per_s']:,.0f} random "
                f"games/s at {TABLE}); past the budget: median {fast['overrun_median_ms']:+.1f} "
                f"ms, p99 {fast['overrun_p99_ms']:+.1f} ms, max {fast['overrun_max_ms']:+.1f} ms "
                f"(in CPU time: max {fast['cpu_overrun_max_ms']:+.1f} ms; the rest is waiting "
                "for a core)"
            )
        if args.no_strength:
            continue
        result = strength(
            game, args.move_ms, args.tables, args.jobs, args.seed, iterations=args.iterations
        )
        result["load"] = os.getloadavg()[0]
        entry["strength"] = result
        say(
            f"{game}: {result['games']} games in {result['seconds']:.0f} s "
            f"(load {result['load']:.1f})"
        )
        for row in result["rankings"]:
            say(
                f"  {row['entrant']:18} Elo {row['elo']:6.0f} ± {row['margin']:3.0f}  "
                f"mean place {row['mean_place']:.2f}  wins {row['wins']}  faults {row['faults']}"
            )
        heuristic_name = result["rankings"][1]["entrant"]
        by_order = ", ".join(f"{gap:+.0f}" for gap in result["gap_by_order"])
        say(
            f"  ismcts - {heuristic_name}: {result['gap']:+.0f} ± {result['gap_margin']:.0f} Elo "
            f"(each seat order alone: {by_order})"
        )
    if args.json:
        print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
