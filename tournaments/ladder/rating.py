"""Rating a ladder's games: skills folded game by game in one fixed order.

The order is the games' ids: batch after batch, plan order within a batch (a batch's games
are written in plan order when it is planned). A batch is *rated* once all its games are
played: its games are folded into the skill cache (``ladder_skills``) in that order, with one
history row per seat, in one transaction that also marks it rated and suspends the versions
that faulted past the ladder's threshold (``fold_ready``). Batches are rated in their order
and never twice, so the cache is always the fold of the first batches' games.

A reader never sees stale skills: ``current`` takes the cache and folds, in the same order,
the finished games of the batches not rated yet (a batch in play, or one whose run was
killed before it was rated); nothing is written. ``rebuild`` recomputes the cache from no
skills at all, which gives the same values bit for bit.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from tournaments.ratings.skill import Skill, inherited, initial, rate
from tournaments.store.ladder_values import Entry, EntryStatus, LadderGame, LadderInfo
from tournaments.store.ladders import LadderStore

__all__ = ["Ratings", "current", "fold_ready", "rebuild", "suspension"]

log = logging.getLogger(__name__)


class Ratings:
    """Skills of a ladder's entries as games are folded in, starting from ``start`` (entry ->
    (skill, games)); an entry with no skill yet starts from its predecessor's (``inherit``)
    or from the prior."""

    def __init__(
        self,
        entries: Iterable[Entry],
        *,
        inherit: bool,
        start: Mapping[int, tuple[Skill, int]] | None = None,
    ) -> None:
        self.previous = {e.id: e.previous_id for e in entries}
        self.inherit = inherit
        self.skills = {entry: skill for entry, (skill, _) in (start or {}).items()}
        self.games = {entry: games for entry, (_, games) in (start or {}).items()}

    def skill(self, entry: int) -> Skill:
        """The entry's skill now (its starting skill if it has played no rated game)."""
        found = self.skills.get(entry)
        if found is not None:
            return found
        previous = self.previous.get(entry)
        if self.inherit and previous is not None:
            return inherited(self.skill(previous))
        return initial()

    def fold(self, game: LadderGame) -> list[tuple[int, int, float, float]]:
        """Rate one game; its history rows (entry, game id, mu, sigma)."""
        after = rate([self.skill(e) for e in game.entries], game.places)
        rows = []
        for entry, skill in zip(game.entries, after):
            self.skills[entry] = skill
            self.games[entry] = self.games.get(entry, 0) + 1
            rows.append((entry, game.id, skill.mu, skill.sigma))
        return rows

    def state(self, entries: Iterable[int]) -> dict[int, tuple[Skill, int]]:
        return {e: (self.skills[e], self.games[e]) for e in entries if e in self.skills}


def suspension(ladder: LadderInfo, faulty: int, kinds: Mapping[str, int]) -> str | None:
    """Why a version with ``faulty`` faulty games among its last ``fault_window`` is
    suspended (its faults by kind in ``kinds``), or None if it is not."""
    settings = ladder.settings
    if faulty < settings.fault_limit:
        return None
    detail = ", ".join(f"{kind} {count}" for kind, count in sorted(kinds.items()))
    return (
        f"faults in {faulty} of its last {settings.fault_window} games"
        + (f" ({detail})" if detail else "")
        + f"; the limit is {settings.fault_limit}"
    )


@dataclass(frozen=True, kw_only=True)
class Folded:
    """What ``fold_ready`` rated: batches, games, and the versions it suspended."""

    batches: int = 0
    games: int = 0
    suspended: tuple[str, ...] = ()


def fold_ready(lstore: LadderStore, ladder: LadderInfo) -> Folded:
    """Rate every batch whose games are all played, in order, stopping at the first that is
    not complete (the order is kept). Each batch is one transaction; a batch rated already
    (by another process) is skipped."""
    batches = games = 0
    suspended: list[str] = []
    for tid in lstore.batches(ladder.id, rated=False):
        if lstore.pending_in(tid):
            break
        entries = lstore.entries(ladder.id)
        ratings = Ratings(entries, inherit=ladder.settings.inherit, start=lstore.skills(ladder.id))
        history: list[tuple[int, int, float, float]] = []
        seated: set[int] = set()
        batch_games = [g for g in lstore.games(ladder.id, rated=False) if g.batch == tid]
        for game in batch_games:
            history += ratings.fold(game)
            seated.update(game.entries)
        by_id = {e.id: e for e in entries}
        reasons = {}
        for entry in sorted(lstore.faulty_in(tid)):  # only a version that faulted here
            if by_id[entry].status is not EntryStatus.ACTIVE:
                continue
            reason = suspension(ladder, *lstore.recent_faults(entry, ladder.settings.fault_window))
            if reason is not None:
                reasons[entry] = reason
        if lstore.save_rated(ladder.id, tid, ratings.state(seated), history, reasons):
            batches += 1
            games += len(batch_games)
            suspended += [f"{by_id[e].label}: {why}" for e, why in reasons.items()]
            for entry, why in reasons.items():
                log.warning("ladder %s: %s suspended: %s", ladder.name, by_id[entry].label, why)
    return Folded(batches=batches, games=games, suspended=tuple(suspended))


def current(
    lstore: LadderStore,
    ladder: LadderInfo,
    entries: Iterable[Entry],
    *,
    history: list[tuple[int, int, float, float]] | None = None,
) -> Ratings:
    """The skills the stored games give now: the cache, then the finished games of the
    batches not rated yet, folded in order (nothing is written; their history rows go to
    ``history`` if given). Read it inside ``lstore.snapshot()`` for a consistent view."""
    ratings = Ratings(entries, inherit=ladder.settings.inherit, start=lstore.skills(ladder.id))
    for game in lstore.games(ladder.id, rated=False):
        rows = ratings.fold(game)
        if history is not None:
            history += rows
    return ratings


def rebuild(lstore: LadderStore, ladder: LadderInfo) -> Ratings:
    """Recompute the skill cache and history from the stored games, from no skills at all:
    every complete batch is rated again in order (the first incomplete one and those after it
    stay unrated). Suspensions, which are facts of their moment, stay as they are."""
    with lstore.snapshot():
        entries = lstore.entries(ladder.id)
        batches = lstore.batches(ladder.id)
        complete = []
        for tid in batches:
            if lstore.pending_in(tid):
                break
            complete.append(tid)
        chosen = set(complete)
        games = [g for g in lstore.games(ladder.id) if g.batch in chosen]
    ratings = Ratings(entries, inherit=ladder.settings.inherit)
    history = []
    for game in games:
        history += ratings.fold(game)
    lstore.replace_skills(ladder.id, ratings.state(ratings.skills), history, complete)
    return ratings
