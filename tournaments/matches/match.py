"""Running a match (``arena match NEW BASE``): a one-table tournament stopped by its SPRT, or by
its bots' faults.

A match is stored as a tournament of kind ``match`` (``tournaments.plans.schedule``): NEW, BASE and
the filler bots sit at one table, one deal per repetition, each deal played in every seating of
``schedule.seatings`` (at tables of three or more, the cyclic rotations of ``[NEW, BASE,
fillers]`` and of its mirror image, so that NEW sits right before BASE as often as after it).
Its ``sprt`` column holds who NEW and BASE are, the SPRT settings, the fault limit, the games of
a deal and, once decided, the result. The runner plays the pending games in blocks of deals,
each block seating by seating (``tournaments.run.phases``); between blocks, once their deals are
complete, it asks for the match's decision (the ``until`` hook of ``tournaments.run.runner.run``):
the completed deals are counted (``DealTally``) and the decision taken (``MatchStatus``): the
test (``tournaments.matches.sprt``) accepts H0 or H1, or NEW or BASE faulted past the ``FaultLimit``
(a broken bot measures nothing), or it goes on. The decision is a function of the stored results
only. Once decided, the run stops there and the match is done: its plan keeps only what was
played (``Store.set_sprt``), so ``tournament show``, the web page and what ``arena match``
printed agree. A run killed at any moment resumes like any tournament: the deals already
stored count again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tournaments.errors import TournamentError
from tournaments.matches.sprt import (
    DealCounts,
    Decision,
    SprtConfig,
    SprtStatus,
    deal_half_points,
    elo_text,
    status,
)
from tournaments.plans.schedule import TournamentKind
from tournaments.run.playing import RunConfig
from tournaments.run.runner import run
from tournaments.run.sink import Progress
from tournaments.store.facts import Store

log = logging.getLogger(__name__)

__all__ = [
    "DealTally",
    "EntrantRecord",
    "FaultLimit",
    "MatchInfo",
    "MatchStatus",
    "match_info",
    "play_match_sprt",
    "verdict_text",
]


@dataclass(frozen=True, kw_only=True)
class FaultLimit:
    """When NEW's or BASE's faults stop a match: it faulted in more than ``rate`` of its games
    once it has played ``games`` of them (a rate of 1 never stops)."""

    rate: float = 0.05
    games: int = 10

    def __post_init__(self) -> None:
        if not 0.0 <= self.rate <= 1.0 or self.games < 1:
            raise TournamentError(f"a fault limit is a rate in [0, 1], not {self.rate!r}")

    def to_dict(self) -> dict[str, float | int]:
        return {"rate": self.rate, "games": self.games}


@dataclass(frozen=True, kw_only=True)
class MatchInfo:
    """A stored match: its tournament id, NEW's and BASE's entrant names, the SPRT settings,
    the fault limit, the games of a deal (its seatings), the result once decided and why a
    match stopped by faults was stopped."""

    tid: int
    new: str
    base: str
    config: SprtConfig
    games_per_deal: int
    faults: FaultLimit = field(default_factory=FaultLimit)
    result: Decision | None = None
    stopped: str | None = None

    def to_data(self) -> dict[str, Any]:
        return {
            "new": self.new,
            "base": self.base,
            "config": self.config.to_dict(),
            "games_per_deal": self.games_per_deal,
            "faults": self.faults.to_dict(),
            "result": None if self.result is None else self.result.value,
            "stopped": self.stopped,
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
        # matches stored before mirrored seatings played each deal in its k rotations only
        games_per_deal=data.get("games_per_deal", info.spec.table_size),
        faults=FaultLimit(**data.get("faults", {})),
        result=Decision(result) if result else None,
        stopped=data.get("stopped"),
    )


@dataclass(frozen=True, kw_only=True)
class EntrantRecord:
    """One entrant's games over a match's counted deals: wins, places, and its faults by kind
    (``faulty``: games with a fault; ``forfeits``: games it forfeited)."""

    entrant: str
    games: int = 0
    wins: int = 0
    place_sum: int = 0
    faulty: int = 0
    forfeits: int = 0
    faults: tuple[tuple[str, int], ...] = ()

    @property
    def mean_place(self) -> float | None:
        return self.place_sum / self.games if self.games else None

    @property
    def fault_count(self) -> int:
        return sum(n for _, n in self.faults)

    def faults_text(self) -> str:
        """``illegal 301, timeout 2``, or ``none``."""
        return ", ".join(f"{kind} {n}" for kind, n in self.faults) or "none"

    def to_dict(self) -> dict[str, Any]:
        mean = self.mean_place
        return {
            "entrant": self.entrant,
            "games": self.games,
            "wins": self.wins,
            "mean_place": None if mean is None else round(mean, 3),
            "faulty_games": self.faulty,
            "forfeits": self.forfeits,
            "faults": dict(self.faults),
        }


@dataclass(frozen=True, kw_only=True)
class MatchStatus:
    """Where a match stands over its counted (complete) deals: the test, the deal scores (the
    pentanomial counts for tables of two, ``2k + 1`` classes for tables of ``k``), every
    entrant's record, the decision and, for a match stopped by faults, why; ``played`` games
    are stored in all (a deal whose rotations are not all played is not counted)."""

    sprt: SprtStatus
    counts: DealCounts
    entrants: tuple[EntrantRecord, ...]
    decision: Decision
    stopped: str | None
    played: int

    @property
    def deals(self) -> int:
        return self.sprt.deals

    def line(self, *, planned_deals: int | None = None, eta_s: float | None = None) -> str:
        """The live line: deals, the test, the deal scores, faults, and at most how long is
        left (to the end of the planned deals at the pace so far: the test may stop sooner)."""
        deals = f"deals {self.deals}" + (f"/{planned_deals}" if planned_deals else "")
        faults = [f"{e.entrant} {e.faults_text()}" for e in self.entrants if e.faults]
        parts = [
            deals,
            self.sprt.line(),
            "deal scores " + "-".join(str(n) for n in self.counts.counts),
            "faults: " + ("; ".join(faults) if faults else "none"),
        ]
        if eta_s is not None:
            parts.append(f"at most {_duration(eta_s)} left")
        return "  ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.sprt.to_dict(),
            "decision": self.decision.value,
            "stopped": self.stopped,
            "deal_scores": list(self.counts.counts),
            "played": self.played,
            "entrants": [e.to_dict() for e in self.entrants],
        }


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    if seconds >= 60:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds}s"


def decide(
    sprt: SprtStatus, entrants: Sequence[EntrantRecord], match: MatchInfo
) -> tuple[Decision, str | None]:
    """The match's decision: NEW or BASE faulted past the limit (``FAULTS`` and why), else the
    test's. A function of the counted deals only, so a resumed match decides as it would have."""
    limit = match.faults
    for record in entrants:
        if record.entrant not in (match.new, match.base) or record.games < limit.games:
            continue
        if record.faulty > limit.rate * record.games:
            role = "NEW" if record.entrant == match.new else "BASE"
            return Decision.FAULTS, (
                f"{role} {record.entrant} faulted in {record.faulty} of its {record.games} "
                f"games (more than {limit.rate:.0%}): {record.faults_text()}"
            )
    return sprt.decision, None


