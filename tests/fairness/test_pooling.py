"""The processes of one entrant cannot pool what they saw of a deal: real tournaments in every
mode, with a rogue that tries (``tests/rogues/pooler.py``), and the arena's process records.

Each seat rotation of a deal is played by another process of an entrant; between them they
hold every hand of it. The rogue's processes publish what they see of each Skull King deal on
a channel that works whenever they are alive at once (byte-range locks on a file they can all
read, sandboxed or not; a file in ``/dev/shm``, or an abstract unix socket, unsandboxed), find
the processes playing the other rotations of their deal by its cards, and name their
opponents' cards at each bidding. With processes of two rotations of a deal alive together,
it names most of them (``pooling.Evidence``); with the arena's phases it can name no more than
a bot knowing only its own hand. The process records show why: no two processes of an
entrant that played rotations of one deal were ever alive at the same moment.

Some channels outlive every process, whoever made them: unsandboxed as root, the IPC rogue
(``tests/rogues/ipcpool.py``) keeps its records in a System V segment it gives away to another
uid, or in a POSIX message queue; each bot process's own IPC namespace takes them with it, and
where none can be made, the segment is removed by its creator.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from arena.games import get_game
from arena.procs import ipc_namespaces
from arena.procs.limits import Limits
from arena.procs.sandbox import SandboxMode
from tests.fairness import pooling, with_rogue
from tests.unchecked import add_unchecked
from tournaments.catalogue.bot_sandbox import sandbox_for
from tournaments.ladder import service as ladder_service
from tournaments.plans.schedule import TournamentSpec
from tournaments.run.playing import RunConfig, auto_games_per_worker
from tournaments.run.runner import RunSummary, Workers, run
from tournaments.service import RunOptions
from tournaments.store.facts import Store
from tournaments.store.ladder_values import LadderSettings

ROOT = Path(__file__).resolve().parents[2]
GAME = "skull-king"
MOVE_MS = 2000
#: Unsandboxed, an ordinary user's bots all run as the arena's user: what one writes in /tmp
#: outlives it (docs/security.md); as root each runs as a uid of its own, whose files go with it.
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="unsandboxed bots are separated as root")


def audit(store: Store, tid: int) -> None:
    """The process records hold every seat of every game, every process ended and seen gone,
    and no two processes of an entrant that played rotations of one deal alive together."""
    info = store.tournament(tid)
    seated = store.db.execute(
        "SELECT COUNT(*) FROM process_games pg JOIN games g ON g.id = pg.game_id "
        "WHERE g.tournament_id = ?",
        (tid,),
    ).fetchone()[0]
    assert seated == info.games_done * info.spec.table_size
    records = store.processes.of(tid)
    assert records and all(r.ended_at is not None and r.confirmed for r in records)
    assert all(r.started_at < r.ended_at for r in records)
    assert store.processes.shared_deal_overlaps(tid) == []
    rotations_of_a_deal = store.db.execute(
        "SELECT COUNT(*) FROM (SELECT p.entrant, g.deal_seed FROM process_games pg "
        "JOIN processes p ON p.token = pg.process JOIN games g ON g.id = pg.game_id "
        "WHERE g.tournament_id = ? GROUP BY p.entrant, g.deal_seed "
        "HAVING COUNT(DISTINCT p.token) > 1)",
        (tid,),
    ).fetchone()[0]
    assert rotations_of_a_deal > 0, "the audit can fail: entrants did play deals repeatedly"


def tournament(
    folder: Path,
    jobs: int,
    at_once: int | None,
    sandbox: str,
    workers: Workers | None = None,
    *,
    warm: bool = False,
    channel: str = "lock",
) -> tuple[Store, int, RunSummary]:
    """A Skull King round robin of the rogue, random and first (three deals, every rotation),
    run in this process (``jobs`` 1) or in worker processes (``workers``: kept ones); ``warm``:
    the rogue's processes are made ready ahead of their phase, as the bundled bots' are;
    ``channel`` chooses the rogue (``pooling.spec``)."""
    db = folder / "arena.db"
    spec = TournamentSpec(
        game=GAME, bots=(pooling.NAME, "random", "first"), table_size=3, repetitions=3, seed=5
    )
    store, tid, specs = with_rogue(db, spec, pooling.spec(warm=warm, channel=channel))
    config = RunConfig(
        game=get_game(GAME),
        options=get_game(GAME).parse_options({}),
        bots=specs,
        limits=Limits(move_ms=MOVE_MS),
        at_once=at_once or auto_games_per_worker(MOVE_MS),
        sandbox=sandbox_for(SandboxMode(sandbox), db),  # as `arena tournament run`
        log_dir=folder / "arena-logs",
    )
    summary = run(store, tid, config, jobs=jobs, workers=workers)
    assert summary.failed == () and summary.done == 9
    return store, tid, summary


@pytest.mark.parametrize(
    ("channel", "jobs", "at_once", "sandbox", "warm"),
    [
        pytest.param("lock", 1, None, "auto", False, id="locks-games-at-once"),
        pytest.param("lock", 2, None, "auto", False, id="locks-two-jobs"),
        pytest.param("lock", 1, 1, "auto", False, id="locks-one-game-at-a-time"),
        pytest.param("lock", 1, None, "off", False, id="locks-unsandboxed"),
        pytest.param("file", 1, None, "off", False, id="shm-file-unsandboxed", marks=as_root),
        pytest.param(
            "socket", 2, None, "off", False, id="abstract-socket-unsandboxed", marks=as_root
        ),
        pytest.param("lock", 1, None, "auto", True, id="locks-warm-starts"),
        pytest.param("socket", 2, None, "off", True, id="socket-warm-unsandboxed", marks=as_root),
        pytest.param(
            "sysv", 1, None, "off", False, id="sysv-given-away-unsandboxed", marks=as_root
        ),
        pytest.param("sysv", 2, None, "off", False, id="sysv-given-away-two-jobs", marks=as_root),
        pytest.param("mqueue", 1, None, "off", False, id="mqueue-unsandboxed", marks=as_root),
        pytest.param("mqueue", 2, None, "off", False, id="mqueue-two-jobs", marks=as_root),
    ],
)
def test_processes_of_an_entrant_cannot_pool_a_deal(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    channel: str,
    jobs: int,
    at_once: int | None,
    sandbox: str,
    warm: bool,
) -> None:
    tag = uuid.uuid4().hex[:12]
    for name, value in pooling.environment(channel, tag).items():
        monkeypatch.setenv(name, value)
    try:
        store, tid, summary = tournament(
            tmp_path, jobs, at_once, sandbox, warm=warm, channel=channel
        )
    finally:
        left = pooling.ipc_left(tag) if channel in pooling.IPC_CHANNELS else []
    assert left == [], "what the bot made in System V IPC or a POSIX queue died with it"
    started = pooling.command_lines(tmp_path / "arena-logs")
    assert len(started) >= summary.phases, "a process of the rogue in every phase"
    warmed = [line for line in started if "arena.procs.warm" in line]
    if warm:  # made ready during the phase before: every phase but the first
        assert len(warmed) >= summary.phases - 1, started
    else:
        assert warmed == [], started
    with store:
        evidence = pooling.evidence(store, tid, tmp_path / "arena-logs")
        assert evidence.biddings == 3 * 3 * 10, "the rogue bid in every round of its games"
        assert evidence.z < pooling.BOUND, f"the rogue's processes pooled a deal: {evidence}"
        assert summary.phases == 3, "one batch of three deals, rotation by rotation"
        audit(store, tid)
    if channel != "lock":  # locks are denied by the system-call filter where it works
        # the channel works here: nothing denied it (a peer reset by a phase's end is not
        # the channel failing, it is the phases doing their job)
        denied = [
            line
            for line in pooling.channel_errors(tmp_path / "arena-logs")
            if "PermissionError" in line or "not permitted" in line or "No locks" in line
        ]
        assert denied == [], "the channel works here"


@as_root
def test_without_ipc_namespaces_a_given_away_segment_goes_by_its_creator(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where bots cannot get IPC namespaces (root without CAP_SYS_ADMIN), the segment the
    rogue gave to another uid is removed at each phase's end by its creator's uid."""
    monkeypatch.setattr(ipc_namespaces, "problem", lambda: "none in this test")
    tag = uuid.uuid4().hex[:12]
    for name, value in pooling.environment("sysv", tag).items():
        monkeypatch.setenv(name, value)
    try:
        store, tid, _ = tournament(tmp_path, 1, None, "off", channel="sysv")
    finally:
        left = pooling.ipc_left(tag)
    assert left == [], "the segment is removed"
    with store:
        evidence = pooling.evidence(store, tid, tmp_path / "arena-logs")
        assert evidence.z < pooling.BOUND, f"the rogue's processes pooled a deal: {evidence}"
        audit(store, tid)


