"""Read-only queries the web app needs beyond the Store's own: a tournament's games page by
page (filtered and sorted), its latest games, its games as data lines, a bot's record, a
sampled rating history, and whether a deal is still being played.

Every function takes a ``Store`` (opened read-only by ``arena.web.readonly``) and only reads.
Nothing returned holds a secret: no deal seed or action of a game whose deal is still in play,
no bot command line or folder, no token. Whether a game's replay may be shown is decided in
one place, ``tournaments.store.withheld`` (``REPLAY_SHOWN``: a deal's replays wait until every
rotation of it is played), and whether a bot's log may be shown too.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.procs.logs import bot_logs, logs_folder
from arena.text import printable
from tournaments.catalogue.lookup import bundled_folder
from tournaments.errors import NotFound
from tournaments.ratings import HistoryRow
from tournaments.store.facts import Store
from tournaments.store.values import TournamentInfo
from tournaments.store.withheld import REPLAY_SHOWN, TableInPlay, log_hold

__all__ = [
    "BadParameter",
    "RawJSON",
    "GamesFilter",
    "GamesPage",
    "bot_description",
    "bot_log_text",
    "bot_record",
    "game_lines",
    "games_page",
    "history_series",
    "iter_game_lines",
    "recent_games",
    "shown_games",
]

#: Bytes of the end of each log file shown on a bot's page.
LOG_TAIL_BYTES = 64 * 1024

#: Why a played game has no replay link.
WITHHELD = "replay withheld until every rotation of its deal is played"


class RawJSON(str):
    """JSON text read from the database, written out as it is (``downloads.jsonl``)."""


class BadParameter(ArenaError):
    """A filter or sort that is not one the lists know."""


#: The columns a games list sorts by, and their SQL.
SORTS = {
    "game": "g.plan_index",
    "id": "g.id",
    "status": "g.status",
    "faults": "faults",  # (counted from the faults table)
    "finished": "g.finished_at",
}
STATUSES = ("done", "pending")
FAULTS = ("with", "without")


@dataclass(frozen=True)
class GamesFilter:
    """Which games a list shows and in which order: an entrant (its played games), an
    opponent of that entrant, a status, with or without faults; sorted by ``sort``."""

    entrant: str | None = None
    opponent: str | None = None
    status: str | None = None
    faults: str | None = None
    sort: str = "game"
    descending: bool = False

    @classmethod
    def from_params(cls, params: Mapping[str, str]) -> GamesFilter:
        """From query parameters (``entrant``, ``opponent``, ``status``, ``faults``, ``sort``,
        ``order``); raises BadParameter for a value no list knows."""

        def choice(name: str, allowed: Sequence[str]) -> str | None:
            value = params.get(name) or None
            if value is not None and value not in allowed:
                raise BadParameter(f"{name} must be one of {', '.join(allowed)}, not {value!r}")
            return value

        order = choice("order", ("asc", "desc"))
        return cls(
            entrant=params.get("entrant") or None,
            opponent=params.get("opponent") or None,
            status=choice("status", STATUSES),
            faults=choice("faults", FAULTS),
            sort=choice("sort", tuple(SORTS)) or "game",
            descending=order == "desc",
        )

    def params(self) -> dict[str, str]:
        """The query parameters that give this filter (defaults left out)."""
        found = {
            "entrant": self.entrant,
            "opponent": self.opponent,
            "status": self.status,
            "faults": self.faults,
            "sort": None if self.sort == "game" else self.sort,
            "order": "desc" if self.descending else None,
        }
        return {k: v for k, v in found.items() if v is not None}

    @property
    def narrowed(self) -> bool:
        """Whether it shows fewer games than the whole list."""
        return any((self.entrant, self.opponent, self.status, self.faults))

    def sorted_by(self, column: str) -> GamesFilter:
        """This filter sorted by ``column`` (the other way round if it is already)."""
        descending = not self.descending if column == self.sort else False
        return GamesFilter(
            self.entrant, self.opponent, self.status, self.faults, column, descending
        )


@dataclass(frozen=True)
class GamesPage:
    """One page of a tournament's games."""

    games: list[dict[str, Any]]
    total: int
    page: int
    per_page: int
    games_filter: GamesFilter

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.per_page))

    @property
    def entrant(self) -> str | None:
        return self.games_filter.entrant

    def to_dict(self) -> dict[str, Any]:
        return {
            "games": self.games,
            "total": self.total,
            "page": self.page,
            "per_page": self.per_page,
            "pages": self.pages,
            "entrant": self.games_filter.entrant,
            "filter": asdict(self.games_filter),
        }


