"""Unsandboxed bots' own IPC namespaces: the System V IPC objects and POSIX message queues a
bot makes die with it.

System V shared memory segments, message queues and semaphore sets, and POSIX message queues,
outlive the processes that made them, and removing them by their owner is not enough: the
creator of a System V object may give it to any other uid (``shmctl(IPC_SET)`` needs no
privilege), and POSIX queues are seen only where an ``mqueue`` file system is mounted
(``/dev/mqueue``), which it need not be. Both are kept per IPC namespace, and a namespace's
objects are freed by the kernel when its last process exits. So, unsandboxed as root, each bot
process enters an IPC namespace of its own in its child, just before it becomes its own uid
(``enter``, from ``arena.procs.limits.child_setup``): whatever it makes there no other process
sees, and nothing of it survives its last process. (The sandbox gives each bot one too:
bubblewrap's ``--unshare-ipc``.)

Where no namespace can be made (root without ``CAP_SYS_ADMIN``: some containers), ``problem``
says why, the bot runs in the arena's namespace, and its leftovers are removed by their
creator's uid as well as their owner's (``arena.procs.identity.remove_ipc_of_users``) and its
queues through ``/dev/mqueue`` where that is mounted.
"""

from __future__ import annotations

import ctypes
import functools
import logging
import os
import subprocess

from arena.procs.lifetime import _libc
from arena.procs.probe import run_true

log = logging.getLogger(__name__)

#: unshare(2)'s flag for a new IPC namespace.
CLONE_NEWIPC = 0x08000000


def enter() -> None:
    """(in a child, before exec, with CAP_SYS_ADMIN) Leave the arena's IPC namespace for a new,
    empty one of this process's own. Raises OSError."""
    if _libc().unshare(ctypes.c_int(CLONE_NEWIPC)) != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"unshare(CLONE_NEWIPC): {os.strerror(code)}")


@functools.cache
def problem() -> str | None:
    """None if bot processes can get IPC namespaces of their own here, else why not (one
    line). Tested once per process, by a child that makes one and runs ``true``."""
    if os.geteuid() != 0:
        return "only root can give bots IPC namespaces of their own without a sandbox"
    try:
        status = run_true(enter)
    except subprocess.SubprocessError:
        return "the kernel refused a new IPC namespace (no CAP_SYS_ADMIN here?)"
    except OSError as exc:
        return f"IPC namespaces could not be tested here: {exc}"
    if status != 0:
        return f"IPC namespaces do not work here (true exited {status})"
    return None


def available() -> bool:
    """Whether unsandboxed bots get IPC namespaces of their own here (said once if not)."""
    why = problem()
    if why is not None:
        _say_once(why)
    return why is None


@functools.cache
def _say_once(why: str) -> None:
    log.info(
        "unsandboxed bots share the arena's IPC namespace (%s): their System V objects are "
        "removed by creator and owner, their POSIX queues only through /dev/mqueue",
        why,
    )