class _Running:
    """One entrant's counts as deals are added (mutable; ``EntrantRecord`` is its value)."""

    def __init__(self, entrant: str) -> None:
        self.entrant = entrant
        self.games = self.wins = self.place_sum = self.faulty = self.forfeits = 0
        self.faults: dict[str, int] = {}

    def record(self) -> EntrantRecord:
        return EntrantRecord(
            entrant=self.entrant,
            games=self.games,
            wins=self.wins,
            place_sum=self.place_sum,
            faulty=self.faulty,
            forfeits=self.forfeits,
            faults=tuple(sorted(self.faults.items())),
        )


class DealTally:
    """The completed deals of a match, read from the store as games finish: the deal scores
    and every entrant's record.

    Only the repetitions (deals) not yet complete are read again (runs play deal by deal), so
    following a long match costs little per game; the faults by kind are read only for the
    games of new deals that had one."""

    def __init__(self, store: Store, match: MatchInfo) -> None:
        self.store = store
        self.match = match
        self.counts = DealCounts(games_per_deal=match.games_per_deal)
        self._counted: set[int] = set()
        self._first_open = 0
        self._entrants = {e.name: _Running(e.name) for e in store.tournament(match.tid).entrants}
        self._played = 0

    def update(self) -> DealCounts:
        k = self.match.games_per_deal
        games: dict[int, dict[str, tuple[int, int, int, int]]] = {}  # plan index -> seats
        rows = self.store.results.played_seats(self.match.tid, since=self._first_open * k)
        for index, game_id, entrant, place, faults, forfeited in rows:
            games.setdefault(index, {})[entrant] = (place, faults, forfeited, game_id)
        self._played = self._first_open * k + len(games)  # before the window: complete deals
        deals: dict[int, list[int]] = {}
        for index in games:  # one table, each deal in k seatings: plan index = deal * k + rotation
            if index // k not in self._counted:
                deals.setdefault(index // k, []).append(index)
        faulty_games: list[int] = []
        for deal, indexes in sorted(deals.items()):
            if len(indexes) != k:
                continue
            seats = [games[i] for i in indexes]
            places = [{e: s[0] for e, s in seated.items()} for seated in seats]
            self.counts = self.counts.add(deal_half_points(places, self.match.new, self.match.base))
            for seated in seats:
                for entrant, (place, faults, forfeited, game_id) in seated.items():
                    running = self._entrants[entrant]
                    running.games += 1
                    running.wins += place == 1
                    running.place_sum += place
                    running.faulty += faults > 0
                    running.forfeits += bool(forfeited)
                    if faults:
                        faulty_games.append(game_id)
            self._counted.add(deal)
        self._count_faults(faulty_games)
        while self._first_open in self._counted:
            self._first_open += 1
        return self.counts

    def _count_faults(self, game_ids: list[int]) -> None:
        """Faults by kind of these games (each game counted once: it is in one new deal)."""
        if not game_ids:
            return
        for found in self.store.results.faults(games=game_ids):
            faults = self._entrants[found.entrant].faults
            faults[found.kind] = faults.get(found.kind, 0) + found.count

    def status(self) -> MatchStatus:
        counts = self.update()
        sprt = status(counts, self.match.config)
        entrants = tuple(running.record() for running in self._entrants.values())
        decision, stopped = decide(sprt, entrants, self.match)
        return MatchStatus(
            sprt=sprt,
            counts=counts,
            entrants=entrants,
            decision=decision,
            stopped=stopped,
            played=self._played,
        )


def match_summary(store: Store, tid: int) -> dict[str, Any] | None:
    """A match's NEW and BASE, SPRT settings, result and its state over its completed deals
    (None for any other tournament): what ``tournament show`` adds for a match."""
    if store.tournament(tid).spec.kind is not TournamentKind.MATCH or not store.sprt(tid):
        return None
    match = match_info(store, tid)
    return {**match.to_data(), "status": DealTally(store, match).status().to_dict()}


def verdict_text(summary: Mapping[str, Any], *, finished: bool = False) -> str:
    """A match's verdict in words (``match_summary``'s data; ``finished``: its games are all
    played, so no decision is the end)."""
    new, base, elo1 = summary["new"], summary["base"], summary["config"]["elo1"]
    result = summary.get("result")
    if result == Decision.H1.value:
        return f"H1 accepted: {new} is stronger than {base}"
    if result == Decision.H0.value:
        return f"H0 accepted: {new} is not stronger than {base} by {elo1:g} Elo"
    if result == Decision.FAULTS.value:
        return f"stopped: {summary.get('stopped')}"
    return "no decision within the games allowed" if finished else "no decision yet"


def summary_line(summary: Mapping[str, Any]) -> str:
    """``match_summary`` as one line of text."""
    config, now = summary["config"], summary["status"]
    verdict = summary["result"] or "no decision yet"
    if summary["result"] == Decision.FAULTS.value:
        verdict = f"stopped: {summary.get('stopped')}"
    played = now["played"]
    return (
        f"{summary['new']} vs {summary['base']}, SPRT elo0={config['elo0']:g} "
        f"elo1={config['elo1']:g} alpha={config['alpha']:g} beta={config['beta']:g}: {verdict}; "
        f"{now['deals']} deals ({now['games']} games"
        + (f"; {played} played, some in deals left incomplete" if played > now["games"] else "")
        + f"), LLR {now['llr']:+.2f} [{now['lower']:+.2f}, {now['upper']:+.2f}], "
        f"Elo {elo_text(now['elo'], now['elo_lo'], now['elo_hi'])}, "
        f"deal scores {'-'.join(str(n) for n in now['deal_scores'])}"
    )


@dataclass(frozen=True, kw_only=True)
class MatchProgress:
    """A match's status with the run's pace: the deals planned and the time left to play them
    all at the pace so far (an upper bound: the test may decide sooner)."""

    status: MatchStatus
    planned_deals: int
    eta_s: float | None

    def line(self) -> str:
        return self.status.line(planned_deals=self.planned_deals, eta_s=self.eta_s)


def play_match_sprt(
    store: Store,
    match: MatchInfo,
    config: RunConfig,
    *,
    jobs: int = 1,
    on_status: Callable[[MatchProgress], None] | None = None,
) -> MatchStatus:
    """Play the match's pending games, block of deals by block, until it is decided (the SPRT,
    or NEW's or BASE's faults) or the games run out; store the decision; return the final
    status. The decision is looked at before the run and between blocks (once their deals are
    complete); ``on_status`` sees the status after each new deal."""
    tally = DealTally(store, match)
    planned = store.tournament(match.tid).spec.repetitions
    shown = {"deals": -1}
    pace: dict[str, Progress | None] = {"now": None}

    def status() -> MatchStatus:
        now = tally.status()
        if now.deals != shown["deals"]:
            shown["deals"] = now.deals
            if on_status is not None:
                progress = pace["now"]
                eta = progress.eta_s if progress is not None and progress.played else None
                on_status(MatchProgress(status=now, planned_deals=planned, eta_s=eta))
        return now

    def progressed(progress: Progress) -> None:
        pace["now"] = progress
        status()

    def decided() -> bool:  # the runner's hook, between blocks
        return status().decision is not Decision.CONTINUE

    if not decided():
        run(store, match.tid, config, jobs=jobs, progress=progressed, until=decided)
    final = tally.status()
    if final.decision is not Decision.CONTINUE:
        log.info("match %d decided: %s", match.tid, final.decision)
        stored = MatchInfo(
            tid=match.tid,
            new=match.new,
            base=match.base,
            config=match.config,
            games_per_deal=match.games_per_deal,
            faults=match.faults,
            result=final.decision,
            stopped=final.stopped,
        )
        store.set_sprt(match.tid, stored.to_data(), decided=True)
    return final
