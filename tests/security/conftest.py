"""Helpers for the hostile-bot tests: small tournaments with a rogue, and bounds on the referee.

``run_with_rogue`` plays a whole tournament of the toy game (the rogue against two well-behaved
bots, every pair at a table, both seat rotations: 6 games, 4 with the rogue) through the real
runner, store, hub, sandbox and process limits, in this process, while ``Bounds`` samples this
process's resident memory and measures the wall time: the referee is this process.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import msgpack
import pytest
import zmq

from arena.keys.seeds import new_key
from arena.procs import identity, memview
from arena.procs import sandbox as sandboxing
from arena.procs.botproc import BotSpec
from arena.procs.hub import Hub
from arena.procs.limits import Limits
from arena.procs.logs import bot_logs, read_log
from arena.procs.sandbox import SandboxMode
from arena.referee.record import Fault
from protocol.transport import curve_client
from tests.arena.conftest import bundled, hub, pool, rogue, toy  # noqa: F401 - fixtures
from tests.arena.toygame import install
from tournaments.catalogue.bot_sandbox import sandbox_for
from tournaments.plans.schedule import TournamentSpec, plan
from tournaments.run.playing import RunConfig, auto_games_per_worker
from tournaments.run.runner import RunSummary, run
from tournaments.store.facts import Store

#: Small limits so that every rogue's effect is quick and small.
LIMITS = Limits(
    move_ms=300,
    max_faults=2,
    startup_ms=1500,
    memory_mb=512,
    cpu_s=0,
    max_procs=32,
    log_bytes=64 * 1024,
)
ENTRANTS = ("rogue", "first", "random")
#: Resident memory the referee process may gain while a rogue plays (MB).
RSS_BOUND_MB = 64

needs_bwrap = pytest.mark.skipif(
    sandboxing.available() is None, reason="bubblewrap (bwrap) is not installed or does not work"
)


@dataclass
class Bounds:
    """Peak resident-memory growth (MB) and wall time (s) of this process over a block."""

    rss_mb: float = 0.0
    wall_s: float = 0.0


def _rss() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@contextmanager
def bounded() -> Iterator[Bounds]:
    """Measure this process's peak RSS growth and wall time while the block runs."""
    bounds = Bounds()
    base = _rss()
    peak = [base]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.02):
            peak[0] = max(peak[0], _rss())

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    started = time.monotonic()
    try:
        yield bounds
    finally:
        bounds.wall_s = time.monotonic() - started
        done.set()
        sampler.join()
        bounds.rss_mb = (max(peak[0], _rss()) - base) / 1e6


@dataclass
class Outcome:
    """What a tournament with a rogue gave: per game, the rogue's faults and forfeit."""

    summary: RunSummary
    bounds: Bounds
    rogue_games: list[tuple[list[Fault], bool]] = field(default_factory=list)
    other_faults: list[Fault] = field(default_factory=list)
    games: int = 0
    done: int = 0
    standings: int = 0
    log_dir: Path | None = None
    rogue_processes: int = 0  # the rogue's processes that played a game (process records)

    @property
    def kinds(self) -> list[list[str]]:
        return [[f.kind.value for f in faults] for faults, _ in self.rogue_games]

    @property
    def forfeits(self) -> list[bool]:
        return [forfeit for _, forfeit in self.rogue_games]

    def details(self) -> list[str]:
        return [f.detail for faults, _ in self.rogue_games for f in faults]

    def log(self) -> str:
        """Everything the rogue wrote (the text of its log files' lines, and the arena's notes
        there), one line each."""
        return "".join(
            line.text + "\n" for path in bot_logs(self.log_dir, "rogue") for line in read_log(path)
        )


def private_dir() -> Path:
    """A fresh folder outside /tmp (a sandboxed bot's /tmp is its own, so a test of hiding
    needs a folder the bot would otherwise see)."""
    root = Path(os.environ.get("ARENA_TEST_PRIVATE", "/var/tmp"))
    folder = root / f"arena-test-{uuid.uuid4().hex[:10]}"
    folder.mkdir(parents=True)
    return folder


