"""A run's heartbeat: how a reader of the database tells a running tournament from a stopped one.

``tournament run`` keeps a row in ``runs`` while it plays (``store.runs.heartbeat``): the host and
process it runs in, when it started, and a beat (a timestamp) written every ``BEAT_S`` seconds
by a thread of its own, whatever the games are doing; the row is closed (``ended_at``) when the
run returns or raises. A run killed outright (SIGKILL, power loss) leaves its row open and its
beat stops.

Each beat also writes the games in play (``in_play``: a JSON list of ``{"game_id", "started_at"}``),
as the run's executors told its ``Sink`` (``tournaments.run.runner``); the games are never written
one by one as they start, so playing them costs nothing more. The row is closed with none. A reader
asks ``Runs.in_play``, which gives none unless the run is alive (``run_state``): a stopped run's
last list is stale.

``run_state`` reads a row the way ``arena serve`` needs it: a closed row, or a beat older than
``STALE_S``, is a stopped run; on the run's own host a process that is gone (or a different
process under the same pid) is a stopped run as soon as two beats are missed.

``Runs`` is the part of an open ``tournaments.store.facts.Store`` that keeps the ``runs`` table,
handed out as ``store.runs``.
"""

from __future__ import annotations

import enum
import json
import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tournaments.errors import StoreError
from tournaments.store.database import StorePart, guarded
from tournaments.store.values import GameStatus

__all__ = [
    "BEAT_S",
    "STALE_S",
    "Heartbeat",
    "InPlay",
    "RunInfo",
    "RunState",
    "Runs",
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


class RunState(enum.StrEnum):
    """What a reader makes of a tournament's last run."""

    RUNNING = "running"
    STOPPED = "stopped"
    NEVER = "never run"


@dataclass(frozen=True)
class InPlay:
    """A game being played by a run, and when it started (UTC, ISO text)."""

    game_id: int
    started_at: str


#: What a run tells its heartbeat of the games in play: game id -> when it started (``time.time``).
Playing = Callable[[], Mapping[int, float]]


def in_play_text(playing: Mapping[int, float]) -> str:
    """The ``in_play`` column's text of ``playing`` (game id -> start, ``time.time``)."""
    return json.dumps(
        [
            {"game_id": game_id, "started_at": _stamp(playing[game_id])}
            for game_id in sorted(playing)
        ]
    )


def _in_play(text: str | None) -> tuple[InPlay, ...]:
    return tuple(InPlay(int(g["game_id"]), str(g["started_at"])) for g in json.loads(text or "[]"))


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
    in_play: tuple[InPlay, ...] = ()  # as of the last beat: current only while it runs

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> RunInfo:
        fields = {name: row[name] for name in cls.__dataclass_fields__ if name != "in_play"}
        return cls(**fields, in_play=_in_play(row.get("in_play")))


def _stamp(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).isoformat(timespec="milliseconds")


def now_stamp() -> str:
    """Now, as the heartbeat writes it (UTC, milliseconds)."""
    return _stamp(time.time())


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
    now = now or datetime.now(UTC)
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
    """The heartbeat of one run (``Runs.heartbeat``): a context manager that opens the run's
    row, beats from a daemon thread every ``BEAT_S`` seconds (with the games ``playing`` says
    are in play), and closes the row on exit (with none)."""

    def __init__(
        self,
        runs: Runs,
        tid: int,
        *,
        games_at_once: int | None = None,
        playing: Playing | None = None,
    ) -> None:
        self.runs = runs
        self.tid = tid
        self.games_at_once = games_at_once
        self.playing = playing
        self.run_id: int | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Heartbeat:
        self.run_id = self.runs.begin(
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
            in_play = in_play_text(self.playing() if self.playing else {})
            try:
                self.runs.beat(self.run_id, at=now_stamp(), in_play=in_play)
            except StoreError as exc:  # a long write elsewhere: the next beat will do
                log.debug("heartbeat of tournament %d missed: %s", self.tid, exc)

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self.run_id is not None:
            try:
                self.runs.end(self.run_id, at=now_stamp())
            except StoreError as exc:  # the beat stops anyway: readers see a stale run
                log.warning("could not close the run of tournament %d: %s", self.tid, exc)


class Runs(StorePart):
    """The runs of a store's tournaments and their heartbeats (``store.runs``)."""

    def heartbeat(
        self, tid: int, *, games_at_once: int | None = None, playing: Playing | None = None
    ) -> Heartbeat:
        """The heartbeat of a run of tournament ``tid``: use it as a context manager around
        the games (``with store.runs.heartbeat(tid): ...``). ``playing`` (called by each beat,
        from the heartbeat's thread) gives the games in play and when each started."""
        return Heartbeat(self, tid, games_at_once=games_at_once, playing=playing)

    @guarded("starting a run")
    def begin(
        self,
        tid: int,
        *,
        host: str,
        pid: int,
        pid_token: str | None,
        at: str,
        games_at_once: int | None = None,
    ) -> int:
        """Open a run of tournament ``tid``; returns its id."""
        self.store.tournament_row(tid)
        with self.store.write() as conn:
            cursor = conn.execute(
                "INSERT INTO runs (tournament_id, host, pid, pid_token, started_at, beat_at, "
                "games_at_once) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (tid, host, pid, pid_token, at, at, games_at_once),
            )
            return int(cursor.lastrowid or 0)

    @guarded("writing a run's heartbeat")
    def beat(self, run_id: int, *, at: str, in_play: str = "[]") -> None:
        """A beat of run ``run_id`` at ``at``, with its games in play (``in_play_text``)."""
        with self.store.write() as conn:
            conn.execute(
                "UPDATE runs SET beat_at = ?, in_play = ? WHERE id = ?", (at, in_play, run_id)
            )

    @guarded("ending a run")
    def end(self, run_id: int, *, at: str) -> None:
        with self.store.write() as conn:
            conn.execute(
                "UPDATE runs SET beat_at = ?, ended_at = ?, in_play = '[]' WHERE id = ?",
                (at, at, run_id),
            )

    @guarded("reading a tournament's runs")
    def last(self, tid: int) -> RunInfo | None:
        """Tournament ``tid``'s latest run, or None if it was never run (by this schema)."""
        row = next(
            self.db.query(
                "SELECT * FROM runs WHERE tournament_id = ? ORDER BY id DESC LIMIT 1", (tid,)
            ),
            None,
        )
        return None if row is None else RunInfo.from_row(row)

    @guarded("reading the games in play")
    def in_play(self, tid: int, *, now: datetime | None = None) -> tuple[InPlay, ...]:
        """The games tournament ``tid``'s run is playing now, by game id: none unless its last
        run is alive (``run_state``), and only games still to be recorded (the list is as of
        the run's last beat, at most ``BEAT_S`` old)."""
        run = self.last(tid)
        if run is None or not run.in_play or run_state(run, now=now) is not RunState.RUNNING:
            return ()
        pending = self._pending(tid, [game.game_id for game in run.in_play])
        return tuple(game for game in run.in_play if game.game_id in pending)

    def _pending(self, tid: int, game_ids: list[int]) -> set[int]:
        marks = ", ".join("?" * len(game_ids))
        rows = self.db.execute(
            f"SELECT id FROM games WHERE tournament_id = ? AND status = ? AND id IN ({marks})",
            (tid, GameStatus.PENDING.value, *game_ids),
        ).fetchall()
        return {game_id for (game_id,) in rows}