_GAME_COLUMNS = (
    "g.id, g.plan_index, g.round, g.table_index, g.rotation, g.status, g.finished_at, "
    "g.seating, g.outcome, g.forfeits, "
    "(SELECT COALESCE(SUM(s.faults), 0) FROM seats s WHERE s.game_id = g.id) AS faults, "
    f"{REPLAY_SHOWN} AS shown"
)


def _game(row: Sequence[Any]) -> dict[str, Any]:
    gid, index, round_, table, rotation, status, finished, seating, outcome, forfeits = row[:10]
    faults, shown = row[10:12]
    result = json.loads(outcome) if outcome else {}
    return {
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
        "replay": bool(shown),
        "withheld": WITHHELD if status == "done" and not shown else None,
    }


def games_page(
    store: Store,
    tid: int,
    *,
    games_filter: GamesFilter | None = None,
    page: int = 1,
    per_page: int = 50,
    info: TournamentInfo | None = None,
) -> GamesPage:
    """Games of tournament ``tid`` (plan order unless sorted): seating, status, places,
    scores, faults, and whether the replay may be shown. An entrant filter lists that
    entrant's played games (and with an opponent, the games they both played). Raises
    NotFound for an unknown tournament or entrant.

    The page's games are chosen first (their ids, by the filter and the order), then read
    with their details: a sort over 100,000 games sorts ids and keys only."""
    chosen = games_filter or GamesFilter()
    info = info or store.tournament(tid)
    page = max(1, page)
    joins, where, params = [], ["g.tournament_id = ?"], [tid]
    labels = {e.name for e in info.entrants}
    if chosen.opponent is not None and chosen.entrant is None:
        raise BadParameter("an opponent needs an entrant")
    for name in (chosen.entrant, chosen.opponent):
        if name is not None and name not in labels:
            raise NotFound(f"no entrant {name!r} in tournament {tid}")
    if chosen.entrant is not None:  # the entrant's seats by index, then each one's game
        joins.append(
            "JOIN seats sa ON sa.game_id = g.id AND sa.tournament_id = ? AND sa.entrant = ?"
        )
        params[:0] = [tid, chosen.entrant]  # join parameters come before the WHERE's
    if chosen.opponent is not None:  # looked up in each of those games
        joins.append(
            "JOIN seats sb ON sb.tournament_id = sa.tournament_id AND sb.entrant = ? "
            "AND sb.game_id = sa.game_id"
        )
        params[2:2] = [chosen.opponent]
    if chosen.status is not None:
        where.append("g.status = ?")
        params.append(chosen.status)
    if chosen.faults is not None or chosen.sort == "faults":
        joins.append(
            "LEFT JOIN (SELECT game_id, COUNT(*) AS faults FROM faults GROUP BY game_id) fc "
            "ON fc.game_id = g.id"
        )
    if chosen.faults is not None:
        where.append(f"fc.faults IS {'NOT ' if chosen.faults == 'with' else ''}NULL")
    source = f"games g {' '.join(joins)} WHERE {' AND '.join(where)}"
    conn = store.db.conn
    total = conn.execute(f"SELECT COUNT(*) FROM {source}", params).fetchone()[0]
    key = "COALESCE(fc.faults, 0)" if chosen.sort == "faults" else SORTS[chosen.sort]
    # Plan order is an index: walking it suits the whole list, but a narrowed list is found
    # faster by its own index (status, an entrant's seats) and then sorted (``+`` tells
    # SQLite, which keeps no statistics here, not to walk the plan-order index).
    plan = "+g.plan_index" if chosen.narrowed else "g.plan_index"
    key = plan if chosen.sort == "game" else key
    order = f"{key} {'DESC' if chosen.descending else 'ASC'}, {plan}"
    ids = [
        gid
        for (gid,) in conn.execute(
            f"SELECT g.id FROM {source} ORDER BY {order} LIMIT ? OFFSET ?",
            [*params, per_page, (page - 1) * per_page],
        )
    ]
    marks = ",".join("?" * len(ids))
    rows = {
        row[0]: row
        for row in conn.execute(f"SELECT {_GAME_COLUMNS} FROM games g WHERE g.id IN ({marks})", ids)
    }
    return GamesPage([_game(rows[gid]) for gid in ids], total, page, per_page, chosen)


def recent_games(store: Store, tid: int, *, limit: int = 8) -> list[dict[str, Any]]:
    """The games of ``tid`` that finished last, latest first."""
    rows = store.db.conn.execute(
        f"SELECT {_GAME_COLUMNS} FROM games g WHERE g.tournament_id = ? AND "
        "g.finished_at IS NOT NULL ORDER BY g.finished_at DESC, g.id DESC LIMIT ?",
        (tid, limit),
    ).fetchall()
    return [_game(row) for row in rows]


