"""Reading ``/proc``: one file of every live process, in one pass.

Used to find a bot's descendants (``arena.procs.limits``) and the processes of a bot's uid
(``arena.procs.identity``). A process that exits while it is read is skipped.
"""

from __future__ import annotations

import os
from collections.abc import Iterator


def each_process(name: str) -> Iterator[tuple[int, bytes]]:
    """``(pid, contents of /proc/PID/name)`` for every process that could be read."""
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/{name}", "rb") as handle:
                yield int(entry.name), handle.read()
        except OSError:
            continue
