"""Running a match (``arena match NEW BASE``): a one-table tournament stopped by its SPRT.

A match is stored as a tournament of kind ``match`` (``tournaments.schedule``): NEW, BASE and
the filler bots sit at one table, played in every seat rotation of each deal, one deal per
repetition. Its ``sprt`` column holds who NEW and BASE are, the SPRT settings and, once decided, the
result. The runner plays the pending games in plan order (deal by deal); after each finished
game the completed deals are counted (``DealTally``) and the test (``tournaments.sprt``) is
updated; when it accepts H0 or H1 the run stops, leaving the remaining games pending. A run
killed at any moment resumes like any tournament: the deals already stored count again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from tournaments.errors import TournamentError
from tournaments.playing import RunConfig
from tournaments.runner import Progress, run
from tournaments.schedule import TournamentKind
from tournaments.sprt import (
    DealCounts,
    Decision,
    SprtConfig,
    SprtStatus,
    deal_half_points,
    status,
)
from tournaments.store import Store

log = logging.getLogger(__name__)

__all__ = ["DealTally", "MatchInfo", "match_info", "play_match_sprt"]


@dataclass(frozen=True, kw_only=True)
class MatchInfo:
    """A stored match: its tournament id, NEW's and BASE's entrant names, the SPRT settings,
    the games of a deal (the table size) and the result once decided (``H0``/``H1``)."""

    tid: int
    new: str
    base: str
    config: SprtConfig
    games_per_deal: int
    result: Decision | None = None

    def to_data(self) -> dict[str, Any]:
        return {
            "new": self.new,
            "base": self.base,
            "config": self.config.to_dict(),
            "result": None if self.result is None else self.result.value,
        }


def match_info(store: Store, tid: int) -> MatchInfo:
    """The match stored as tournament ``tid``. Raises TournamentError if it is no match."""
    info = store.tournament(tid)
    data = store.sprt(tid)
    if info.spec.kind is not TournamentKind.MATCH or not data:
        raise TournamentError(
            f"tournament {tid} is a {info.spec.kind.value}, not a match "
            "(run it with `arena tournament run`)"
        )
    result = data.get("result")
    return MatchInfo(
        tid=tid,
        new=data["new"],
        base=data["base"],
        config=SprtConfig(**data["config"]),
        games_per_deal=info.spec.table_size,
        result=Decision(result) if result else None,
    )


class DealTally:
    """The completed deals of a match, read from the store as games finish.

    Only the repetitions (deals) not yet complete are read again (runs play deal by deal), so
    following a long match costs little per game."""

    def __init__(self, store: Store, match: MatchInfo) -> None:
        self.store = store
        self.match = match
        self.counts = DealCounts(games_per_deal=match.games_per_deal)
        self._counted: set[int] = set()
        self._first_open = 0

    def update(self) -> DealCounts:
        k = self.match.games_per_deal
        deals: dict[int, list[dict[str, int]]] = {}
        # one table in every rotation: plan index = deal * k + rotation
        for result in self.store.game_results(self.match.tid, since=self._first_open * k):
            deal = result.index // k
            if deal not in self._counted:
                deals.setdefault(deal, []).append(dict(zip(result.seating, result.places)))
        for deal, games in sorted(deals.items()):
            if len(games) == k:
                self.counts = self.counts.add(
                    deal_half_points(games, self.match.new, self.match.base)
                )
                self._counted.add(deal)
        while self._first_open in self._counted:
            self._first_open += 1
        return self.counts

    def status(self) -> SprtStatus:
        return status(self.update(), self.match.config)


def match_summary(store: Store, tid: int) -> dict[str, Any] | None:
    """A match's NEW and BASE, SPRT settings, result and the test's state over its completed
    deals (None for any other tournament): what ``tournament show`` adds for a match."""
    if store.tournament(tid).spec.kind is not TournamentKind.MATCH or not store.sprt(tid):
        return None
    match = match_info(store, tid)
    return {**match.to_data(), "status": DealTally(store, match).status().to_dict()}


def summary_line(summary: Mapping[str, Any]) -> str:
    """``match_summary`` as one line of text."""
    config, now = summary["config"], summary["status"]
    verdict = summary["result"] or "no decision yet"
    return (
        f"{summary['new']} vs {summary['base']}, SPRT elo0={config['elo0']:g} "
        f"elo1={config['elo1']:g} alpha={config['alpha']:g} beta={config['beta']:g}: {verdict}; "
        f"{now['deals']} deals, LLR {now['llr']:+.2f} [{now['lower']:+.2f}, {now['upper']:+.2f}], "
        f"Elo {now['elo']:+.1f} [{now['elo_lo']:+.1f}, {now['elo_hi']:+.1f}]"
    )


class _Decided(Exception):
    """Raised from the runner's progress callback to stop a run at a decision."""


def play_match_sprt(
    store: Store,
    match: MatchInfo,
    config: RunConfig,
    *,
    jobs: int = 1,
    on_status: Callable[[SprtStatus], None] | None = None,
) -> SprtStatus:
    """Play the match's pending games until the SPRT decides or the games run out; store the
    decision; return the final status. ``on_status`` sees the status after each new deal."""
    tally = DealTally(store, match)
    shown = {"deals": -1}

    def check() -> None:
        now = tally.status()
        if now.deals != shown["deals"]:
            shown["deals"] = now.deals
            if on_status is not None:
                on_status(now)
        if now.decision is not Decision.CONTINUE:
            raise _Decided

    def progress(_: Progress) -> None:  # after each recorded game
        check()

    try:
        check()
        run(store, match.tid, config, jobs=jobs, progress=progress)
    except _Decided:
        log.info("match %d decided", match.tid)
    final = tally.status()
    if final.decision is not Decision.CONTINUE:
        decided = MatchInfo(
            tid=match.tid,
            new=match.new,
            base=match.base,
            config=match.config,
            games_per_deal=match.games_per_deal,
            result=final.decision,
        )
        store.set_sprt(match.tid, decided.to_data(), decided=True)
    return final
