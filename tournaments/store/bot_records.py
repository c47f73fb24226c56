"""A bot's public record, read from the store: its kind and versions, its tournaments, its
recent games and its faults by kind (``bot_record``), and the end of each of its log files when
they may be shown (``bot_log_tails``): what the web's bot page shows.

Nothing returned holds a secret: never a bot's command line or folder, never a replay of a
deal still in play, never a log while a deal of its tournaments is unfinished (both decided in
``tournaments.store.withheld``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from arena.procs.logs import bot_logs, logs_folder
from arena.text import printable
from tournaments.errors import NotFound
from tournaments.store.facts import Store
from tournaments.store.game_lists import WITHHELD
from tournaments.store.withheld import REPLAY_SHOWN, log_hold

__all__ = ["LOG_TAIL_BYTES", "bot_log_tails", "bot_record"]

#: Bytes of the end of each log file shown on a bot's page.
LOG_TAIL_BYTES = 64 * 1024


def bot_record(
    store: Store, name: str, *, bundled: Sequence[str] = (), limit: int = 50
) -> dict[str, Any]:
    """A bot's public record: kind, versions, tournaments, recent games and faults by kind
    (``bundled``: the bundled bots' names). Never its command line or folder. Raises NotFound
    for a bot neither registered, bundled nor entered in a tournament."""
    conn = store.db.conn
    registered = conn.execute(
        "SELECT kind, version, games, played, added_at FROM bots WHERE name = ?", (name,)
    ).fetchone()
    entries = conn.execute(
        "SELECT e.tournament_id, e.label, e.bot_version, t.game, t.status, t.created_at, t.kind "
        "FROM entrants e JOIN tournaments t ON t.id = e.tournament_id WHERE e.bot = ? "
        "ORDER BY e.tournament_id, e.position",
        (name,),
    ).fetchall()
    if registered is None and not entries and name not in bundled:
        raise NotFound(f"no bot named {name!r} in {store.path}")
    games = conn.execute(
        "SELECT s.game_id, s.tournament_id, s.entrant, s.seat, s.place, s.score, s.faults, "
        f"s.forfeited, t.game, {REPLAY_SHOWN} FROM seats s JOIN entrants e "
        "ON e.tournament_id = s.tournament_id AND e.label = s.entrant "
        "JOIN games g ON g.id = s.game_id JOIN tournaments t ON t.id = s.tournament_id "
        "WHERE e.bot = ? ORDER BY s.game_id DESC LIMIT ?",
        (name, limit),
    ).fetchall()
    faults: dict[str, int] = {}
    for found in store.results.faults(bot=name):
        faults[found.kind] = faults.get(found.kind, 0) + found.count
    kind = registered[0] if registered else "bundled" if name in bundled else "unregistered"
    versions = sorted(
        {entry[2] for entry in entries}
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
            {
                "id": tid,
                "entrant": label,
                "version": version,
                "game": game,
                "status": status,
                "created_at": created,
                "kind": tkind,
            }
            for tid, label, version, game, status, created, tkind in entries
        ],
        "recent_games": [
            {
                "id": gid,
                "tournament_id": tid,
                "status": "done",
                "game": game,
                "entrant": label,
                "seat": seat,
                "place": place,
                "score": score,
                "faults": nf,
                "forfeited": bool(forfeited),
                "replay": bool(shown),
                "withheld": None if shown else WITHHELD,
            }
            for gid, tid, label, seat, place, score, nf, forfeited, game, shown in games
        ],
        "faults": dict(sorted(faults.items())),
    }


def _log_label(path: Path) -> tuple[str, int | None]:
    """The entrant and seat rotation a log file is of (``LABEL.rotN.log``)."""
    label = path.name.split(".log")[0]
    base, _, rotation = label.rpartition(".rot")
    if base and rotation.isdigit():
        return base, int(rotation)
    return label, None


def bot_log_tails(store: Store, name: str, record: dict[str, Any]) -> dict[str, Any]:
    """The end of each of a bot's non-empty log files (control characters escaped), with the
    entrant and rotation it is of, the tournaments that entrant played in and when it was last
    written; how many log files were empty; or why the logs are not shown: a bot's log may tell
    its hands, so it is withheld while a deal of one of its tournaments is unfinished
    (``tournaments.store.withheld``, the one place this is decided)."""
    hold = log_hold(store, name)
    if hold is not None:
        return {
            "withheld": f"this bot's log is {hold.reason}",
            "withheld_by": list(hold.tournaments),
            "files": [],
            "empty": 0,
        }
    files, empty = [], 0
    for path in bot_logs(logs_folder(Path(store.path)), name):
        stat = path.stat()
        if stat.st_size == 0:
            empty += 1
            continue
        with path.open("rb") as handle:
            handle.seek(max(0, stat.st_size - LOG_TAIL_BYTES))
            text = handle.read().decode("utf-8", errors="replace")
        entrant, rotation = _log_label(path)
        files.append(
            {
                "file": path.name,
                "bytes": stat.st_size,
                "truncated": stat.st_size > LOG_TAIL_BYTES,
                "entrant": entrant,
                "rotation": rotation,
                "tournaments": [t["id"] for t in record["tournaments"] if t["entrant"] == entrant],
                "written_at": datetime.fromtimestamp(stat.st_mtime, UTC).isoformat(
                    timespec="seconds"
                ),
                "text": printable(text, keep_lines=True),
            }
        )
    return {"withheld": None, "withheld_by": [], "files": files, "empty": empty}