@pytest.fixture
def private(tmp_path: Path) -> Iterator[Path]:
    folder = private_dir()
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def run_with_rogue(
    folder: Path,
    spec: BotSpec,
    *,
    limits: Limits = LIMITS,
    sandbox: SandboxMode | str = SandboxMode.AUTO,
    rounds: int = 2,
    hide: tuple[str, ...] = (),
    jobs: int = 1,
) -> Outcome:
    """Plan and run a tournament of the toy game with ``spec`` (entrant ``rogue``) against
    first and random, in this process (``jobs=1``) or in ``jobs`` worker processes."""
    game = install()
    options = {"rounds": rounds}
    db = folder / "arena.db"
    log_dir = folder / "arena-logs"
    tournament = TournamentSpec(
        game=game.name,
        options=options,
        bots=ENTRANTS,
        table_size=2,
        repetitions=1,
        seed=7,
        move_ms=limits.move_ms,
    )
    with Store.open(db) as store:
        key = new_key()
        tid = store.create_tournament(
            tournament,
            plan(tournament, game, key=key),
            {label: (label, "test") for label in ENTRANTS},
            key=key,
        )
        specs = {
            "rogue": BotSpec(name="rogue", argv=spec.argv, cwd=spec.cwd),
            "first": bundled("first"),
            "random": bundled("random"),
        }
        log_dir.mkdir(exist_ok=True)
        config = RunConfig(
            game=game,
            options=options,
            bots=specs,
            limits=limits,
            at_once=auto_games_per_worker(limits.move_ms),
            sandbox=sandbox_for(SandboxMode(sandbox), db, hide),  # as `arena tournament run`
            log_dir=log_dir,
        )
        with bounded() as bounds:
            summary = run(store, tid, config, jobs=jobs)
        outcome = Outcome(summary=summary, bounds=bounds, log_dir=log_dir)
        info = store.tournament(tid)
        outcome.games, outcome.done = info.games_total, info.games_done
        outcome.standings = len(store.results.standings(tid))
        ids = [
            row[0]
            for row in store.db.execute(
                "SELECT id FROM games WHERE tournament_id = ? ORDER BY plan_index", (tid,)
            )
        ]
        for game_id in ids:
            record = store.game(game_id).record
            seating = store.game(game_id).planned.seating
            for seat, label in enumerate(seating):
                faults = [f for f in record.faults if f.seat == seat]
                if label == "rogue":
                    outcome.rogue_games.append((faults, seat in record.forfeits))
                else:
                    outcome.other_faults += faults
        outcome.rogue_processes = store.db.execute(
            "SELECT COUNT(DISTINCT pg.process) FROM process_games pg JOIN processes p "
            "ON p.token = pg.process WHERE p.tournament_id = ? AND p.entrant = 'rogue'",
            (tid,),
        ).fetchone()[0]
    return outcome


def survivors(marker: str) -> list[int]:
    """Pids of live processes whose command line or environment holds ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                text = (entry / "cmdline").read_bytes() + (entry / "environ").read_bytes()
                state = (entry / "stat").read_bytes().rsplit(b")", 1)[1].split()[0]
            except (OSError, IndexError):
                continue
            if marker.encode() in text and state != b"Z":
                found.append(int(entry.name))
    return found


def dealer(endpoint: str, curve: tuple[str, str, str] | None = None) -> zmq.Socket:
    """A raw DEALER socket, as a bot (or an impostor) would connect."""
    sock = zmq.Context.instance().socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.SNDTIMEO, 200)  # a refused handshake leaves no pipe to send on
    if curve:
        curve_client(sock, server_key=curve[0], public_key=curve[1], secret_key=curve[2])
    sock.connect(endpoint)
    return sock


def replies(server: Hub, sock: zmq.Socket, ms: int = 400) -> list[dict]:
    """Run the hub ``server`` for ``ms`` and return what ``sock`` received meanwhile."""
    got, deadline = [], time.monotonic() + ms / 1000
    while time.monotonic() < deadline:
        server.receive(20)
        while sock.poll(0):
            got.append(msgpack.unpackb(sock.recv()))
    return got


def hello(token: str, protocol: int = 1) -> bytes:
    return msgpack.packb({"type": "hello", "protocol": protocol, "token": token, "name": "t"})


__all__ = [
    "LIMITS",
    "Outcome",
    "bounded",
    "dealer",
    "hello",
    "needs_bwrap",
    "replies",
    "rogue",
    "run_with_rogue",
    "survivors",
]


def leave_no_views() -> None:
    """End of an arena run as a bot's uid, which no process will have again: remove its store
    of memory-backed views (``arena.procs.memview``; the last process of a user to exit empties
    it, and leaves its empty folders). Nothing for any other user (root's arenas share one)."""
    if os.geteuid() < identity.USER_BASE:
        return
    store = memview.store()
    store.close()
    shutil.rmtree(store.root, ignore_errors=True)
