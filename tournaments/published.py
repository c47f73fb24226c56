"""What the arena publishes about its results: the data behind the CLI's ``--json`` output and
the web app's JSON endpoints (``arena serve``), one function per view, so both always agree.

Each function reads through a ``Store`` (a read-only one works: none of them writes) and
returns JSON-ready data. Nothing here holds a secret: tournament keys stay in the key file,
and bots' command lines are not part of any of these views.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from arena.referee.record import GameRecord
from arena.referee.replay import replay as replay_game
from arena.referee.replay import seat_story
from tournaments import reports
from tournaments.errors import NotFound, TournamentError
from tournaments.matches.match import match_summary
from tournaments.ratings import Crosstable
from tournaments.store.facts import Store
from tournaments.store.gamelogs import game_log
from tournaments.store.values import TournamentInfo, TournamentRatings

__all__ = [
    "crosstable_data",
    "fault_summary",
    "games_list",
    "ranking_rows",
    "rankings_data",
    "replay_data",
    "replayed",
    "seat_data",
    "tournament_data",
    "tournaments_data",
]


def tournaments_data(store: Store) -> list[dict[str, Any]]:
    """``arena tournament list --json``."""
    return reports.tournaments_json(store.list_tournaments())


def fault_summary(store: Store, tid: int) -> list[dict[str, Any]]:
    """Faults of tournament ``tid`` counted by entrant and kind."""
    # faults first (CROSS JOIN keeps that order): there are few faults and many seats
    rows = store.db.execute(
        "SELECT s.entrant, f.kind, COUNT(*) FROM faults f CROSS JOIN seats s "
        "ON s.game_id = f.game_id AND s.seat = f.seat WHERE s.tournament_id = ? "
        "GROUP BY s.entrant, f.kind ORDER BY s.entrant, f.kind",
        (tid,),
    ).fetchall()
    return [{"entrant": e, "kind": k, "count": n} for e, k, n in rows]


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


def ranking_rows(store: Store, tid: int) -> list[reports.RankingRow]:
    """The rankings of tournament ``tid`` from the ratings its stored games give now."""
    return reports.rankings(store.results.standings(tid), store.results.current_ratings(tid))


def tournament_data(
    store: Store,
    tid: int,
    *,
    info: TournamentInfo | None = None,
    rows: Sequence[reports.RankingRow] | None = None,
) -> dict[str, Any]:
    """``arena tournament show ID --json``: spec, progress, rankings and faults (``info``
    and ``rows`` may be passed when already read)."""
    info = info or store.tournament(tid)
    rows = ranking_rows(store, tid) if rows is None else rows
    data = reports.tournament_json(info, rows)
    data["faults"] = fault_summary(store, tid)
    match = match_summary(store, tid)
    if match is not None:
        data["match"] = match
    return data


def rankings_data(
    store: Store,
    tid: int,
    *,
    rated: TournamentRatings | None = None,
    rows: Sequence[reports.RankingRow] | None = None,
) -> dict[str, Any]:
    """``arena rankings ID --json``: the rankings and the likelihood-of-superiority matrix
    (``rated`` and ``rows`` may be passed when already computed)."""
    rated = rated or store.results.compute_ratings(tid)
    rows = ranking_rows(store, tid) if rows is None else rows
    return {"tournament": tid, "rankings": reports.rankings_json(rows), "los": rated.batch.los}


def crosstable_data(
    store: Store, tid: int, *, crosstable: Crosstable | None = None
) -> dict[str, Any]:
    """``arena crosstable ID --json``."""
    table = crosstable or store.results.crosstable(tid)
    return {"tournament": tid, **reports.crosstable_json(table)}


def replayed(store: Store, game_id: int) -> GameRecord:
    """Stored game ``game_id`` re-played from its deal seed and actions, with its events.
    Raises NotFound for an unknown or unplayed game, or one that no longer replays to its
    stored result."""
    stored = store.game(game_id)
    if stored.record is None:
        raise NotFound(f"game {game_id} has not been played yet")
    record = stored.record
    state = replay_game(
        record.game, record.players, record.seed, record.options, record.joint_actions()
    )
    if tuple(state.outcome().places) != tuple(record.game_places):
        raise NotFound(
            f"game {game_id} does not replay to its stored result "
            "(was it played with another version of the rules?)"
        )
    return replace(record, events=tuple(state.events))


def replay_data(store: Store, game_id: int) -> dict[str, Any]:
    """``arena replay GAME_ID --json``: every action and every chance outcome, the bot
    version each seat's entrant played with (a tournament runs the versions it was planned
    with: ``tournaments.catalogue.lookup``), and what each seat's bot wrote during the game with the
    step it was written at (``logs``: withheld as bot logs are, ``tournaments.store.gamelogs``)."""
    full = replayed(store, game_id)
    stored = store.game(game_id)
    versions = {e.name: e.version for e in store.tournament(stored.tournament_id).entrants}
    data = full.to_dict()
    data.update(
        id=game_id,
        tournament_id=stored.tournament_id,
        seating=list(stored.planned.seating),
        versions=[versions.get(label) for label in stored.planned.seating],
        logs=game_log(store, game_id).to_dict(),
    )
    return data


def seat_data(record: GameRecord, seat: int) -> dict[str, Any]:
    """The game as ``seat`` saw it (``arena replay --seat N --json``, ``arena play --seat N
    --json``): its views, offers and choices, and the result; never the deal seed, the events
    or other seats' views."""
    if not 0 <= seat < record.players:
        raise TournamentError(f"seat {seat} is not one of 0..{record.players - 1}")
    story = seat_story(
        record.game, record.players, record.seed, record.options, record.joint_actions(), seat
    )
    return {
        "game": record.game,
        "options": record.options,
        "seat": seat,
        "bots": list(record.bots),
        "turns": [
            {"step": t.step, "view": t.view, "legal": t.legal, "action": t.action} for t in story
        ],
        "places": list(record.places),
        "scores": list(record.scores),
    }
