"""Tournaments on a real Dask cluster (``dask scheduler`` and ``dask worker`` on localhost).

Every test compares the stored results (actions, outcomes, ratings, rating history) with those
of a local ``--jobs 2`` run of the same plan: a cluster, a worker killed mid-run, the arena
killed and resumed, the scheduler gone and the run finished locally all give the same results.
One entrant is a folder bot, shipped to the workers as an archive. The arena's process records
show, after a killed and resumed run, that no process played a deal twice and that no two
processes of an entrant that played rotations of one deal were alive at once.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cluster.conftest import (
    ROOT,
    LocalCluster,
    start_cluster,
    still_running,
    warm_processes,
)
from tests.tournaments import create
from tests.tournaments.test_runner import cli, copy_database, create_skull, done_count, results
from tests.unchecked import add_unchecked
from tournaments.run.cluster import ACCEPT_UNSANDBOXED as ACCEPT
from tournaments.run.cluster import _Collector
from tournaments.run.phases import Phase
from tournaments.run.sink import Sink
from tournaments.store.facts import Store

pytest.importorskip("distributed")
pytestmark = pytest.mark.cluster

GAMES = 24

#: The folder bot: random legal moves (deterministic per game: the SDK seeds ``random``). On the
#: test clusters it takes its time (``ARENA_BOT_SEER_DELAY``), so that runs last long enough to
#: be cut short.
SEER = """\
import os, random, time
from protocol.sdk import Bot, run_bot

DELAY = float(os.environ.get("ARENA_BOT_SEER_DELAY", "0"))


class Seer(Bot):
    name = "seer"

    def act(self, view, legal):
        time.sleep(DELAY)
        return random.choice(legal)


run_bot(Seer())
"""


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """A database with the folder bot registered and a 24-game tournament planned."""
    folder = tmp_path_factory.mktemp("template")
    bot = folder / "seer"
    bot.mkdir()
    (bot / "bot.py").write_text(SEER)
    (bot / "bot.toml").write_text(
        f'name = "seer"\ncommand = "{sys.executable} bot.py"\ngames = ["skull"]\n'
    )
    os.chmod(folder, 0o755)
    db = folder / "arena.db"
    cli("bot", "add", str(bot), "--db", str(db))
    tid, _ = create(
        db, "seer,random,first,random", "--table-size", "3", "--rounds", "2", "--seed", "7"
    )
    return db, tid


def fresh(template: tuple[Path, int], folder: Path) -> Path:
    db = folder / "arena.db"
    copy_database(template[0], db)
    return db


@pytest.fixture(scope="module")
def local_results(template: tuple[Path, int], tmp_path_factory: pytest.TempPathFactory) -> dict:
    db = fresh(template, tmp_path_factory.mktemp("local"))
    tid = template[1]
    assert f"{GAMES}/{GAMES} games played" in cli(
        "tournament", "run", str(tid), "--jobs", "2", "--quiet", "--db", str(db)
    )
    return results(db, tid)


def arena(db: Path, tid: int, *extra: str) -> subprocess.Popen:
    """``arena tournament run`` in a process (session) of its own."""
    return subprocess.Popen(
        [sys.executable, "-m", "arena", "-v", "tournament", "run", str(tid), "--quiet"]
        + ["--db", str(db), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


def finish(proc: subprocess.Popen, timeout: float = 180) -> tuple[int, str]:
    """Wait for an arena started by ``arena``: its exit status and what it logged (a run
    that does not end is killed, and the test fails with its log)."""
    try:
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        _, err = proc.communicate()
        pytest.fail(f"the arena did not finish in {timeout} s:\n{err.decode()}")
    return proc.returncode, err.decode()


def wait_done(db: Path, tid: int, count: int, proc: subprocess.Popen) -> int:
    """Wait until ``count`` games are recorded (or the run ended); how many are."""
    deadline = time.monotonic() + 120
    while done_count(db, tid) < count and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    return done_count(db, tid)


def test_a_cluster_run_stores_what_a_local_run_does(
    cluster: LocalCluster,
    template: tuple[Path, int],
    local_results: dict,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """... and its workers start the bundled bots warm: after each barrier but the last, the
    next phase's processes wait ready (where a bot could not reach them), and play it."""
    barriers: list[dict[str, tuple[bool, dict[str, tuple[int, str]]]]] = []
    barrier = _Collector._end_phase

    def watched(self: _Collector, phase: Phase, sink: Sink) -> None:
        barrier(self, phase, sink)
        barriers.append(self.client.run(warm_processes, self.run_id))

    monkeypatch.setattr(_Collector, "_end_phase", watched)
    db, tid = fresh(template, tmp_path), template[1]
    out = cli(
        "tournament", "run", str(tid), "--cluster", cluster.address, "--jobs", "2",
        "--sandbox", "auto", ACCEPT, "--db", str(db),
    )  # fmt: skip
    assert f"{GAMES}/{GAMES} games played" in out
    assert results(db, tid) == local_results
    with Store.open(db) as store:
        assert all(row.faults == 0 for row in store.results.standings(tid))  # the folder bot played
        played = {record.pid for record in store.processes.of(tid)}
    warm = [
        {pid: cmd for _, waiting in answers.values() for pid, cmd in waiting.values()}
        for answers in barriers
    ]
    assert len(warm) == 3, "one phase per rotation"
    if any(can for answers in barriers for can, _ in answers.values()):
        assert all(warm[:-1]) and warm[-1] == {}, "ready for every phase but the first"
        assert all("arena.procs.warm" in cmd for ready in warm for cmd in ready.values())
        assert set(warm[0]) & played and set(warm[1]) & played, "the ones made ready played"
    else:  # unsandboxed as an ordinary user a bot could reach a waiting process: none is made
        assert warm == [{}, {}, {}]
    assert still_running(played.union(*warm)) == set(), "nothing of the run is left"


