"""The pages' data, shared by the server (``arena.web.app``) and the static export
(``arena.web.export``): what each page shows and what its JSON twin returns.

JSON twins return what the CLI's ``--json`` prints (``tournaments.published``). A tournament's
derived data (ratings, LOS, crosstable, history) is computed once per number of games played
and kept in a small cache, so a finished tournament's page costs one computation in all. While
a tournament runs, its data is computed again at most every ``LIVE_MIN_S`` seconds and at most
``LIVE_SHARE`` of the time (pages, JSON twins and the live view show the last computed data,
with the number of games it counts), so watching a run costs it little.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from arena.errors import UnknownGame
from arena.games import get_game
from arena.web import charts
from arena.web.frames import (
    REFEREE,
    Replay,
    ReplayMismatch,
    build_replay,
    logs_script,
    packed,
    perspective_frames,
    replay_script,
)
from arena.web.links import DOWNLOADS, Links
from tournaments import published, reports
from tournaments.errors import BadParameter, NotFound
from tournaments.service import TournamentKind
from tournaments.store import game_lists, gamelogs
from tournaments.store.facts import Store
from tournaments.store.game_lists import GamesFilter
from tournaments.store.values import TournamentInfo, TournamentStatus
from tournaments.store.withheld import (
    TableInPlay,
    deal_in_play,
    deal_withheld_reason,
    tables_in_play,
)

__all__ = ["Bundle", "DealInPlay", "Site"]


def _score_first(game: str) -> str:
    """How a column of ``game``'s scores sorts on its first click: the best first (``asc``
    where the lowest score wins)."""
    try:
        return "asc" if get_game(game).lower_score_wins else "desc"
    except UnknownGame:
        return "desc"


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


class DealInPlay(NotFound):
    """A game whose deal is still being played in another seat rotation: not shown yet."""


@dataclass(frozen=True)
class Bundle:
    """Everything derived from one tournament at one number of games played."""

    info: TournamentInfo
    rows: list[reports.RankingRow]
    tournament: dict[str, Any]
    rankings: dict[str, Any]
    crosstable: dict[str, Any]
    history: dict[str, list[tuple[int, float]]]
    computed_at: float
    cost_s: float


def swiss_rows(shown: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """A Swiss tournament's standings after its last round, each line with its score and place
    after every round (``after``: ``(score, place)`` by round); none for another format."""
    standings = (shown or {}).get("standings") or []
    if not standings:
        return []
    places = [{line["entrant"]: line["rank"] for line in lines} for lines in standings]
    return [
        line
        | {"after": [(score, places[r][line["entrant"]]) for r, score in enumerate(line["after"])]}
        for line in standings[-1]
    ]


class Site:
    """Page data over one database path; thread-safe; caches tournament bundles."""

    #: The live view recomputes ratings of a running tournament at most this often, and
    #: never more than ``1 / LIVE_SHARE`` of the time (a 2 % share of one core at most).
    LIVE_MIN_S = 2.0
    LIVE_SHARE = 0.02

    def __init__(self, db_path: str) -> None:
        self.db_path = db_path
        self._bundles: OrderedDict[tuple[int, int, str, int], Bundle] = OrderedDict()
        self._last: dict[int, Bundle] = {}
        self._samples: dict[int, list[tuple[float, int]]] = {}
        self._computing: dict[int, threading.Lock] = {}
        self._replays: OrderedDict[int, tuple[Replay, str]] = OrderedDict()
        self._lock = threading.Lock()

    # -- tournaments --------------------------------------------------------------------

    def index(self, store: Store, params: Mapping[str, str]) -> dict[str, Any]:
        """The tournaments (those of one game, or of one status, when ``params`` say so),
        each with its run's state. A ladder's batches are on its page (/ladders/NAME), not
        listed one by one here."""
        infos = [t for t in store.list_tournaments() if t.spec.kind is not TournamentKind.LADDER]
        statuses = tuple(status.value for status in TournamentStatus)
        game, status = params.get("game") or None, params.get("status") or None
        if status is not None and status not in statuses:
            raise BadParameter(f"status must be one of {', '.join(statuses)}")
        shown = [
            t
            for t in infos
            if (game is None or t.spec.game == game)
            and (status is None or t.status.value == status)
        ]
        return {
            "tournaments": shown,
            "runs": {t.id: published.run_status(store, t) for t in shown},
            "kinds": {t.id: reports.kind_text(t.spec) for t in shown},
            "games": sorted({t.spec.game for t in infos}),
            "statuses": statuses,
            "chosen": {"game": game, "status": status},
        }

    def bundle(self, store: Store, tid: int, *, info: TournamentInfo | None = None) -> Bundle:
        """The tournament's derived data. While it runs, the last one computed is reused
        until ``_due`` allows a new computation."""
        info = info or store.tournament(tid)
        key = (tid, info.games_done, info.status.value, info.games_total)
        with self._lock:
            found = self._bundles.get(key)
            last = self._last.get(tid)
        if (
            found is None
            and last is not None
            and (last.info.games_done, last.info.status, last.info.games_total)
            == (info.games_done, info.status, info.games_total)
        ):
            found = last  # evicted from the cache, still the latest
        if found is not None:
            return found
        running = info.status.value == "in-progress"
        if running and last is not None and not self._due(last):
            return last
        with self._lock:
            computing = self._computing.setdefault(tid, threading.Lock())
        with computing:  # one computation per tournament at a time; others wait for it
            with self._lock:
                found = self._bundles.get(key)
            return found if found is not None else self._compute(store, tid, info, key)

    def _compute(
        self, store: Store, tid: int, info: TournamentInfo, key: tuple[int, int, str, int]
    ) -> Bundle:
        start = time.perf_counter()
        rows = published.ranking_rows(store, tid)
        rated = store.results.compute_ratings(tid)
        rankings = published.rankings_data(store, tid, rated=rated, rows=rows)
        crosstable = published.crosstable_data(store, tid, crosstable=rated.crosstable)
        history = charts.history_series(rated.elo.history, [e.name for e in info.entrants])
        bundle = Bundle(
            info=info,
            rows=rows,
            tournament=published.tournament_data(store, tid, info=info, rows=rows),
            rankings=rankings,
            crosstable=crosstable,
            history=history,
            computed_at=time.monotonic(),
            cost_s=time.perf_counter() - start,
        )
        with self._lock:
            self._bundles[key] = bundle
            self._last[tid] = bundle
            while len(self._bundles) > 16:
                self._bundles.popitem(last=False)
        return bundle

    def tournament_page(
        self,
        store: Store,
        tid: int,
        *,
        links: Links,
        page: int = 1,
        games_filter: GamesFilter | None = None,
        per_page: int = 50,
    ) -> dict[str, Any]:
        """Everything a tournament page shows: its run, rankings, charts (both heat maps
        number the entrants in ranking order; a cell links to the two entrants' games), the
        latest games, one page of its games (filtered), and with an entrant and an opponent
        their head-to-head score."""
        info = store.tournament(tid)
        bundle = self.bundle(store, tid, info=info)
        games_filter = games_filter or GamesFilter()
        labels = [e.name for e in info.entrants]
        los = bundle.rankings["los"] if bundle.info.games_done else {}
        ranked = [r.entrant for r in bundle.rows] or labels
        pairs = {(p["entrant"], p["opponent"]): p for p in bundle.crosstable["pairs"]}

        def played(a: str, b: str) -> int:
            pair = pairs.get((a, b))
            return pair["wins"] + pair["draws"] + pair["losses"] if pair else 0

        def los_cell(a: str, b: str) -> charts.HeatCell:
            value = los.get(a, {}).get(b)
            tip = f"{a} over {b}: " + (
                "no games yet" if value is None else f"{100 * value:.0f}% likely to be stronger"
            )
            return charts.HeatCell(value, played(a, b), tip + f" ({played(a, b)} games met)")

        def cross_cell(a: str, b: str) -> charts.HeatCell:
            pair = pairs.get((a, b))
            score = pair["score"] if pair else None
            if pair is None or score is None:
                return charts.HeatCell(None, 0, f"{a} and {b} have not met yet")
            tip = (
                f"{a} against {b}: {pair['wins']} wins, {pair['draws']} draws, "
                f"{pair['losses']} losses ({100 * score:.0f}%); open their games"
            )
            return charts.HeatCell(score, played(a, b), tip)

        def games_of(a: str, b: str) -> str | None:
            found = links.tournament(tid, games_filter=GamesFilter(entrant=a, opponent=b))
            return None if found is None else found + "#games-title"

        h2h = None
        if games_filter.entrant and games_filter.opponent:
            pair = pairs.get((games_filter.entrant, games_filter.opponent))
            if pair is not None:
                h2h = pair | {"played": played(games_filter.entrant, games_filter.opponent)}
        match = bundle.tournament.get("match")
        return {
            "info": info,
            "score_first": _score_first(info.spec.game),
            "heading": published.heading(store, info),
            "sprt": None
            if match is None
            else published.match_view(match, finished=bundle.info.status.finished),
            "run": published.run_status(store, info),
            "live": self.live(store, tid, info=info),
            "rows": bundle.rows,
            "rated_games": bundle.info.games_done,
            "faults": bundle.tournament["faults"],
            "elo_chart": charts.elo_bars(
                [(r.entrant, r.elo, r.elo_lo, r.elo_hi) for r in bundle.rows]
            ),
            "los_chart": charts.heat_map(
                ranked, los_cell, title="likelihood of superiority", href=games_of
            ),
            "cross_chart": charts.heat_map(
                ranked, cross_cell, title="crosstable score", href=games_of
            ),
            "history_chart": charts.line_chart(
                {e: [(i + 1, r) for i, r in s] for e, s in bundle.history.items()}
            ),
            "games": game_lists.games_page(
                store, tid, games_filter=games_filter, page=page, per_page=per_page, info=info
            ),
            "recent": game_lists.recent_games(store, tid),
            "h2h": h2h,
            "entrants": labels,
            "format": bundle.tournament.get("format"),
            "swiss": swiss_rows(bundle.tournament.get("format")),
            "downloads": DOWNLOADS,
            "faulted": GamesFilter(faults="with"),
        }

    def tournament_json(self, store: Store, tid: int) -> dict[str, Any]:
        """``tournament show --json``, with the progress of now even while the rankings are
        those last computed."""
        info = store.tournament(tid)
        data = dict(self.bundle(store, tid, info=info).tournament)
        data.update(
            status=info.status.value, games_done=info.games_done, games_total=info.games_total
        )
        return data

    def _due(self, last: Bundle) -> bool:
        """Whether a running tournament's data may be computed again."""
        wait = max(self.LIVE_MIN_S, last.cost_s / self.LIVE_SHARE)
        return time.monotonic() - last.computed_at >= wait

    def warm(self, store: Store) -> None:
        """Compute every tournament's data, newest first (the server does it at start, so
        that no visitor waits for a large tournament's ratings)."""
        for info in reversed(store.list_tournaments()):
            self.bundle(store, info.id, info=info)

    def live(self, store: Store, tid: int, *, info: TournamentInfo | None = None) -> dict[str, Any]:
        """Progress, run state, rate, ETA, the games being played and current rankings of a
        tournament, cheap enough to poll: the ratings are recomputed only when the throttle
        allows (see ``LIVE_SHARE``). Rate, ETA and the games being played are given only while
        the run is alive."""
        info = info or store.tournament(tid)
        run = published.run_status(store, info)
        now = time.monotonic()
        with self._lock:
            samples = self._samples.setdefault(tid, [])
            if run.state != "running":
                samples.clear()
            samples.append((now, info.games_done))
            while len(samples) > 2 and now - samples[0][0] > 60:
                samples.pop(0)
            first = samples[0]
        rate = (info.games_done - first[1]) / (now - first[0]) if now - first[0] >= 1 else None
        left = info.games_total - info.games_done
        eta = left / rate if rate else (0.0 if not left else None)
        if run.state != "running":
            rate = eta = None
        last = self.bundle(store, tid, info=info)
        playing = tables_in_play(store, tid) if run.state == "running" else []
        return {
            "tournament": tid,
            "status": info.status.value,
            "run": run.to_dict(),
            "playing": [table_in_play(table) for table in playing],
            "games_done": info.games_done,
            "games_total": info.games_total,
            "rate_per_s": None if rate is None else round(rate, 3),
            "eta_s": None if eta is None else round(eta, 1),
            # a match's test may stop it sooner: its ETA is only a bound
            "eta_bound": info.spec.kind is TournamentKind.MATCH,
            "rankings": last.tournament["rankings"],
            "rankings_games": last.info.games_done,
        }

    # -- bots and games -----------------------------------------------------------------

    def bot(self, store: Store, name: str) -> dict[str, Any]:
        """A bot's record, description and log (``published.bot_data``), and its rating in
        each of its tournaments (from their rankings: ``ratings``)."""
        record = published.bot_data(store, name)
        ratings = []
        for entry in record["tournaments"]:
            row = next(
                (r for r in self.bundle(store, entry["id"]).rows if r.entrant == entry["entrant"]),
                None,
            )
            if row is not None and row.elo is not None:
                ratings.append(
                    {
                        "tournament": entry["id"],
                        "entrant": entry["entrant"],
                        "game": entry["game"],
                        "created_at": entry["created_at"],
                        "elo": row.elo,
                        "elo_lo": row.elo_lo,
                        "elo_hi": row.elo_hi,
                        "games": row.games,
                    }
                )
        record["ratings"] = ratings
        return record

    def bot_page(self, store: Store, name: str, *, links: Links) -> dict[str, Any]:
        """A bot's page: its record and a chart of its rating in each of its tournaments (a
        line through those of one game only)."""
        record = self.bot(store, name)
        points = [
            charts.TimelinePoint(
                label=f"#{r['tournament']} {r['game']}",
                elo=r["elo"],
                lo=r["elo_lo"],
                hi=r["elo_hi"],
                tip=(
                    f"tournament {r['tournament']} ({r['game']}, {r['created_at'][:10]}), as "
                    f"{r['entrant']}: {r['elo']:.0f} over {r['games']} games"
                ),
                href=links.tournament(r["tournament"]),
                series=r["game"],
            )
            for r in record["ratings"]
        ]
        return {"bot": record, "rating_chart": charts.timeline(points)}

    def open_game(self, store: Store, game_id: int) -> Any:
        """The stored game, refused (``DealInPlay``) while its deal is still in play."""
        stored = store.game(game_id)
        if stored.record is None:
            raise NotFound(f"game {game_id} has not been played yet")
        if deal_in_play(store, game_id):
            raise DealInPlay(deal_withheld_reason(game_id))
        return stored

    #: Replays kept built (a replay is the same forever once shown).
    REPLAYS_KEPT = 24

    def replay(self, store: Store, game_id: int) -> tuple[Replay, str]:
        """Game ``game_id``'s frames (every perspective) and the viewer's script of them
        (packed and compressed once), refused (``DealInPlay``) while its deal is still in
        play."""
        stored = self.open_game(store, game_id)
        with self._lock:
            found = self._replays.get(game_id)
            if found is not None:
                self._replays.move_to_end(game_id)
                return found
        try:
            replay = build_replay(stored.record, list(stored.planned.seating))
        except ReplayMismatch:
            raise NotFound(
                f"game {game_id} does not replay to its stored result "
                "(was it played with another version of the rules?)"
            ) from None
        found = (replay, replay_script(packed(replay)))
        with self._lock:
            self._replays[game_id] = found
            while len(self._replays) > self.REPLAYS_KEPT:
                self._replays.popitem(last=False)
        return found

    def game_page(self, store: Store, game_id: int) -> dict[str, Any]:
        stored = self.open_game(store, game_id)
        record = stored.record
        replay, _ = self.replay(store, game_id)
        faults = [f.to_dict() for f in record.faults]
        first_of_step: dict[int, int] = {}
        for frame in replay.frames:
            first_of_step.setdefault(frame.step, frame.index)
        for fault in faults:  # the frame that shows the step the fault was met at
            fault["frame"] = first_of_step.get(fault["step"] + 1, len(replay.frames) - 1)
        return {
            "stored": stored,
            "record": record,
            "faults": faults,
            "seats": list(range(record.players)),
            "names": list(stored.planned.seating),
            "sheet": replay.sheet,
            "table": replay.table,
            "frames": len(replay.frames),
        }

    def game_json(self, store: Store, game_id: int, seat: int | None) -> dict[str, Any]:
        self.open_game(store, game_id)
        if seat is None:
            return published.replay_data(store, game_id)
        return published.seat_data(published.replayed(store, game_id), seat)

    def game_frames(self, store: Store, game_id: int, perspective: str) -> dict[str, Any]:
        replay, _ = self.replay(store, game_id)
        if perspective != REFEREE and (
            not (perspective.isascii() and perspective.isdigit())
            or int(perspective) >= replay.players
        ):
            raise NotFound(f"game {game_id} has no seat {perspective!r}")
        seat = None if perspective == REFEREE else int(perspective)
        logs = gamelogs.game_log(store, game_id, seats=None if seat is None else [seat])
        return perspective_frames(replay, perspective, logs)

    def replay_script(self, store: Store, game_id: int) -> str:
        """The replay viewer's data of game ``game_id`` (``frames.replay_script``) and its
        bots' log lines (``frames.logs_script``: read each time, as they may be withheld)."""
        replay, script = self.replay(store, game_id)
        return script + logs_script(replay, gamelogs.game_log(store, game_id))
