"""The janitor: kills what an arena process's bots left running when that process dies at once.

A killed arena (SIGKILL, the OOM killer) cannot clean up. Its bots die with it on their own
(each asks for its parent's death signal before it runs, and bubblewrap passes
``--die-with-parent`` on), except in one window: bubblewrap's inner process asks for that
signal only once its setup is done, so a sandbox that was starting when the arena died can
live on, orphaned. The janitor closes the window. It is a small process of its own session,
started with a pool's first bot, told over a pipe what each bot holds (``register``: its
cgroups and scratch folder before it starts, then its process group and, as root, its uid).
When the pipe closes -- the arena process is gone, or its pool closed normally -- it kills
whatever is still registered, removes what those bots' uids left in the world-writable places
(and the System V objects they created or own, where bots have no IPC namespace of their own)
and their scratch folders, and exits. It never outlives the arena by more than that.

Run as ``python -m arena.procs.janitor``; the pipe is its standard input.
"""

from __future__ import annotations

import logging
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

log = logging.getLogger(__name__)


class Janitor:
    """The arena's end of the pipe to a janitor process."""

    def __init__(self, popen: subprocess.Popen) -> None:
        self._popen = popen

    @classmethod
    def start(cls) -> Janitor | None:
        """A new janitor, or None if it cannot be started (then nothing changes)."""
        try:
            popen = subprocess.Popen(
                [sys.executable, "-m", "arena.procs.janitor"],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)},
            )
        except OSError as exc:
            log.warning("no janitor for this arena process: %s", exc)
            return None
        return cls(popen)

    def _say(self, line: str) -> None:
        try:
            assert self._popen.stdin is not None
            self._popen.stdin.write(line.encode() + b"\n")
            self._popen.stdin.flush()
        except (OSError, ValueError):
            pass

    def register(
        self,
        key: str,
        *,
        cgroups: Iterable[Path] = (),
        pgid: int | None = None,
        uid: int | None = None,
        scratch: str | None = None,
    ) -> None:
        """What bot ``key`` holds (each call adds to what was said before)."""
        parts = [f"cg={path}" for path in cgroups]
        if scratch is not None:
            parts.append(f"dir={scratch}")
        if pgid is not None:
            parts.append(f"pgid={pgid}")
        if uid is not None:
            parts.append(f"uid={uid}")
        if parts:
            self._say(" ".join(["+", key, *parts]))

    def forget(self, key: str) -> None:
        """Bot ``key`` was stopped and cleaned up by the arena."""
        self._say(f"- {key}")

    def close(self) -> None:
        """Everything was cleaned up: let the janitor go (it kills what is still registered)."""
        if self._popen.stdin is not None:
            try:
                self._popen.stdin.close()
            except OSError:
                pass
        try:
            self._popen.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._popen.kill()


def _clean(held: dict[str, list[str]]) -> None:
    if not any(held.values()):
        return  # the usual end: the arena cleaned up (and nothing to import for it)
    from arena.procs import identity
    from arena.procs.limits import kill_cgroup

    for parts in held.values():
        for part in parts:
            kind, _, value = part.partition("=")
            if kind == "pgid":
                try:
                    os.killpg(int(value), signal.SIGKILL)
                except OSError:
                    pass
            elif kind == "uid" and identity.kill_user(int(value)):
                identity.remove_files_of(int(value))
                identity.remove_ipc_of(int(value))
            elif kind == "cg":
                kill_cgroup(Path(value))
            elif kind == "dir":
                shutil.rmtree(value, ignore_errors=True)


def main() -> None:
    """Read registrations until the pipe closes, then kill what is still registered."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the arena
    held: dict[str, list[str]] = {}
    for raw in sys.stdin.buffer:
        verb, _, rest = raw.decode(errors="replace").strip().partition(" ")
        key, _, parts = rest.partition(" ")
        if verb == "+":
            held.setdefault(key, []).extend(parts.split())
        elif verb == "-":
            held.pop(key, None)
    _clean(held)


if __name__ == "__main__":
    main()