def test_independent_deals_on_a_cluster_store_what_a_local_run_does(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    """A tournament with independent deals (every game its own deal) plays on the cluster as
    it does locally, in one phase (no rotation to keep apart)."""
    local, remote = tmp_path / "local.db", tmp_path / "cluster.db"
    tid, total = create_skull(local, 2, "--deals", "independent"), 2 * 4 * 3
    copy_database(local, remote)
    cli("tournament", "run", str(tid), "--jobs", "2", "--quiet", "--db", str(local))
    out = cli(
        "tournament", "run", str(tid), "--cluster", cluster.address, "--jobs", "2",
        "--sandbox", "auto", ACCEPT, "--db", str(remote),
    )  # fmt: skip
    assert f"{total}/{total} games played" in out
    assert results(remote, tid) == results(local, tid)
    with Store.open(remote) as store:
        assert len({record.phase for record in store.processes.of(tid)}) == 1
        assert store.processes.shared_deal_overlaps(tid) == []


def test_a_killed_worker_loses_nothing(
    template: tuple[Path, int], local_results: dict, tmp_path: Path
) -> None:
    own = start_cluster(tmp_path / "cluster")
    try:
        db, tid = fresh(template, tmp_path), template[1]
        proc = arena(  # one game at a time: still going when the kill comes
            db, tid, "--cluster", own.address, "--games-per-worker", "1", "--sandbox", "auto",
            ACCEPT,
        )  # fmt: skip
        assert wait_done(db, tid, 4, proc) < GAMES
        own.kill(own.workers[0])
        code, log = finish(proc)
        assert code == 0, log
    finally:
        own.close()
    assert results(db, tid) == local_results


def test_a_resumed_run_finishes_and_its_process_records_pass_the_audit(
    cluster: LocalCluster, template: tuple[Path, int], local_results: dict, tmp_path: Path
) -> None:
    db, tid = fresh(template, tmp_path), template[1]
    proc = arena(  # one game at a time a worker: in play for seconds after the fifth ends
        db, tid, "--cluster", cluster.address, "--sandbox", "off", ACCEPT, "--jobs", "2",
        "--games-per-worker", "1",
    )  # fmt: skip
    assert wait_done(db, tid, 5, proc) < GAMES
    playing: tuple = ()  # the games handed to the workers, as the run's beat wrote them
    deadline = time.monotonic() + 60
    while not playing and proc.poll() is None and time.monotonic() < deadline:
        with Store.open(db) as store:
            pending = {gid for gid, _ in store.pending_games(tid)}  # first: games only end
            playing = store.runs.in_play(tid)
        time.sleep(0.1)
    assert playing and {game.game_id for game in playing} <= pending
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(30)
    out = cli(
        "tournament", "run", str(tid), "--cluster", cluster.address, "--sandbox", "off", ACCEPT,
        "--quiet", "--db", str(db),
    )  # fmt: skip
    assert f"{GAMES}/{GAMES} games played" in out
    assert results(db, tid) == local_results
    with Store.open(db) as store:
        assert store.runs.in_play(tid) == () and store.runs.last(tid).in_play == ()
        assert store.processes.shared_deal_overlaps(tid) == []
        records = store.processes.of(tid)
        seated = store.db.execute(
            "SELECT COUNT(*), COUNT(DISTINCT process) FROM process_games pg "
            "JOIN games g ON g.id = pg.game_id WHERE g.tournament_id = ?",
            (tid,),
        ).fetchone()
    assert seated[0] == 3 * GAMES, "every seat of every game names its process"
    assert all(r.host.startswith("tcp://127.0.0.1:") for r in records), "workers' processes"
    assert len({r.run for r in records}) == 2, "the killed run's and the resumed run's"
    assert all(r.ended_at is not None for r in records)
    assert all(r.confirmed for r in records if r.run == records[-1].run)


def test_the_scheduler_gone_stops_the_run_and_a_run_again_finishes(
    template: tuple[Path, int], local_results: dict, tmp_path: Path
) -> None:
    own = start_cluster(tmp_path / "cluster", workers=1)
    try:
        db, tid = fresh(template, tmp_path), template[1]
        proc = arena(  # one game at a time: still going when the kill comes
            db, tid, "--cluster", own.address, "--games-per-worker", "1", "--sandbox", "auto",
            ACCEPT,
        )  # fmt: skip
        assert wait_done(db, tid, 3, proc) < GAMES
        own.kill(own.scheduler)
        code, message = finish(proc, 120)
    finally:
        own.close()
    assert code == 1, message
    assert "lost the Dask scheduler" in message and "again to finish" in message, message
    assert "Traceback" not in message
    cli("tournament", "run", str(tid), "--quiet", "--db", str(db))
    assert results(db, tid) == local_results


def test_a_worker_that_lacks_a_command_bot_file_a_sandbox_or_the_version_is_named(
    tmp_path: Path,
) -> None:
    own = start_cluster(tmp_path / "cluster", workers=0)
    own.env["PATH"] = str(Path(sys.executable).parent)  # no bubblewrap on this worker's PATH
    own.add_worker("nobwrap")
    other = tmp_path / "other"  # another version of the arena: one source file differs
    for package in ("arena", "protocol", "tournaments", "bots"):
        shutil.copytree(ROOT / package, other / package, ignore=shutil.ignore_patterns("*.pyc"))
    with open(other / "arena" / "text.py", "a") as file:
        file.write("# changed\n")
    own.env = dict(own.env, PYTHONPATH=str(other))
    own.add_worker("other")
    own.wait_for(2)
    try:
        db = tmp_path / "arena.db"
        script = tmp_path / "cmdbot.py"
        with Store.open(db) as store:
            add_unchecked(store, "cmdbot", [sys.executable, str(script)])
        out = cli(
            "tournament", "create", "--game", "skull", "--bots", "cmdbot,random,first",
            "--seed", "1", "--json", "--db", str(db),
        )  # fmt: skip
        tid = json.loads(out)["id"]
        proc = arena(db, tid, "--cluster", own.address)  # --sandbox required: the default
        code, message = finish(proc, 120)
    finally:
        own.close()
    assert code == 1 and "Traceback" not in message, message
    assert message.count("worker tcp://127.0.0.1:") >= 3  # each problem names its worker
    assert "runs arena 0.1.0, protocol 1, source" in message  # the other version
    assert f"lacks {script} (bot cmdbot)" in message
    assert "cannot sandbox bots" in message and "bubblewrap (bwrap) is not installed" in message
    assert done_count(db, tid) == 0


def test_a_worker_never_plays_a_game_twice_in_a_run_and_a_closed_run_plays_nothing(
    cluster: LocalCluster, template: tuple[Path, int]
) -> None:
    from distributed import Client

    from arena.games import get_game
    from arena.procs.limits import Limits
    from arena.procs.sandbox import SandboxMode
    from tournaments.catalogue.lookup import Catalogue
    from tournaments.catalogue.shipping import ship
    from tournaments.run.cluster_worker import ClusterRun, RunPlugin, play_games
    from tournaments.run.playing import RunConfig

    with Store.open(template[0]) as store:
        game_id, planned = store.pending_games(template[1])[0]
    run = ClusterRun(
        run_id="duplicate-test",
        config=RunConfig(
            game=get_game("skull"), options={}, bots={}, limits=Limits(move_ms=2000), at_once=1
        ),
        bots={label: ship(Catalogue({}), "random") for label in planned.seating},
        sandbox=SandboxMode.OFF,
    )
    with Client(cluster.address, timeout=30) as client:
        worker = sorted(client.scheduler_info()["workers"])[0]
        client.register_plugin(RunPlugin(run), name="arena-run-duplicate-test")
        answers = [
            client.submit(
                play_games,
                run.run_id,
                0,
                planned.seating,
                [(game_id, planned)],
                workers=[worker],
                pure=False,
            ).result()  # fmt: skip
            for _ in range(2)
        ]
        client.unregister_worker_plugin("arena-run-duplicate-test")
        assert answers[0].played[0].record is not None and answers[0].refused == ()
        assert answers[1].refused == (game_id,) and answers[1].played == ()
        late = client.submit(
            play_games, run.run_id, 0, planned.seating, [(game_id, planned)],
            workers=[worker], pure=False,
        )  # fmt: skip
        with pytest.raises(Exception, match="not open on this worker"):
            late.result()
