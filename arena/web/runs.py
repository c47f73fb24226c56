"""What a tournament page says of its run: done, running, stopped (and what to do about it)
or not started, from the tournament's status and its last run's heartbeat
(``tournaments.store.heartbeat``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tournaments.store.facts import Store
from tournaments.store.heartbeat import RunState, run_state
from tournaments.store.values import TournamentInfo, TournamentStatus

__all__ = ["RunStatus", "run_status"]


@dataclass(frozen=True)
class RunStatus:
    """What a tournament page says of its run: ``state`` is done, running, stopped or not
    started; ``message`` says what to do about it (None when nothing is to be done)."""

    state: str
    message: str | None
    started_at: str | None
    games_at_once: int | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "state": self.state,
            "message": self.message,
            "started_at": self.started_at,
            "games_at_once": self.games_at_once,
        }


def run_status(store: Store, info: TournamentInfo) -> RunStatus:
    """Whether tournament ``info`` is done, running (its run's heartbeat is alive), stopped
    (games left, and no live run) or not started."""
    run = store.runs.last(info.id)
    started = run.started_at if run else None
    at_once = run.games_at_once if run else None
    if info.status is TournamentStatus.DONE:
        return RunStatus("done", None, started, at_once)
    state = run_state(run)
    if state is RunState.RUNNING:
        return RunStatus("running", None, started, at_once)
    command = f"arena tournament run {info.id}"
    if info.status is TournamentStatus.PLANNED and state is RunState.NEVER:
        return RunStatus("not started", f"not started: run `{command}` to play it", None, None)
    return RunStatus("stopped", f"stopped: run `{command}` to finish", started, at_once)
