"""Tie a child process's life to its parent: on Linux, die when the parent dies.

Used for tournament workers and bot processes, so a killed arena leaves no orphans behind.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys

_PR_SET_PDEATHSIG = 1


def die_with_parent(sig: int = signal.SIGKILL, *, parent: int | None = None) -> None:
    """Ask the kernel to send ``sig`` to this process when its parent exits (Linux only).

    The request covers only a parent that is still alive when it is made: with ``parent`` (the
    pid that started this process), a process whose parent already died exits at once
    (``os._exit``, nothing of the parent's to clean up) instead of living on as an orphan.
    """
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if parent is not None and os.getppid() != parent:
        os._exit(1)
