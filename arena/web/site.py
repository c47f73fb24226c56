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
from dataclasses import dataclass
from typing import Any

from arena.web import charts, queries
from arena.web.frames import REFEREE, frames
from tournaments import gamelogs, published, reports
from tournaments.errors import NotFound
from tournaments.store import Store
from tournaments.values import TournamentInfo

__all__ = ["Bundle", "DealInPlay", "Site"]


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


class Site:
    """Page data over one database path; thread-safe; caches tournament bundles."""

    #: The live view recomputes ratings of a running tournament at most this often, and
    #: never more than ``1 / LIVE_SHARE`` of the time (a 2 % share of one core at most).
    LIVE_MIN_S = 5.0
    LIVE_SHARE = 0.02

    def __init__(self, db_path: str, *, bundled: tuple[str, ...] = ()) -> None:
        self.db_path = db_path
        self.bundled = bundled
        self._bundles: OrderedDict[tuple[int, int, str], Bundle] = OrderedDict()
        self._last: dict[int, Bundle] = {}
        self._samples: dict[int, list[tuple[float, int]]] = {}
        self._computing: dict[int, threading.Lock] = {}
        self._lock = threading.Lock()

    # -- tournaments --------------------------------------------------------------------

    def bundle(self, store: Store, tid: int, *, info: TournamentInfo | None = None) -> Bundle:
        """The tournament's derived data. While it runs, the last one computed is reused
        until ``_due`` allows a new computation."""
        info = info or store.tournament(tid)
        key = (tid, info.games_done, info.status.value)
        with self._lock:
            found = self._bundles.get(key)
            last = self._last.get(tid)
        if (
            found is None
            and last is not None
            and (last.info.games_done, last.info.status) == (info.games_done, info.status)
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
        self, store: Store, tid: int, info: TournamentInfo, key: tuple[int, int, str]
    ) -> Bundle:
        start = time.perf_counter()
        rows = published.ranking_rows(store, tid)
        rated = store.compute_ratings(tid)
        rankings = published.rankings_data(store, tid, rated=rated, rows=rows)
        crosstable = published.crosstable_data(store, tid, crosstable=rated.crosstable)
        history = queries.history_series(rated.elo.history, [e.name for e in info.entrants])
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
        page: int = 1,
        entrant: str | None = None,
        per_page: int = 50,
    ) -> dict[str, Any]:
        info = store.tournament(tid)
        bundle = self.bundle(store, tid, info=info)
        labels = [e.name for e in info.entrants]
        los = bundle.rankings["los"] if bundle.info.games_done else {}
        ranked = [r.entrant for r in bundle.rows]
        cross = {(p["entrant"], p["opponent"]): p["score"] for p in bundle.crosstable["pairs"]}
        return {
            "info": info,
            "rows": bundle.rows,
            "rated_games": bundle.info.games_done,
            "faults": bundle.tournament["faults"],
            "elo_chart": charts.elo_bars(
                [(r.entrant, r.elo, r.elo_lo, r.elo_hi) for r in bundle.rows]
            ),
            "los_chart": charts.heat_map(
                ranked if los else [],
                lambda a, b: los.get(a, {}).get(b),
                title="likelihood of superiority",
            ),
            "cross_chart": charts.heat_map(
                labels, lambda a, b: cross.get((a, b)), title="crosstable score"
            ),
            "history_chart": charts.line_chart(bundle.history),
            "games": queries.games_page(store, tid, entrant=entrant, page=page, per_page=per_page),
            "entrants": labels,
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

    def live(self, store: Store, tid: int) -> dict[str, Any]:
        """Progress, rate, ETA and current rankings of a tournament, cheap enough to poll:
        the ratings are recomputed only when the throttle allows (see ``LIVE_SHARE``)."""
        info = store.tournament(tid)
        now = time.monotonic()
        with self._lock:
            samples = self._samples.setdefault(tid, [])
            samples.append((now, info.games_done))
            while len(samples) > 2 and now - samples[0][0] > 60:
                samples.pop(0)
            first = samples[0]
        rate = (info.games_done - first[1]) / (now - first[0]) if now - first[0] >= 1 else None
        left = info.games_total - info.games_done
        eta = left / rate if rate else (0.0 if not left else None)
        last = self.bundle(store, tid, info=info)
        rankings = last.tournament["rankings"]
        return {
            "tournament": tid,
            "status": info.status.value,
            "games_done": info.games_done,
            "games_total": info.games_total,
            "rate_per_s": None if rate is None else round(rate, 3),
            "eta_s": None if eta is None else round(eta, 1),
            "rankings": rankings,
            "rankings_games": last.info.games_done,
        }

    # -- bots and games -----------------------------------------------------------------

    def bot(self, store: Store, name: str) -> dict[str, Any]:
        record = queries.bot_record(store, name, bundled=self.bundled)
        record["log"] = queries.bot_log_text(store, self.db_path, name)
        return record

    def open_game(self, store: Store, game_id: int) -> Any:
        """The stored game, refused (``DealInPlay``) while its deal is still in play."""
        stored = store.game(game_id)
        if stored.record is None:
            raise NotFound(f"game {game_id} has not been played yet")
        if queries.deal_in_play(store, game_id):
            raise DealInPlay(
                f"game {game_id}: its deal is still being played in other seat "
                "rotations; its replay is shown once they are done"
            )
        return stored

    def game_page(self, store: Store, game_id: int) -> dict[str, Any]:
        stored = self.open_game(store, game_id)
        record = stored.record
        faults = [f.to_dict() for f in record.faults]
        return {
            "stored": stored,
            "record": record,
            "faults": faults,
            "seats": list(range(record.players)),
            "names": list(stored.planned.seating),
        }

    def game_json(self, store: Store, game_id: int, seat: int | None) -> dict[str, Any]:
        self.open_game(store, game_id)
        if seat is None:
            return published.replay_data(store, game_id)
        return published.seat_data(published.replayed(store, game_id), seat)

    def game_frames(self, store: Store, game_id: int, perspective: str) -> dict[str, Any]:
        stored = self.open_game(store, game_id)
        record = published.replayed(store, game_id)
        if perspective != REFEREE and (
            not (perspective.isascii() and perspective.isdigit())
            or int(perspective) >= record.players
        ):
            raise NotFound(f"game {game_id} has no seat {perspective!r}")
        seat = None if perspective == REFEREE else int(perspective)
        return frames(
            record,
            REFEREE if seat is None else seat,
            list(stored.planned.seating),
            logs=gamelogs.game_log(store, game_id, seats=None if seat is None else [seat]),
        )
