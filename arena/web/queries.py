"""Read-only queries the web app needs beyond the Store's own: a tournament's games page by
page, a bot's record, progress samples for the live view, a sampled rating history, and
whether a deal is still being played.

Every function takes a ``Store`` (opened read-only by ``arena.web.readonly``) and only reads.
Nothing returned holds a secret: no deal seed of a game whose deal is still in play, no bot
command line or folder, no token.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.procs.logs import bot_logs, logs_folder
from arena.text import printable
from tournaments import gamelogs
from tournaments.errors import NotFound
from tournaments.ratings import HistoryRow
from tournaments.store import Store
from tournaments.withheld import log_hold

__all__ = [
    "GamesPage",
    "bot_log_text",
    "bot_record",
    "deal_in_play",
    "games_page",
    "history_series",
]

#: Bytes of the end of each log file shown on a bot's page.
LOG_TAIL_BYTES = 64 * 1024


@dataclass(frozen=True)
class GamesPage:
    """One page of a tournament's games (plan order), optionally one entrant's only."""

    games: list[dict[str, Any]]
    total: int
    page: int
    per_page: int
    entrant: str | None

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.per_page))

    def to_dict(self) -> dict[str, Any]:
        return {
            "games": self.games,
            "total": self.total,
            "page": self.page,
            "per_page": self.per_page,
            "pages": self.pages,
            "entrant": self.entrant,
        }


def games_page(
    store: Store, tid: int, *, entrant: str | None = None, page: int = 1, per_page: int = 50
) -> GamesPage:
    """Games of tournament ``tid`` in plan order: seating, status, places, scores, faults.
    With ``entrant``, only the played games of that entrant. Raises NotFound."""
    store.tournament(tid)
    page = max(1, page)
    where, params = "g.tournament_id = ?", [tid]
    if entrant is not None:
        labels = {e.name for e in store.tournament(tid).entrants}
        if entrant not in labels:
            raise NotFound(f"no entrant {entrant!r} in tournament {tid}")
        where += " AND g.id IN (SELECT game_id FROM seats WHERE tournament_id = ? AND entrant = ?)"
        params += [tid, entrant]
    conn = store.db.conn
    total = conn.execute(f"SELECT COUNT(*) FROM games g WHERE {where}", params).fetchone()[0]
    rows = conn.execute(
        "SELECT g.id, g.plan_index, g.round, g.table_index, g.rotation, g.status, "
        "g.finished_at, g.seating, g.outcome, g.forfeits, "
        "(SELECT COALESCE(SUM(s.faults), 0) FROM seats s WHERE s.game_id = g.id) "
        f"FROM games g WHERE {where} ORDER BY g.plan_index LIMIT ? OFFSET ?",
        [*params, per_page, (page - 1) * per_page],
    ).fetchall()
    games = []
    for (
        gid,
        index,
        round_,
        table,
        rotation,
        status,
        finished,
        seating,
        outcome,
        forfeits,
        faults,
    ) in rows:
        result = json.loads(outcome) if outcome else {}
        games.append(
            {
                "id": gid,
                "plan_index": index,
                "repetition": round_,
                "table": table,
                "rotation": rotation,
                "status": status,
                "finished_at": finished,
                "seating": json.loads(seating),
                "places": result.get("places"),
                "scores": result.get("scores"),
                "forfeits": json.loads(forfeits) if forfeits else [],
                "faults": faults,
            }
        )
    return GamesPage(games, total, page, per_page, entrant)


def deal_in_play(store: Store, game_id: int) -> bool:
    """Whether another seat rotation of this game's deal is still to be played: its replay
    (every hand of the deal) must not be shown before then (``tournaments.gamelogs``)."""
    return gamelogs.deal_in_play(store, game_id)


def bot_record(
    store: Store, name: str, *, bundled: Sequence[str] = (), limit: int = 50
) -> dict[str, Any]:
    """A bot's public record: kind, versions, tournaments, recent games and faults by kind.
    Never its command line or folder. Raises NotFound for a bot neither registered, bundled
    nor entered in a tournament."""
    conn = store.db.conn
    registered = conn.execute(
        "SELECT kind, version, games, played, added_at FROM bots WHERE name = ?", (name,)
    ).fetchone()
    entries = conn.execute(
        "SELECT e.tournament_id, e.label, e.bot_version, t.game, t.status FROM entrants e "
        "JOIN tournaments t ON t.id = e.tournament_id WHERE e.bot = ? "
        "ORDER BY e.tournament_id, e.position",
        (name,),
    ).fetchall()
    if registered is None and not entries and name not in bundled:
        raise NotFound(f"no bot named {name!r} in {store.path}")
    games = conn.execute(
        "SELECT s.game_id, s.tournament_id, s.entrant, s.seat, s.place, s.score, s.faults, "
        "s.forfeited FROM seats s JOIN entrants e ON e.tournament_id = s.tournament_id "
        "AND e.label = s.entrant WHERE e.bot = ? ORDER BY s.game_id DESC LIMIT ?",
        (name, limit),
    ).fetchall()
    faults = conn.execute(
        "SELECT f.kind, COUNT(*) FROM faults f JOIN seats s ON s.game_id = f.game_id "
        "AND s.seat = f.seat JOIN entrants e ON e.tournament_id = s.tournament_id "
        "AND e.label = s.entrant WHERE e.bot = ? GROUP BY f.kind ORDER BY f.kind",
        (name,),
    ).fetchall()
    kind = registered[0] if registered else "bundled" if name in bundled else "unregistered"
    versions = sorted(
        {version for _, _, version, _, _ in entries}
        | ({registered[1]} if registered and registered[1] else set())
    )
    return {
        "name": name,
        "kind": kind,
        "versions": versions,
        "games_played": registered[3] if registered else None,
        "plays": json.loads(registered[2]) if registered else [],
        "added_at": registered[4] if registered else None,
        "tournaments": [
            {"id": tid, "entrant": label, "version": version, "game": game, "status": status}
            for tid, label, version, game, status in entries
        ],
        "recent_games": [
            {
                "id": gid,
                "tournament_id": tid,
                "entrant": label,
                "seat": seat,
                "place": place,
                "score": score,
                "faults": nf,
                "forfeited": bool(forfeited),
            }
            for gid, tid, label, seat, place, score, nf, forfeited in games
        ],
        "faults": {kind_: n for kind_, n in faults},
    }


def bot_log_text(store: Store, db_path: str, name: str) -> dict[str, Any]:
    """The end of each of a bot's log files (control characters escaped), or why not: a
    bot's log may tell its hands, so it is withheld while a deal of one of its tournaments is
    unfinished (``tournaments.withheld``)."""
    hold = log_hold(store, name)
    if hold is not None:
        return {
            "withheld": f"this bot's log is {hold.reason}",
            "withheld_by": list(hold.tournaments),
            "files": [],
        }
    files = []
    for path in bot_logs(logs_folder(Path(db_path)), name):
        size = path.stat().st_size
        with path.open("rb") as handle:
            handle.seek(max(0, size - LOG_TAIL_BYTES))
            text = handle.read().decode("utf-8", errors="replace")
        files.append(
            {
                "file": path.name,
                "bytes": size,
                "truncated": size > LOG_TAIL_BYTES,
                "text": printable(text, keep_lines=True),
            }
        )
    return {"withheld": None, "withheld_by": [], "files": files}


def history_series(
    history: Sequence[HistoryRow], entrants: Sequence[str], *, points: int = 200
) -> dict[str, list[tuple[int, float]]]:
    """Each entrant's incremental Elo after its games, thinned to about ``points`` points per
    entrant (a row every so often, then each entrant's last row): linear in the points kept,
    not in the history's length."""
    stride = max(1, len(history) // (points * max(1, len(entrants))))
    if stride > 1 and stride % 2 == 0:
        stride += 1  # an odd stride does not keep landing on the same seat
    by_entrant: dict[str, list[tuple[int, float]]] = {}
    for index, entrant, rating in history[::stride]:
        by_entrant.setdefault(entrant, []).append((index, rating))
    seen: set[str] = set()
    for index, entrant, rating in reversed(history):
        if entrant not in seen:
            seen.add(entrant)
            series = by_entrant.setdefault(entrant, [])
            if not series or series[-1][0] != index:
                series.append((index, rating))
            if len(seen) == len(entrants):
                break
    return {e: by_entrant[e] for e in entrants if e in by_entrant}
