"""Benchmark (issue 23 §7): start-up as a newcomer meets it, this tree against another.

Times whole commands from outside, wall clock, each in a fresh temporary folder (``arena demo``
writes its database there): ``arena --help``, ``arena games``, ``arena play skull`` among four
``random`` bots and ``arena demo -q``. Each round runs every command once with this tree and
once with ``--old`` (a checkout of older code, e.g. made with ``git worktree add``), alternated
so that both see the same machine; the medians, and the median of the per-round ratios, are
printed with the load average before and after.

Both trees are copied into a temporary folder first (without their ``__pycache__``), so that
both run from the same kind of place and start alike: their compiled modules are then cached
beside their sources by a first, untimed run of each command, as for an installed arena (the
bot processes read those caches too). ``--compile`` sets ``PYTHONDONTWRITEBYTECODE`` instead:
every module is compiled at every start, in the arena and in its bots.

Run: python bench/bench_startup.py --old PATH [--rounds 5] [--only demo,play]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: The commands timed, by name: the arguments after ``python -m arena``.
COMMANDS: dict[str, tuple[str, ...]] = {
    "help": ("--help",),
    "games": ("games",),
    "play": ("play", "skull", *("--bot", "random") * 4, "--seed", "1", "--sandbox", "required"),
    "demo": ("demo", "-q", "--db", "demo.db"),
}


def run_once(tree: Path, args: tuple[str, ...], compile_all: bool) -> float:
    """Wall seconds of ``python -m arena ARGS`` with ``tree`` first on the path, in a fresh
    folder (``compile_all``: no compiled module written). Raises if the command fails."""
    folder = tempfile.mkdtemp(prefix="bench-startup-")
    env = dict(os.environ, PYTHONPATH=str(tree))
    for name in ("ARENA_DB", "PYTHONPYCACHEPREFIX", "PYTHONDONTWRITEBYTECODE"):
        env.pop(name, None)
    if compile_all:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    try:
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "arena", *args],
            cwd=folder,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
        elapsed = time.perf_counter() - started
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if done.returncode != 0:
        raise SystemExit(f"{tree}: arena {' '.join(args)} failed: {done.stderr.strip()[-400:]}")
    return elapsed


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, required=True, help="the other tree (the baseline)")
    parser.add_argument("--new", type=Path, default=ROOT, help="default: this tree")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", default=",".join(COMMANDS), help="commands, comma-separated")
    parser.add_argument(
        "--compile", action="store_true", help="compile every module at every start"
    )
    args = parser.parse_args()
    names = [name.strip() for name in args.only.split(",") if name.strip()]
    unknown = [name for name in names if name not in COMMANDS]
    if unknown:
        parser.error(f"unknown command(s): {', '.join(unknown)}; known: {', '.join(COMMANDS)}")
    print(f"new: {args.new.resolve()}\nold: {args.old.resolve()}\nload before: {load()}")
    copies = Path(tempfile.mkdtemp(prefix="bench-startup-trees-"))
    skip = shutil.ignore_patterns("__pycache__", ".git", "*.db*", "arena-logs", "node_modules")
    new_tree, old_tree = copies / "new", copies / "old"
    shutil.copytree(args.new, new_tree, ignore=skip)
    shutil.copytree(args.old, old_tree, ignore=skip)
    for name in names:
        run_once(new_tree, COMMANDS[name], args.compile)  # caches what both compile
        run_once(old_tree, COMMANDS[name], args.compile)
        new, old = [], []
        for _ in range(args.rounds):
            new.append(run_once(new_tree, COMMANDS[name], args.compile))
            old.append(run_once(old_tree, COMMANDS[name], args.compile))
        ratios = [n / o for n, o in zip(new, old, strict=True)]
        print(
            f"arena {name:6s} new {statistics.median(new):6.2f} s "
            f"[{min(new):.2f}-{max(new):.2f}]  old {statistics.median(old):6.2f} s "
            f"[{min(old):.2f}-{max(old):.2f}]  new/old {statistics.median(ratios):.2f}  "
            f"(load {load()})"
        )
    shutil.rmtree(copies, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
