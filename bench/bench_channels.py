"""Benchmark (issue 33 §1): how much the state that outlives a phase carries from one phase to
the next, in bits per phase, in a real sandboxed tournament.

The processes of an entrant that play the rotations of a deal are never alive together
(``tournaments.run.phases``); what one of them leaves in the kernel's shared state is all that
can carry what it saw to the next. A rogue (written here, run as a command bot under
``--sandbox required``) plays Skull against ``random`` and ``first`` in a tournament of one deal
per batch (so every game is a phase of its own: many phase ends in a short run), and at the end
of each game tries two channels:

- **the process counter**: the kernel counts every process and thread ever started
  (``/proc/stat``, ``processes``); the writer starts processes until the count is ``v``
  modulo ``M`` (``v`` drawn at random, ``M = 512``), the next phase's process reads the count at
  its start. What lies between (the arena's and the machine's own starts) is the noise: the
  bits a reader gets right 95 % of the time are ``log2(M / W)``, ``W`` the narrowest window
  holding 95 % of the noise (0 bits when it reads nothing that depends on ``v``);
- **names looked up**: the writer looks up 500 names that do not exist in the folder of its C
  library (a kernel may keep "no such file" answers); the next process times the same names
  against 500 others (the difference of the medians, in ns: about 0 means nothing kept).

The figures come from this machine as it is (other programs start processes too): compare them
with ``--old`` (a checkout of older code) in the same run. Run:
python bench/bench_channels.py [--games 40] [--old PATH]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import tempfile
from pathlib import Path

from bench_throughput import measure_over  # bench/ is on the path when run as a script

HERE = Path(__file__).resolve().parent
#: The modulus of the process counter channel: a writer starts at most this many processes.
MODULUS = 512
NAMES = 500

ROGUE = r"""
import _thread, os, random, statistics, sys, threading, time
from protocol.sdk import Bot, run_bot

MODULUS, NAMES = int(sys.argv[1]), int(sys.argv[2])


def processes():
    try:
        with open("/proc/stat") as handle:
            for line in handle:
                if line.startswith("processes "):
                    return int(line.split()[1])
    except OSError:
        pass
    return -1


def folder():
    with open("/proc/self/maps") as handle:
        for line in handle:
            if "libc.so" in line:
                return os.path.dirname(line.split()[-1])
    return "/usr/lib"


def look(names):
    times = []
    for name in names:
        start = time.perf_counter_ns()
        try:
            os.stat(name)
        except OSError:
            pass
        times.append(time.perf_counter_ns() - start)
    return statistics.median(times)


start = processes()
where = folder()
tag = os.environ.get("ARENA_BOT_TAG", "t")
written = [f"{where}/no-{tag}-{i}" for i in range(NAMES)]
fresh = [f"{where}/no-{tag}-{random.random()}" for _ in range(NAMES)]
print("read", start, look(written), look(fresh), flush=True)


class Writer(Bot):
    def act(self, view, legal):
        return legal[0]

    def end(self, info):
        look(written)
        value = random.randrange(MODULUS)
        now = processes()
        for _ in range((value - now) % MODULUS if now >= 0 else 0):  # a thread counts as one
            done = threading.Lock()
            done.acquire()
            _thread.start_new_thread(done.release, ())
            done.acquire()
        print("wrote", value, processes(), flush=True)


