"""A ladder's leaderboard as text (``arena ladder show``); ``Board.to_dict`` is its JSON."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.text import printable
from tournaments.ladder.values import Board
from tournaments.reports import format_table
from tournaments.store.ladder_values import LadderDeals

__all__ = ["board_text", "deals_text", "ladders_text"]


def _elo(line_elo: float | None, lo: float | None, hi: float | None) -> str:
    if line_elo is None or lo is None or hi is None:
        return "-"
    return f"{line_elo:.0f} ±{(hi - lo) / 2:.0f}"


def board_text(board: Board, run: Mapping[str, Any] | None = None) -> str:
    """The leaderboard: rank, version, participant, mu - 3 sigma, mu, sigma, games, wins,
    mean place, faulty games, batch Elo ± 95 %, and the status of those not in play
    (``placement``: still in placement); its leader, and its run's state (``run``:
    ``service.run_state``)."""
    ladder = board.ladder
    head = (
        f"ladder {printable(ladder.name)}: {ladder.game}, tables of {ladder.sizes_text()}, "
        f"{deals_text(board)}, {board.games} games in {board.batches} batches"
        + (f"; leader {printable(board.leader)}" if board.leader else "")
    )
    if run is not None:
        head += f"\nrun: {run['state']}" + (f": {run['message']}" if run["message"] else "")
    rows = [
        [
            "-" if line.rank is None else line.rank,
            line.entry.label,
            line.entry.participant,
            f"{line.conservative:.2f}",
            f"{line.skill.mu:.2f}",
            f"{line.skill.sigma:.2f}",
            line.games,
            line.wins,
            "-" if line.mean_place is None else f"{line.mean_place:.2f}",
            line.faults,
            _elo(line.elo, line.elo_lo, line.elo_hi),
            line.entry.status.value
            + (f": {line.entry.reason}" if line.entry.reason and line.rank is None else "")
            + (" (placement)" if line.placement else ""),
        ]
        for line in board.lines
    ]
    table = format_table(
        [
            "#",
            "bot",
            "participant",
            "mu-3sigma",
            "mu",
            "sigma",
            "games",
            "wins",
            "place",
            "faulty",
            "Elo",
            "status",
        ],
        rows,
        align="rllrrrrrrrrl",
    )
    notes = "".join(f"\nnote: {note}" for note in board.notes)
    empty = "" if rows else "\nno bot has entered yet: `arena ladder submit`"
    return f"{head}\n\n{table}{empty}{notes}"


def deals_text(board: Board) -> str:
    """How the next batch deals: ``independent deals``, ``duplicate deals``, with ``(auto)``
    when the ladder's setting chose it from its uploads."""
    auto = board.ladder.settings.deals is LadderDeals.AUTO
    return f"{board.deals} deals" + (" (auto)" if auto else "")


def ladders_text(ladders: list[Mapping[str, Any]]) -> str:
    """The ladders (``service.ladders_overview``): game, tables, deals, move time, leader,
    games, run state, creation."""
    if not ladders:
        return "no ladders yet; create one with `arena ladder create`"
    return format_table(
        ["ladder", "game", "tables", "deals", "move ms", "leader", "games", "run", "created"],
        [
            [
                i["name"],
                i["game"],
                i["table_sizes"],
                i["settings"]["deals"],
                i["move_ms"],
                i["leader"] or "-",
                i["games"],
                i["run"]["state"],
                i["created_at"][:19],
            ]
            for i in ladders
        ],
        align="llllrlrll",
    )
