"""A real Dask cluster on localhost for the cluster tests: ``dask scheduler`` and ``dask worker``
processes (the command-line tools), with PYTHONPATH set so that they import the code under test.

``start_cluster`` starts one (the session's ``cluster`` fixture, and tests that kill parts of
theirs); everything it started is killed at the end. Workers run without a nanny, so killing a
worker's process kills the worker (and its bots, which die with it).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.net import free_port

ROOT = Path(__file__).resolve().parents[2]
#: Seconds to wait for a scheduler and its workers to come up on a loaded machine.
START_S = 60


@dataclass
class LocalCluster:
    """A scheduler and its workers, each a process of the real ``dask`` tools."""

    address: str
    folder: Path
    scheduler: subprocess.Popen
    workers: list[subprocess.Popen] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)

    def add_worker(self, name: str) -> subprocess.Popen:
        log = open(self.folder / f"{name}.log", "wb")  # noqa: SIM115 - kept for the process
        proc = subprocess.Popen(
            [
                dask_tool(),
                "worker",
                self.address,
                "--nthreads",
                "1",
                "--no-nanny",
                "--no-dashboard",
                "--host",
                "127.0.0.1",
                "--name",
                name,
                "--local-directory",
                str(self.folder / name),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=self.env,
            start_new_session=True,
        )
        self.workers.append(proc)
        return proc

    def wait_for(self, count: int) -> None:
        """Wait until ``count`` workers are connected to the scheduler."""
        from distributed import Client

        with Client(self.address, timeout=START_S) as client:
            client.wait_for_workers(count, timeout=START_S)
            deadline = time.monotonic() + START_S
            while len(client.scheduler_info()["workers"]) != count:
                assert time.monotonic() < deadline, "the workers did not settle"
                time.sleep(0.2)

    def kill(self, proc: subprocess.Popen) -> None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(30)

    def close(self) -> None:
        for proc in [*self.workers, self.scheduler]:
            self.kill(proc)


def dask_tool() -> str:
    """The ``dask`` command of this Python."""
    found = Path(sys.executable).with_name("dask")
    return str(found) if found.exists() else "dask"


def start_cluster(folder: Path, workers: int = 2) -> LocalCluster:
    """A scheduler on a free port with ``workers`` workers, all connected."""
    folder.mkdir(parents=True, exist_ok=True)
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        ARENA_BOT_SEER_DELAY="0.02",  # a game lasts long enough to kill things mid-run
    )
    port = free_port()
    log = open(folder / "scheduler.log", "wb")  # noqa: SIM115 - kept for the process
    scheduler = subprocess.Popen(
        [
            dask_tool(),
            "scheduler",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--no-dashboard",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
        start_new_session=True,
    )
    cluster = LocalCluster(f"tcp://127.0.0.1:{port}", folder, scheduler, env=env)
    try:
        for n in range(workers):
            cluster.add_worker(f"w{n}")
        if workers:
            cluster.wait_for(workers)
    except BaseException:
        cluster.close()
        raise
    return cluster


@pytest.fixture(scope="session")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    """The session's two-worker cluster (tests that kill parts of a cluster start their own)."""
    started = start_cluster(tmp_path_factory.mktemp("cluster"))
    yield started
    started.close()


def warm_processes(run_id: str) -> tuple[bool, dict[str, tuple[int, str]]]:
    """(On a worker, through ``Client.run``.) Whether run ``run_id``'s bots may start warm here
    (a sandbox, or a uid of their own: ``BotPool.prewarm``), and its warm processes waiting for
    their release: pool key -> pid and command line."""
    from arena.procs import identity
    from tournaments.run.cluster_worker import _registry

    with _registry.lock:
        run = _registry.runs.get(run_id)
    if run is None:
        return False, {}
    pool = run.runner.session.pool
    waiting = {}
    for key, proc in list(pool.warm.items()):
        assert proc.popen is not None
        command = Path(f"/proc/{proc.popen.pid}/cmdline").read_bytes().replace(b"\0", b" ")
        waiting[key] = (proc.popen.pid, command.decode())
    return pool.sandbox is not None or identity.separate_users(), waiting


def still_running(pids: set[int]) -> set[int]:
    """Those of ``pids`` still running after a while (a worker closes a run, and kills its
    bots, on a thread of its own)."""
    deadline = time.monotonic() + START_S
    alive = set(pids)
    while alive and time.monotonic() < deadline:
        alive = {pid for pid in alive if Path(f"/proc/{pid}").exists()}
        time.sleep(0.1)
    return alive
