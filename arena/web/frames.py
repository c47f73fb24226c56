"""Replay frames: a stored game re-played with the engine, one scene per step, for the
referee (everything) or as one seat saw it.

Frame ``k`` is the table after ``k`` joint steps, with what led to it (the actions of step
``k - 1`` and their faults). A seat's frames come from that seat's ``view`` only, and carry
only that seat's own actions and faults: another seat's action at a simultaneous step (which
disc it placed) is not that seat's to know, and the view shows its public effects.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.games import get_game
from arena.referee.record import GameRecord
from arena.web.scenes import full_scene, seat_scene
from tournaments.gamelogs import GameLog

__all__ = ["REFEREE", "frames"]

REFEREE = "referee"


def _mark(game: str, data: dict[str, Any]) -> str:
    """Where a frame stands (round, and trick in Skull King): frames where it changes get a
    jump button."""
    mark = f"round {data.get('round')}"
    if game == "skull-king":
        tricks = data.get("tricks") or []
        mark += f" trick {len(tricks) + 1}"
    return mark


def frames(
    record: GameRecord,
    perspective: str | int,
    names: Sequence[str],
    *,
    logs: GameLog | None = None,
) -> dict[str, Any]:
    """Every frame of ``record`` for ``perspective`` (``REFEREE`` or a seat number), with
    the jump marks (first frame of each round, and of each trick in Skull King) and, with
    ``logs``, what the bots wrote at each step (``[seat, text, shared]``, raw text: shown
    through ``textContent``)."""
    seat = None if perspective == REFEREE else int(perspective)
    if seat is not None and not 0 <= seat < record.players:
        raise ValueError(f"seat {seat} is not one of 0..{record.players - 1}")
    state = get_game(record.game).new(record.players, record.seed, record.options)
    steps = record.joint_actions()
    by_step: dict[int, list[list[Any]]] = {}
    for action in record.actions:
        if seat is None or action.seat == seat:
            by_step.setdefault(action.step, []).append(
                [action.seat, action.action, action.by.value]
            )
    faults: dict[int, list[list[Any]]] = {}
    for fault in record.faults:
        if seat is None or fault.seat == seat:
            faults.setdefault(fault.step, []).append(
                [fault.seat, fault.kind.value, fault.detail[:300]]
            )
    written: dict[int, list[list[Any]]] = {}
    for line in logs.lines if logs is not None else ():
        if seat is None or line.seat == seat:
            written.setdefault(-1 if line.step is None else line.step, []).append(
                [line.seat, line.text[:500], line.shared]
            )
    out: list[dict[str, Any]] = []
    marks: list[dict[str, Any]] = []
    for k in range(len(steps) + 1):
        data = state.full() if seat is None else state.view(seat)
        scene = (
            full_scene(record.game, data, names)
            if seat is None
            else seat_scene(record.game, data, names)
        )
        mark = _mark(record.game, data)
        if not marks or marks[-1]["label"] != mark:
            marks.append({"label": mark, "frame": k})
        out.append(
            {
                "step": k,
                "scene": scene,
                "actions": by_step.get(k - 1, []),
                "faults": faults.get(k - 1, []),
                "logs": written.get(k - 1, []) + (written.get(-1, []) if k == 0 else []),
                "over": state.is_over(),
            }
        )
        if k < len(steps):
            state.apply(dict(steps[k]))
    return {
        "game": record.game,
        "players": record.players,
        "names": list(names),
        "perspective": REFEREE if seat is None else seat,
        "frames": out,
        "marks": marks,
        "places": list(record.places),
        "scores": list(record.scores),
        "logs_withheld": None if logs is None else logs.withheld,
    }