def test_a_match_gives_them_no_more(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with Store.open(db) as store:
        add_unchecked(store, pooling.NAME, pooling.spec().argv, games=[GAME])
    env = dict(os.environ, **pooling.environment("lock", uuid.uuid4().hex[:12]))
    done = subprocess.run(
        [sys.executable, "-m", "arena", "match", pooling.NAME, "random", "--game", GAME,
         "--fill", "first", "--table-size", "3", "--games", "18", "--json", "--db", str(db)],
        capture_output=True, text=True, timeout=300, cwd=ROOT, env=env, check=False,
    )  # fmt: skip
    assert done.returncode in (0, 1, 2) and done.stdout, done.stderr
    tid = json.loads(done.stdout)["match"]
    with Store.open(db) as store:
        evidence = pooling.evidence(store, tid, db.parent / "arena-logs")
        assert evidence.biddings == 3 * 6 * 10  # three deals, each in six seatings
        assert evidence.z < pooling.BOUND, f"the rogue's processes pooled a deal: {evidence}"
        audit(store, tid)


def test_kept_workers_play_run_after_run_and_keep_the_phases(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ladder plays its batches, each a run, on the same worker processes
    (``runner.Workers``): the workers outlive a run, its bot processes do not. Each run's
    rogue pools nothing, its audit passes, its processes are its own; workers that cannot go
    on (one killed between runs) are replaced."""
    for name, value in pooling.environment("lock", uuid.uuid4().hex[:12]).items():
        monkeypatch.setenv(name, value)
    seen: list[tuple[int, ...]] = []
    runs: set[str] = set()
    with Workers() as workers:
        for number in range(3):
            folder = tmp_path / f"run{number}"
            folder.mkdir()
            store, tid, summary = tournament(folder, 2, None, "auto", workers)
            with store:
                evidence = pooling.evidence(store, tid, folder / "arena-logs")
                assert evidence.z < pooling.BOUND, (
                    f"the rogue's processes pooled a deal: {evidence}"
                )
                audit(store, tid)
                records = store.processes.of(tid)
                assert summary.processes_started == len(records)
                ids = {record.run for record in records}
                assert len(ids) == 1 and not ids & runs, "each run's processes are its own"
                runs |= ids
            seen.append(workers.pids)
            if number == 1:
                os.kill(workers.pids[0], signal.SIGKILL)
                stat = Path(f"/proc/{workers.pids[0]}/stat")
                while stat.read_text().rpartition(")")[2].split()[0] != "Z":
                    time.sleep(0.01)  # dead (not yet reaped): the next run sees it
    assert len(seen[0]) == 2 and seen[1] == seen[0], "the second run played on the same workers"
    assert not set(seen[2]) & set(seen[1]), "workers that cannot go on are replaced"
    assert workers.pids == ()


@as_root
@pytest.mark.parametrize(("channel", "jobs"), [("sysv", 1), ("mqueue", 2)])
def test_a_ladder_batch_gives_the_ipc_rogue_nothing_unsandboxed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, channel: str, jobs: int
) -> None:
    """A ladder's batch is a run like any other: the IPC rogue, entered as a folder bot (not
    uploaded: uploaded code never runs unsandboxed), pools nothing with ``--sandbox off``."""
    folder = tmp_path / "pooler"
    folder.mkdir(mode=0o755)
    for name in ("ipcpool.py", "pooler.py", "_wire.py"):
        (folder / name).write_bytes((pooling.ROGUE.parent / name).read_bytes())
        (folder / name).chmod(0o644)
    (folder / "bot.toml").write_text(
        f'name = "{pooling.NAME}"\ncommand = "{sys.executable} ipcpool.py"\ngames = ["{GAME}"]\n'
    )
    db = tmp_path / "data" / "arena.db"
    db.parent.mkdir()
    tag = uuid.uuid4().hex[:12]
    for name, value in pooling.environment(channel, tag).items():
        monkeypatch.setenv(name, value)
    with Store.open(db) as store:
        ladder_service.create_ladder(
            store, name="skk", game_name=GAME, table_sizes="3", options={}, move_ms=MOVE_MS,
            settings=LadderSettings(batch_games=18),
        )  # fmt: skip
        for bot in (str(folder), "random", "first"):
            ladder_service.submit(store, "skk", bot, sandbox=SandboxMode.OFF)
    try:
        with Store.open(db) as store:
            ladder_service.run_ladder(
                store, "skk", RunOptions(sandbox=SandboxMode.OFF), jobs=jobs, until_games=18
            )
    finally:
        left = pooling.ipc_left(tag)
    assert left == [], "what the bot made in System V IPC or a POSIX queue died with it"
    with Store.open(db) as store:
        (tid,) = [t for (t,) in store.db.execute("SELECT tournament_id FROM ladder_batches")]
        evidence = pooling.evidence(store, tid, db.parent / "arena-logs")
        assert evidence.biddings >= 6 * 10, "the rogue bid in every round of its games"
        assert evidence.z < pooling.BOUND, f"the rogue's processes pooled a deal: {evidence}"
        audit(store, tid)
