"""The janitor kills what a pool registered once its pipe closes, and leaves forgotten bots."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from arena.procs.janitor import Janitor


def sleeper() -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True
    )


def gone(popen: subprocess.Popen, seconds: float = 10) -> bool:
    deadline = time.monotonic() + seconds
    while popen.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    return popen.poll() is not None


def test_what_is_still_registered_dies_when_the_pipe_closes(tmp_path) -> None:
    janitor = Janitor.start()
    assert janitor is not None
    kept, left = sleeper(), sleeper()
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    janitor.register("kept", pgid=kept.pid)
    janitor.register("left", pgid=left.pid, scratch=str(scratch))
    janitor.forget("kept")  # the arena stopped it (here: it did not)
    janitor.close()  # as if the arena process had died
    assert gone(left) and left.returncode == -signal.SIGKILL
    assert not scratch.exists()
    assert kept.poll() is None, "a bot the arena forgot is not the janitor's"
    os.killpg(kept.pid, signal.SIGKILL)
    kept.wait()
