"""Warm starts (``arena.procs.warm``): a bot's process made ready ahead of its turn runs none of
the bot's code until the pool releases it, is then the process that plays, and ends unused
without running it. Real processes, as root a uid of their own (unsandboxed: the scratch folder
a test can read is the bot's ``TMPDIR``)."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.errors import BotStartError
from arena.procs import identity
from arena.procs.botproc import BotSpec
from arena.procs.hub import Hub
from arena.procs.logs import log_texts
from arena.procs.pool import BotPool
from arena.procs.warm import exit_status
from tests.arena.conftest import ROGUES

#: The probe, as a module the pool may start warm.
EARLY = BotSpec("early", (sys.executable, "-m", "early"), cwd=str(ROGUES), warm=True)
#: How long a warm process may take to get ready (load the SDK) on a loaded machine.
READY_S = 30


def waiting(pid: int) -> bool:
    """Whether process ``pid`` sleeps reading a pipe (a warm process waiting for its release)."""
    try:
        return "pipe" in Path(f"/proc/{pid}/wchan").read_text()
    except OSError:
        return False


def ready(pool: BotPool, key: str) -> int:
    """The pid of ``key``'s warm process once it waits for its release (none of its bot's
    code having run meanwhile)."""
    pid = pool.warm[key].popen.pid
    deadline = time.monotonic() + READY_S
    while not waiting(pid):
        assert not marker(pool.warm[key].scratch).exists(), "the bot's code ran unreleased"
        assert pool.warm[key].running(), "the warm process died"
        assert time.monotonic() < deadline, "the warm process never got ready"
        time.sleep(0.02)
    return pid


def marker(scratch: str | None) -> Path:
    assert scratch is not None
    return Path(scratch) / "ran"


needs_own_user = pytest.mark.skipif(
    not identity.separate_users(),
    reason="unsandboxed, warm starts need a uid of their own per bot: run as root",
)


@pytest.fixture
def pool(tmp_path: Path) -> Iterator[BotPool]:
    """A pool of unsandboxed processes (each, as root, a uid of its own)."""
    hub = Hub()
    try:
        with BotPool(hub, startup_ms=20_000, log_dir=tmp_path / "logs") as pool:
            yield pool
    finally:
        hub.close()


@needs_own_user
def test_a_warm_start_runs_no_bot_code_until_released(pool: BotPool) -> None:
    pool.prewarm([("k", EARLY)])
    pid = ready(pool, "k")
    scratch = pool.warm["k"].scratch
    assert not marker(scratch).exists(), "the bot's code ran before its release"
    assert pool.procs == {} and pool.started == 0, "a warm process is not the pool's yet"
    released = time.time()
    (proc,) = pool.get([("k", EARLY)])
    assert proc.popen.pid == pid, "the process released is the one made ready"
    assert proc.peer is not None, "it said hello"
    ran_pid, ran_at = marker(scratch).read_text().split()
    assert int(ran_pid) == pid and float(ran_at) >= released >= proc.started_wall - 1
    assert pool.warm == {} and pool.started == 1


@needs_own_user
def test_a_warm_process_waits_beside_the_one_before_it_and_shares_its_log(
    pool: BotPool,
) -> None:
    (first,) = pool.get([("k", EARLY)])
    pool.prewarm([("k", EARLY)])
    ready(pool, "k")
    warm = pool.warm["k"]
    assert warm.hub_label != first.hub_label, "each has its own door on the hub"
    assert not marker(warm.scratch).exists()
    pool.end_local()
    assert not first.running() and warm.running(), "a phase's end leaves the next one's"
    (second,) = pool.get([("k", EARLY)])
    assert second is warm and second.peer is not None and pool.started == 2
    assert marker(second.scratch).exists()
    pool.end_local()
    lines = [line.split() for line in log_texts(first.log_path)]
    assert first.log_path == second.log_path
    pids = [str(first.popen.pid), str(second.popen.pid)]
    assert [pid for word, pid in lines if word == "ran"] == pids, "one log, in turn"
    assert [pid for word, pid in lines if word == "exits"] == pids, "exit handlers ran"
    assert second.popen.returncode == 0 == first.popen.returncode, "each exited, not killed"


@needs_own_user
def test_a_warm_process_never_released_ends_without_running_its_bot(pool: BotPool) -> None:
    pool.prewarm([("k", EARLY)])
    pid = ready(pool, "k")
    warm = pool.warm["k"]
    pool.close()
    assert warm.popen.poll() is not None, "it is gone"
    assert not Path(f"/proc/{pid}").exists() or not waiting(pid)
    assert pool.started == 0 and pool.warm == {}
    assert [line for line in log_texts(warm.log_path) if line.startswith("ran")] == []


def test_no_warm_start_where_a_bot_could_reach_the_waiting_one(
    pool: BotPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Unsandboxed as an ordinary user every bot runs as the arena's user: one could write
    into a waiting process, so none is made (the process starts when needed, as ever)."""
    monkeypatch.setattr(identity, "separate_users", lambda: False)
    pool.prewarm([("k", EARLY)])
    assert pool.warm == {}
    monkeypatch.undo()
    plain = BotSpec("early", EARLY.argv, cwd=EARLY.cwd)
    pool.prewarm([("k", plain)])
    assert pool.warm == {}, "nor for a bot that is not a warm one"


@needs_own_user
def test_a_key_asked_for_another_bot_ends_its_warm_process_unreleased(pool: BotPool) -> None:
    pool.prewarm([("k", EARLY)])
    pid = ready(pool, "k")
    warm = pool.warm["k"]
    other = BotSpec("early", EARLY.argv, cwd=EARLY.cwd)  # not the bot made ready
    (proc,) = pool.get([("k", other)])
    assert proc.popen.pid != pid and proc.peer is not None
    assert warm.popen.poll() is not None and pool.warm == {}
    pool.end_local()  # (its output drained to the end: the log is read once it is gone)
    ran = [line for line in log_texts(proc.log_path) if line.startswith("ran")]
    assert ran == [f"ran {proc.popen.pid}"], "only the new process ran the bot"


def test_a_warm_process_exits_with_its_bots_status(capsys: pytest.CaptureFixture[str]) -> None:
    assert [exit_status(code) for code in (None, 0, 3, 258)] == [0, 0, 3, 2]
    assert exit_status("the arena refused me") == 1
    assert capsys.readouterr().err == "the arena refused me\n", (
        "a message is printed, as Python does"
    )


@needs_own_user
def test_a_closed_pool_starts_nothing(tmp_path: Path) -> None:
    """A run closed while its driver still plays (a cluster worker closes a run from another
    thread) leaves no process behind: its waiting one is ended, and whatever the driver asks of
    the pool afterwards starts none."""
    hub = Hub()
    try:
        pool = BotPool(hub, startup_ms=20_000, log_dir=tmp_path / "logs")
        pool.prewarm([("w", EARLY)])
        waiting_one = pool.warm["w"].popen
        pool.close()
        assert waiting_one.poll() is not None, "the waiting process outlived its pool"
        with pytest.raises(BotStartError, match="closed"):
            pool.get([("k", EARLY)])
        pool.prestart([("p", EARLY)])
        pool.prewarm([("q", EARLY)])
        assert (pool.procs, pool.warm, pool.started) == ({}, {}, 0)
    finally:
        hub.close()
