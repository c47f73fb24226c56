"""What may be shown while a tournament is played: a game's replay (``REPLAY_SHOWN``,
``deal_in_play``), a bot's log (``log_hold``) and the games being played (``tables_in_play``);
the one decision ``arena serve``, ``arena export``, ``arena replay``, ``arena bot logs`` and
``arena bot ask`` follow.

A game's replay shows every hand of its deal, and its bots' lines may tell theirs: both wait
until every seat rotation of the deal is played.

A bot's log can tell its hands. It is withheld while any tournament, match or gauntlet the bot
is entered in (under any entrant name) holds a game that is not complete: from the moment it is
planned (games are played well before the first one is recorded), through a run stopped
part-way, until every deal it holds is played. A match decided early drops the games it no
longer needs from its plan (``Store.set_sprt``), and a tournament cancelled (``Store.cancel``)
those it had not played, so they do not count.

The lines of one finished game are older than anything dealt after it: they are withheld only
by the tournaments whose deals had gone to bot processes before it ended (a run of them had
begun, or a game of them was played), so a plan that never ran, or one that ran later, hides
nothing of the bot's other games (``log_hold``'s ``dealt_before``).

A game being played shows its table only: the repetition, the table, the seat rotation, the entrants
at its seats and when it started. Never its deal (its seed is the deal) nor anything of its play:
nothing of it is recorded yet, and its deal is in play.

Logs live in one folder per bot name (``arena.text.safe_name``): every bot whose name maps
to that folder counts (two names of an old database may share one).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from arena.procs.logs import bot_logs, logs_folder
from arena.text import safe_name
from tournaments.errors import NotFound, TournamentError
from tournaments.store.facts import Store
from tournaments.store.values import GameStatus, TournamentStatus

__all__ = [
    "REPLAY_SHOWN",
    "LogHold",
    "LogWithheld",
    "TableInPlay",
    "deal_in_play",
    "deal_withheld_reason",
    "log_hold",
    "readable_logs",
    "tables_in_play",
]

#: SQL of "game ``g``'s replay may be shown": played, and no rotation of its deal still to be
#: played (a replay shows every hand of its deal).
REPLAY_SHOWN = (
    "(g.status = 'done' AND NOT EXISTS (SELECT 1 FROM games p WHERE p.tournament_id = "
    "g.tournament_id AND p.deal_seed = g.deal_seed AND p.status = 'pending'))"
)


def deal_in_play(store: Store, game_id: int) -> bool:
    """Whether game ``game_id`` is played but its replay and its bots' lines must not be shown
    yet: another seat rotation of its deal is still to be played (``REPLAY_SHOWN``). Raises
    NotFound for an unknown game."""
    row = store.db.conn.execute(
        f"SELECT g.status, {REPLAY_SHOWN} FROM games g WHERE g.id = ?", (game_id,)
    ).fetchone()
    if row is None:
        raise NotFound(f"no game {game_id} in {store.path}")
    return row[0] == "done" and not row[1]


def deal_withheld_reason(game_id: int) -> str:
    """Why game ``game_id`` is not shown yet (one line, for any face)."""
    return (
        f"game {game_id}: its deal is still being played in other seat rotations; it is "
        "shown once they are done"
    )


@dataclass(frozen=True)
class TableInPlay:
    """What may be shown of a game being played: its table, not its deal."""

    game_id: int
    repetition: int
    table: int
    rotation: int
    seating: tuple[str, ...]
    started_at: str


def tables_in_play(store: Store, tid: int) -> list[TableInPlay]:
    """The games tournament ``tid``'s run is playing now (none unless the run is alive:
    ``Runs.in_play``), each as its table, by game id."""
    playing = {game.game_id: game.started_at for game in store.runs.in_play(tid)}
    if not playing:
        return []
    marks = ", ".join("?" * len(playing))
    rows = store.db.execute(
        f"SELECT id, round, table_index, rotation, seating FROM games WHERE tournament_id = ? "
        f"AND id IN ({marks}) ORDER BY id",
        (tid, *playing),
    ).fetchall()
    return [
        TableInPlay(game_id, rep, table, rotation, tuple(json.loads(seating)), playing[game_id])
        for game_id, rep, table, rotation, seating in rows
    ]


class LogWithheld(TournamentError):
    """A bot's log is withheld until the deals of its tournaments are complete."""


@dataclass(frozen=True)
class LogHold:
    """Why a bot's log is withheld: the tournaments of the bot that hold an unfinished deal."""

    bot: str
    tournaments: tuple[int, ...]

    @property
    def reason(self) -> str:
        """``withheld until tournament 3's deals are complete`` (one line, for any face)."""
        ids = [str(tid) for tid in self.tournaments]
        if len(ids) == 1:
            return f"withheld until tournament {ids[0]}'s deals are complete"
        listed = ", ".join(ids[:-1]) + f" and {ids[-1]}"
        return f"withheld until the deals of tournaments {listed} are complete"


def log_hold(store: Store, bot: str, *, dealt_before: str | None = None) -> LogHold | None:
    """Why ``bot``'s log may not be shown now, or None if it may. With ``dealt_before`` (a
    stored time): why its lines written before then may not be, counting only the tournaments
    whose deals had gone to bot processes by then."""
    # A tournament is done only once no game of it is pending (``Store.record_game``); both
    # are asked, each through an index, so that neither a status nor a game is missed.
    dealt = ""
    values: tuple[str, ...] = (
        TournamentStatus.DONE.value,
        TournamentStatus.CANCELLED.value,
        GameStatus.PENDING.value,
    )
    if dealt_before is not None:
        dealt = (
            " AND (EXISTS (SELECT 1 FROM runs r WHERE r.tournament_id = t.id AND r.started_at "
            "<= ?) OR EXISTS (SELECT 1 FROM games d WHERE d.tournament_id = t.id AND d.status "
            "= ? AND d.started_at <= ?))"
        )
        values += (dealt_before, GameStatus.DONE.value, dealt_before)
    rows = store.db.execute(
        "SELECT DISTINCT e.tournament_id, e.bot FROM tournaments t JOIN entrants e "
        "ON e.tournament_id = t.id WHERE (t.status NOT IN (?, ?) OR EXISTS (SELECT 1 FROM "
        f"games g WHERE g.tournament_id = t.id AND g.status = ?)){dealt} "
        "ORDER BY e.tournament_id",
        values,
    ).fetchall()
    folder = safe_name(bot)
    held = tuple(dict.fromkeys(tid for tid, name in rows if safe_name(name) == folder))
    return LogHold(bot, held) if held else None


def readable_logs(db_path: Path, bot: str) -> list[Path]:
    """The log files of ``bot`` for the database at ``db_path``, oldest first (``arena bot
    logs``). Raises LogWithheld while they are withheld, NotFound if there are none."""
    if db_path.exists():
        with Store.open(db_path) as store:
            hold = log_hold(store, bot)
        if hold is not None:
            raise LogWithheld(f"the log of bot {bot!r} is {hold.reason}")
    folder = logs_folder(db_path)
    files = bot_logs(folder, bot)
    if not files:
        raise NotFound(f"no logs of bot {bot!r} in {folder}")
    return files
