"""A ladder's leaderboard: its lines and the board at one moment. Frozen dataclasses with
``to_dict()`` for ``--json`` and the web (the ladder's stored values, its settings and entries,
are ``tournaments.store.ladder_values``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tournaments.plans.schedule import DealMode
from tournaments.ratings.skill import Skill
from tournaments.store.ladder_values import Entry, LadderInfo


@dataclass(frozen=True, kw_only=True)
class BoardLine:
    """One line of a leaderboard: an entry, its skill and the games it counts (``rated``: its
    own), its conservative estimate and rank, its games, places and games with faults, and
    its batch Elo with 95 % interval (None where not computed)."""

    rank: int | None
    entry: Entry
    skill: Skill
    rated: int
    games: int
    wins: int
    mean_place: float | None
    faults: int
    elo: float | None = None
    elo_lo: float | None = None
    elo_hi: float | None = None
    placement: bool = False  # fewer rated games than the ladder's placement games

    @property
    def conservative(self) -> float:
        return self.skill.conservative

    def to_dict(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "bot": self.entry.bot,
            "label": self.entry.label,
            "version": self.entry.version,
            "number": self.entry.number,
            "participant": self.entry.participant,
            "status": self.entry.status.value,
            "reason": self.entry.reason,
            "uploaded": self.entry.uploaded,
            "mu": round(self.skill.mu, 4),
            "sigma": round(self.skill.sigma, 4),
            "conservative": round(self.conservative, 4),
            "rated": self.rated,
            "games": self.games,
            "wins": self.wins,
            "mean_place": None if self.mean_place is None else round(self.mean_place, 3),
            "faults": self.faults,
            "elo": None if self.elo is None else round(self.elo, 1),
            "elo_lo": None if self.elo_lo is None else round(self.elo_lo, 1),
            "elo_hi": None if self.elo_hi is None else round(self.elo_hi, 1),
            "placement": self.placement,
        }


@dataclass(frozen=True, kw_only=True)
class Board:
    """A ladder's leaderboard at one moment: its lines (active versions ranked by the
    conservative estimate, then the suspended and retired ones), how many games it counts
    (finished games, as recorded when it was read), and a note on what is left out."""

    ladder: LadderInfo
    lines: tuple[BoardLine, ...]
    games: int
    batches: int
    pending: int
    notes: tuple[str, ...] = field(default=())

    @property
    def leader(self) -> str | None:
        """The leader: the version ranked first (the highest ``mu - 3 sigma``), the one name
        every face gives (the board, the web page, ``arena ladder run``)."""
        first = self.lines[0] if self.lines else None
        return first.entry.label if first is not None and first.rank == 1 else None

    @property
    def deals(self) -> DealMode:
        """How the ladder's next batch deals (its setting; ``auto``: whether it has uploads)."""
        uploads = any(line.entry.uploaded for line in self.lines)
        return self.ladder.settings.deals.mode(uploads=uploads)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ladder": self.ladder.to_dict(),
            "leader": self.leader,
            "deals": self.deals.value,
            "games": self.games,
            "batches": self.batches,
            "pending": self.pending,
            "notes": list(self.notes),
            "lines": [line.to_dict() for line in self.lines],
        }
