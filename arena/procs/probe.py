"""A probe of how bot processes are started: ``true`` run with one set-up step in the child,
to learn once per process whether that step works on this machine (a system-call filter, an
IPC namespace of its own)."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable

#: How long the probe may take (a loaded machine starts ``true`` in well under a second).
PROBE_TIMEOUT_S = 30


def run_true(setup: Callable[[], None]) -> int:
    """The exit status of ``true`` started with ``setup`` run in the child before it. Raises
    ``subprocess.SubprocessError`` when ``setup`` failed in the child, ``OSError`` when no
    child could be started."""
    return subprocess.run(
        [shutil.which("true") or "/bin/true"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=PROBE_TIMEOUT_S,
        check=False,
        preexec_fn=setup,
    ).returncode
