"""A tournament's games as lists, read from the store: page by page, filtered and sorted (the
web's games list), the latest finished, as data lines with their deals' actions (the web's
download), in plan order with their faults (``arena tournament games``), and which of them may
be replayed.

Every function takes a ``Store`` (a read-only one works: none of them writes). Nothing
returned holds a secret: no deal seed or action of a game whose deal is still in play, no bot
command line or folder. Whether a game's replay may be shown is decided in one place,
``tournaments.store.withheld`` (``REPLAY_SHOWN``: a deal's replays wait until every rotation
of it is played).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass
from typing import Any

from tournaments.errors import BadParameter, NotFound
from tournaments.store.facts import Store
from tournaments.store.values import TournamentInfo
from tournaments.store.withheld import REPLAY_SHOWN

__all__ = [
    "FAULTS",
    "SORTS",
    "STATUSES",
    "WITHHELD",
    "GamesFilter",
    "GamesPage",
    "RawJSON",
    "game_lines",
    "games_list",
    "games_page",
    "iter_game_lines",
    "recent_games",
    "shown_games",
]

#: Why a played game has no replay link.
WITHHELD = "replay withheld until every rotation of its deal is played"


class RawJSON(str):
    """JSON text read from the database, written out as it is (the web's ``games.jsonl``)."""


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


def iter_game_lines(
    open_store: Callable[[], AbstractContextManager[Store]], tid: int, *, chunk: int = 500
) -> Iterator[dict]:
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


def games_list(
    store: Store, tid: int, *, entrant: str | None = None, faults: bool = False
) -> list[dict[str, Any]]:
    """``arena tournament games ID [--json]``: tournament ``tid``'s games in plan order, each
    with its id, repetition, table, rotation, status, seating (entrant by seat), places and
    forfeits once played, and its faults by seat and kind; with ``entrant``, only that
    entrant's games; with ``faults``, only games with a fault. Nothing about a deal's cards
    (no deal seed, no actions). Raises NotFound for an unknown tournament or entrant."""
    info = store.tournament(tid)
    where, params = "g.tournament_id = ?", [tid]
    if entrant is not None:
        if entrant not in {e.name for e in info.entrants}:
            raise NotFound(
                f"no entrant {entrant!r} in tournament {tid} "
                f"(entrants: {', '.join(e.name for e in info.entrants)})"
            )
        where += " AND g.id IN (SELECT game_id FROM seats WHERE tournament_id = ? AND entrant = ?)"
        params += [tid, entrant]
    if faults:
        where += " AND g.id IN (SELECT game_id FROM seats WHERE tournament_id = ? AND faults > 0)"
        params.append(tid)
    rows = store.db.execute(
        "SELECT g.id, g.plan_index, g.round, g.table_index, g.rotation, g.status, g.seating, "
        "json_extract(g.outcome, '$.places'), g.forfeits FROM games g "
        f"WHERE {where} ORDER BY g.plan_index",
        params,
    ).fetchall()
    by_game: dict[int, list[dict[str, Any]]] = {}
    for game_id, seat, kind, count in store.db.execute(
        "SELECT f.game_id, f.seat, f.kind, COUNT(*) FROM faults f JOIN games g ON g.id = f.game_id "
        "WHERE g.tournament_id = ? GROUP BY f.game_id, f.seat, f.kind ORDER BY f.game_id, f.seat",
        (tid,),
    ).fetchall():
        by_game.setdefault(game_id, []).append({"seat": seat, "kind": kind, "count": count})
    return [
        {
            "id": gid,
            "plan_index": index,
            "repetition": repetition,
            "table": table,
            "rotation": rotation,
            "status": status,
            "seating": json.loads(seating),
            "places": json.loads(places) if places else None,
            "forfeits": json.loads(forfeits) if forfeits else [],
            "faults": by_game.get(gid, []),
        }
        for gid, index, repetition, table, rotation, status, seating, places, forfeits in rows
    ]
