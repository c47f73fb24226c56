"""Tie a child process's life to its parent: on Linux, die when the parent dies.

Used for tournament workers and bot processes, so a killed arena leaves no orphans behind; and
``no_new_privileges``, so a bot cannot gain privileges through set-user-ID programs.
"""

from __future__ import annotations

import ctypes
import functools
import os
import signal
import sys

_PR_SET_PDEATHSIG = 1
_PR_SET_NO_NEW_PRIVS = 38


@functools.cache
def _libc() -> ctypes.CDLL:
    # this program's own symbols, libc's among them: no search for the library (which runs
    # ``ldconfig -p``, tens of milliseconds at every start of an arena process)
    return ctypes.CDLL(None, use_errno=True)


if sys.platform.startswith("linux"):
    _libc()  # loaded here, not in a child between fork and exec


def _prctl(option: int, value: int) -> int:
    return _libc().prctl(option, value, 0, 0, 0)


def die_with_parent(sig: int = signal.SIGKILL, *, parent: int | None = None) -> None:
    """Ask the kernel to send ``sig`` to this process when its parent exits (Linux only).

    The request covers only a parent that is still alive when it is made: with ``parent`` (the
    pid that started this process), a process whose parent already died exits at once
    (``os._exit``, nothing of the parent's to clean up) instead of living on as an orphan.
    """
    if sys.platform.startswith("linux"):
        try:
            _prctl(_PR_SET_PDEATHSIG, int(sig))
        except (OSError, AttributeError):
            pass
    if parent is not None and os.getppid() != parent:
        os._exit(1)


def no_new_privileges() -> None:
    """Forbid this process and its children to gain privileges (set-user-ID, file caps)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        _prctl(_PR_SET_NO_NEW_PRIVS, 1)
    except (OSError, AttributeError):
        pass
