"""A stored game's bot logs: what each seat's bot process wrote while it played that game,
at the step it was written (``arena bot logs --game``, ``arena replay``, the web replay).

Bot logs (``arena.procs.logs``) say which game each line is of: the games open on the process
when the arena read it, and, while it had only that game open, the step of its last turn. A
line of a process that had several games open at once (``max_games`` > 1) is shown with each
of them, marked ``shared``: it may be another game's. A game's lines are found among the log
files of the bots that played it, between its start and its end (with some slack), so a long
log is not read whole.

A bot's log may tell its hand, so a game's lines are withheld while its deal is still being
played in another seat rotation, as its replay is, and a bot's lines while a tournament whose
deals it had been dealt by the game's end is not complete (both decided in
``tournaments.store.withheld``: a plan that had not run by then hides nothing of the game).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from arena.procs.logs import bot_logs, game_lines, log_time, logs_folder
from tournaments.errors import NotFound
from tournaments.store.facts import Store
from tournaments.store.withheld import deal_in_play, deal_withheld_reason, log_hold

__all__ = [
    "GameLog",
    "GameLogLine",
    "bot_game_logs",
    "game_log",
    "tournament_games",
]

#: Lines of one game kept at most (a bot printing without end costs a reader nothing more).
MAX_LINES = 5000
#: Seconds of slack around a game's stored start and end (its lines are stamped when read).
SLACK_S = 5.0


@dataclass(frozen=True)
class GameLogLine:
    """One line a seat's bot wrote during a game: the step it is shown at (None: before its
    first turn, or ``shared``), when the arena read it and the text (raw: escape it to show
    it); ``shared``: its process had other games open too, so it may be theirs."""

    seat: int
    step: int | None
    at: str
    text: str
    shared: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "step": self.step,
            "at": self.at,
            "text": self.text,
            "shared": self.shared,
        }


@dataclass(frozen=True)
class GameLog:
    """A game's log lines (in time order; at most ``MAX_LINES``: ``truncated`` says more were
    found), and why some or all of them are withheld."""

    game_id: int
    tournament_id: int = 0
    lines: tuple[GameLogLine, ...] = ()
    withheld: str | None = None
    truncated: bool = False

    def at_step(self) -> dict[int | None, list[GameLogLine]]:
        """The lines by the step they are shown at."""
        steps: dict[int | None, list[GameLogLine]] = {}
        for line in self.lines:
            steps.setdefault(line.step, []).append(line)
        return steps

    def to_dict(self) -> dict[str, Any]:
        return {
            "withheld": self.withheld,
            "truncated": self.truncated,
            "tournament_id": self.tournament_id,
            "lines": [line.to_dict() for line in self.lines],
        }


def _moment(text: str | None, shift: float) -> str | None:
    if not text:
        return None
    return log_time(datetime.fromisoformat(text).timestamp() + shift)


def game_log(
    store: Store,
    game_id: int,
    *,
    bot: str | None = None,
    seats: Iterable[int] | None = None,
    log_dir: Path | None = None,
) -> GameLog:
    """What the bots of game ``game_id`` wrote while they played it (only bot ``bot``'s
    seats, or ``seats``; default: every seat), from the logs next to the database (or
    ``log_dir``). Raises NotFound for an unknown or unplayed game."""
    stored = store.game(game_id)
    if stored.record is None:
        raise NotFound(f"game {game_id} has not been played yet")
    tid = stored.tournament_id
    if deal_in_play(store, game_id):
        return GameLog(game_id, tid, withheld=deal_withheld_reason(game_id))
    folder = log_dir or logs_folder(Path(store.path))
    wanted = set(range(len(stored.bots)) if seats is None else seats)
    if bot is not None:
        wanted &= {seat for seat, name in enumerate(stored.bots) if name == bot}
    since = _moment(stored.started_at, -SLACK_S) or ""
    until = _moment(stored.finished_at, SLACK_S)
    found = []
    held: list[str] = []
    for name in sorted({stored.bots[seat] for seat in wanted}):
        # its lines of this game were written by the time it was recorded
        hold = log_hold(store, name, dealt_before=stored.finished_at)
        if hold is not None:
            held.append(f"the log of bot {name!r} is {hold.reason}")
            continue
        mine = [seat for seat in wanted if stored.bots[seat] == name]
        found += game_lines(bot_logs(folder, name), game_id, mine, since=since, until=until)
    found.sort(key=lambda line: line.line.at)
    lines = tuple(
        GameLogLine(
            seat=line.seat,
            step=None if line.shared else line.step,
            at=line.line.at,
            text=line.line.text,
            shared=line.shared,
        )
        for line in found[:MAX_LINES]
    )
    return GameLog(
        game_id,
        tid,
        lines=lines,
        withheld="; ".join(held) or None,
        truncated=len(found) > MAX_LINES,
    )


def bot_game_logs(
    store: Store, bot: str, *, game_id: int | None = None, tid: int | None = None
) -> list[GameLog]:
    """``arena bot logs BOT --game ID`` (that game's lines of the bot) or ``--tournament ID``
    (each game of the tournament the bot played and wrote, or had withheld, something in).
    Raises NotFound for an unknown game or tournament, or a game the bot did not play."""
    if game_id is not None:
        stored = store.game(game_id)
        if bot not in stored.bots:
            raise NotFound(
                f"bot {bot!r} did not play game {game_id} (its bots: "
                f"{', '.join(dict.fromkeys(stored.bots))})"
            )
        return [game_log(store, game_id, bot=bot)]
    if tid is None:
        return []
    found = []
    for gid in tournament_games(store, tid):
        if bot in store.game(gid).bots:
            log_ = game_log(store, gid, bot=bot)
            if log_.lines or log_.withheld is not None:
                found.append(log_)
    return found


def tournament_games(store: Store, tid: int) -> list[int]:
    """The ids of tournament ``tid``'s played games, in plan order."""
    store.tournament(tid)
    return [
        gid
        for (gid,) in store.db.execute(
            "SELECT id FROM games WHERE tournament_id = ? AND status = 'done' ORDER BY plan_index",
            (tid,),
        )
    ]
