"""A run's heartbeat: how a reader of the database tells a running tournament from a stopped one.

``tournament run`` keeps a row in ``runs`` while it plays (``Store.heartbeat``): the host and
process it runs in, when it started, and a beat (a timestamp) written every ``BEAT_S`` seconds
by a thread of its own, whatever the games are doing; the row is closed (``ended_at``) when the
run returns or raises. A run killed outright (SIGKILL, power loss) leaves its row open and its
beat stops.

``run_state`` reads a row the way ``arena serve`` needs it: a closed row, or a beat older than
``STALE_S``, is a stopped run; on the run's own host a process that is gone (or a different
process under the same pid) is a stopped run as soon as two beats are missed.
"""

from __future__ import annotations

import enum
import logging
import os
import socket
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tournaments.errors import StoreError

if TYPE_CHECKING:
    from tournaments.store import Store

__all__ = [
    "BEAT_S",
    "STALE_S",
    "Heartbeat",
    "RunInfo",
    "RunState",
    "process_token",
    "run_state",
]

log = logging.getLogger(__name__)

#: Seconds between two beats of a running tournament.
BEAT_S = 1.0
#: A beat older than this (seconds) means the run stopped, wherever it ran. Generous: a beat
#: waits while the run holds the database for a long write (rebuilding 100,000 games' ratings).
STALE_S = 30.0
#: On the run's own host, a vanished process means a stopped run once this many seconds have
#: passed without a beat (two beats missed: a process that just started may not be seen yet).
GONE_S = 2 * BEAT_S + 1


class RunState(str, enum.Enum):
    """What a reader makes of a tournament's last run."""

    RUNNING = "running"
    STOPPED = "stopped"
    NEVER = "never run"


@dataclass(frozen=True)
class RunInfo:
    """One row of ``runs``: a ``tournament run`` of one tournament."""

    id: int
    tournament_id: int
    host: str
    pid: int
    pid_token: str | None
    started_at: str
    beat_at: str
    ended_at: str | None
    games_at_once: int | None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> RunInfo:
        return cls(**{name: row[name] for name in cls.__dataclass_fields__})


def now_stamp() -> str:
    """Now, as the heartbeat writes it (UTC, milliseconds)."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def process_token(pid: int | None = None) -> str | None:
    """What tells process ``pid`` (default: this one) apart from a later process given the
    same pid: its start time in clock ticks since boot (Linux ``/proc``), or None."""
    try:
        stat = Path(f"/proc/{pid or os.getpid()}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]


def _age_s(stamp: str, now: datetime) -> float:
    return (now - datetime.fromisoformat(stamp)).total_seconds()


def run_state(run: RunInfo | None, *, now: datetime | None = None) -> RunState:
    """Whether the run ``run`` (a tournament's last) is still playing."""
    if run is None:
        return RunState.NEVER
    if run.ended_at is not None:
        return RunState.STOPPED
    now = now or datetime.now(timezone.utc)
    age = _age_s(run.beat_at, now)
    if age > STALE_S:
        return RunState.STOPPED
    if (
        age > GONE_S
        and run.host == socket.gethostname()
        and run.pid_token is not None
        and process_token(run.pid) != run.pid_token
    ):
        return RunState.STOPPED
    return RunState.RUNNING


class Heartbeat:
    """The heartbeat of one run (``Store.heartbeat``): a context manager that opens the run's
    row, beats from a daemon thread every ``BEAT_S`` seconds, and closes the row on exit."""

    def __init__(self, store: Store, tid: int, *, games_at_once: int | None = None) -> None:
        self.store = store
        self.tid = tid
        self.games_at_once = games_at_once
        self.run_id: int | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Heartbeat:
        self.run_id = self.store.begin_run(
            self.tid,
            host=socket.gethostname(),
            pid=os.getpid(),
            pid_token=process_token(),
            at=now_stamp(),
            games_at_once=self.games_at_once,
        )
        self._thread = threading.Thread(
            target=self._beat, name=f"arena-heartbeat-{self.tid}", daemon=True
        )
        self._thread.start()
        return self

    def _beat(self) -> None:
        assert self.run_id is not None
        while not self._stop.wait(BEAT_S):
            try:
                self.store.beat_run(self.run_id, at=now_stamp())
            except StoreError as exc:  # a long write elsewhere: the next beat will do
                log.debug("heartbeat of tournament %d missed: %s", self.tid, exc)

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self.run_id is not None:
            try:
                self.store.end_run(self.run_id, at=now_stamp())
            except StoreError as exc:  # the beat stops anyway: readers see a stale run
                log.warning("could not close the run of tournament %d: %s", self.tid, exc)