def game_lines(store: Store, tid: int, *, after: int = -1, limit: int = 500) -> list[dict]:
    """Up to ``limit`` games of ``tid`` after plan index ``after``, as data lines: what the
    games list says, and for a game whose replay may be shown its deal seed, options, actions
    and faults (the record ``arena replay --json`` gives, without the events). A game whose
    deal is still in play says so and gives none of them."""
    conn = store.db.conn
    rows = conn.execute(
        f"SELECT {_GAME_COLUMNS}, g.deal_seed, g.actions, g.wall_ms FROM games g "
        "WHERE g.tournament_id = ? AND g.plan_index > ? ORDER BY g.plan_index LIMIT ?",
        (tid, after, limit),
    ).fetchall()
    lines = []
    shown = [row[0] for row in rows if row[11]]
    faults: dict[int, list[dict[str, Any]]] = {}
    if shown:
        marks = ",".join("?" * len(shown))
        for gid, seat, step, kind, detail in conn.execute(
            f"SELECT game_id, seat, step, kind, detail FROM faults WHERE game_id IN ({marks}) "
            "ORDER BY id",
            shown,
        ):
            faults.setdefault(gid, []).append(
                {"seat": seat, "step": step, "kind": kind, "detail": detail}
            )
    for row in rows:
        line = _game(row[:12])
        line["tournament_id"] = tid
        if line["replay"]:
            line.update(
                seed=row[12],
                actions=RawJSON(row[13]),
                fault_list=faults.get(line["id"], []),
                wall_ms=row[14],
            )
        lines.append(line)
    return lines


def shown_games(store: Store, tids: Sequence[int]) -> set[int]:
    """The games of tournaments ``tids`` whose replays may be shown."""
    found: set[int] = set()
    for tid in tids:
        found.update(
            gid
            for (gid,) in store.db.conn.execute(
                f"SELECT g.id FROM games g WHERE g.tournament_id = ? AND {REPLAY_SHOWN}", (tid,)
            )
        )
    return found


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
    faults = conn.execute(
        "SELECT f.kind, COUNT(*) FROM faults f JOIN seats s ON s.game_id = f.game_id "
        "AND s.seat = f.seat JOIN entrants e ON e.tournament_id = s.tournament_id "
        "AND e.label = s.entrant WHERE e.bot = ? GROUP BY f.kind ORDER BY f.kind",
        (name,),
    ).fetchall()
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
        "faults": {kind_: n for kind_, n in faults},
    }


def _log_label(path: Path) -> tuple[str, int | None]:
    """The entrant and seat rotation a log file is of (``LABEL.rotN.log``)."""
    label = path.name.split(".log")[0]
    base, _, rotation = label.rpartition(".rot")
    if base and rotation.isdigit():
        return base, int(rotation)
    return label, None


def bot_log_text(store: Store, db_path: str, name: str, record: dict[str, Any]) -> dict[str, Any]:
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
    for path in bot_logs(logs_folder(Path(db_path)), name):
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


def bot_description(name: str, kind: str) -> str | None:
    """A bundled bot's description: the first paragraph of its module's docstring (read as
    text; the bot is not imported). None for other bots."""
    folder = bundled_folder()
    path = folder / f"{name}.py" if folder and kind == "bundled" else None
    if path is None or not path.is_file():
        return None
    try:
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return None
    return " ".join(doc.split("\n\n")[0].split()) if doc else None


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


def iter_game_lines(open_store: Any, tid: int, *, chunk: int = 500) -> Iterator[dict]:
    """Every game of ``tid`` as ``game_lines`` gives them, read ``chunk`` games at a time,
    each chunk through its own short read (``open_store()`` is a context manager giving a
    Store), so a long download never holds the database."""
    after = -1
    while True:
        with open_store() as store:
            lines = game_lines(store, tid, after=after, limit=chunk)
        yield from lines
        if len(lines) < chunk:
            return
        after = lines[-1]["plan_index"]


def table_in_play(table: TableInPlay, *, now: datetime | None = None) -> dict[str, Any]:
    """A game being played, as the live view shows it: its table (``tournaments.store.withheld``:
    never its deal), with the seconds since it started."""
    now = now or datetime.now(UTC)
    started = datetime.fromisoformat(table.started_at)
    return {
        "game_id": table.game_id,
        "repetition": table.repetition,
        "table": table.table,
        "rotation": table.rotation,
        "seats": list(table.seating),
        "started_at": table.started_at,
        "started_s": max(0.0, round((now - started).total_seconds(), 1)),
    }