run_bot(Writer, name="channels", max_games=1)
"""


def measure(games: int) -> dict:
    """Play the tournament over the code on the path; the rogue's log lines, in order."""
    from arena.games import get_game
    from arena.keys.seeds import new_key
    from arena.procs.botproc import BotSpec
    from arena.procs.limits import Limits
    from arena.procs.logs import bot_logs
    from arena.procs.sandbox import SandboxMode
    from tournaments.catalogue.bot_sandbox import sandbox_for
    from tournaments.catalogue.lookup import bundled_spec
    from tournaments.plans.schedule import TournamentSpec, plan
    from tournaments.run import phases
    from tournaments.run.playing import RunConfig
    from tournaments.run.runner import run
    from tournaments.store.facts import Store

    phases.MIN_DEALS, phases.WAVES = 1, 1  # a batch of one deal: each game a phase of its own
    folder = Path(tempfile.mkdtemp(prefix="bench-channels-"))
    os.chmod(folder, 0o755)
    script = folder / "rogue.py"
    script.write_text(ROGUE)
    script.chmod(0o644)
    db = folder / "data" / "bench.db"
    db.parent.mkdir()
    spec = TournamentSpec(
        game="skull", bots=("channels", "random", "first"), table_size=3, repetitions=games // 3
    )
    store = Store.open(db)
    key = new_key()
    labels = spec.entrant_bots()
    tid = store.create_tournament(
        spec, plan(spec, key=key), {e: (b, "bench") for e, b in labels.items()}, key=key
    )
    rogue = BotSpec(name="channels", argv=(sys.executable, str(script), str(MODULUS), str(NAMES)))
    specs = {
        label: rogue if bot == "channels" else bundled_spec(bot) for label, bot in labels.items()
    }
    config = RunConfig(
        game=get_game("skull"),
        options={},
        bots=specs,
        limits=Limits(move_ms=2000),
        at_once=1,
        sandbox=sandbox_for(SandboxMode.REQUIRED, db),
        log_dir=db.parent / "arena-logs",
    )
    summary = run(store, tid, config)
    store.close()
    texts = sorted(
        (
            line
            for path in bot_logs(db.parent / "arena-logs", "channels")
            for line in _stamped(path)
        ),
    )
    return {"phases": summary.phases, "lines": [text for _, text in texts]}


def _stamped(path: Path) -> list[tuple[str, str]]:
    from arena.procs.logs import read_log

    return [(line.at, line.text) for line in read_log(path) if not line.note]


def capacity(lines: list[str]) -> dict:
    """The channels' figures from the rogue's lines (a ``wrote`` before each next ``read``)."""
    noise, kept, reads = [], [], set()
    last = None
    for line in lines:
        words = line.split()
        if words[0] == "wrote":
            last = (int(words[1]), int(words[2]))
        elif words[0] == "read" and last is not None:
            value, _ = last
            reads.add(int(words[1]))
            noise.append((int(words[1]) - value) % MODULUS)
            kept.append(float(words[3]) - float(words[2]))
            last = None
    window = _window(noise) if len(reads) > 1 else MODULUS  # one value read: nothing heard
    return {
        "boundaries": len(noise),
        "noise_median": statistics.median(noise) if noise else None,
        "window95": window,
        "bits": max(0.0, math.log2(MODULUS / window)) if noise else None,
        "names_kept_ns": statistics.median(kept) if kept else None,
        "constant": len(reads) == 1,
    }


def _window(noise: list[int]) -> int:
    """The narrowest window (modulo ``MODULUS``) holding 95 % of ``noise``."""
    if not noise:
        return MODULUS
    need = math.ceil(0.95 * len(noise))
    values = sorted(noise)
    best = MODULUS
    for low in values:
        ahead = sorted((v - low) % MODULUS for v in values)
        best = min(best, ahead[need - 1] + 1)
    return best


def _run(code: Path, games: int) -> dict:
    return measure_over(Path(__file__), code, [str(games)])


def _show(label: str, found: dict) -> None:
    figures = capacity(found["lines"])
    bits = figures["bits"]
    print(f"{label}: {found['phases']} phases, {figures['boundaries']} phase ends measured")
    if bits is None:
        print("  process counter: nothing measured")
    elif figures["constant"]:
        print("  process counter: every process read the same count: 0 bits a phase")
    else:
        print(
            f"  process counter: noise median {figures['noise_median']}, 95 % within "
            f"{figures['window95']} of {MODULUS}: {bits:.1f} bits a phase"
        )
    print(f"  names looked up: kept by the kernel {figures['names_kept_ns']} ns faster")


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "--measure":
        print(json.dumps(measure(int(sys.argv[2]))))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="games, each a phase")
    parser.add_argument("--old", type=Path, default=None, help="older code to compare with")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}")
    _show("this code", _run(HERE.parent, args.games))
    if args.old is not None:
        _show("old code", _run(args.old, args.games))
    print(f"load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
