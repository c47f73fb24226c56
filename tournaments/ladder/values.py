"""A ladder's values: its settings, its entries (one per version of a bot) and their
leaderboard lines. Frozen dataclasses with ``to_dict()`` for ``--json`` and the web."""

from __future__ import annotations

import enum
import re
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from tournaments.ladder.skill import Skill


class EntryStatus(enum.StrEnum):
    """``active``: in matchmaking; ``retired``: a newer version of its bot replaced it;
    ``suspended``: it faulted past the ladder's threshold (the reason says how)."""

    ACTIVE = "active"
    RETIRED = "retired"
    SUSPENDED = "suspended"


#: A ladder's name: it appears in commands, URLs and pages.
LADDER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
#: A participant's name (an invitation's): shown on the leaderboard.
PARTICIPANT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_. @+-]{0,63}")


def ladder_name_problem(name: object) -> str | None:
    """Why ``name`` cannot name a ladder, or None if it can."""
    if isinstance(name, str) and LADDER_NAME.fullmatch(name):
        return None
    return (
        f"bad ladder name {name!r}: 1-64 letters, digits, '_', '-' or '.', starting with a "
        "letter or digit"
    )


def participant_problem(name: object) -> str | None:
    """Why ``name`` cannot name a participant, or None if it can."""
    if isinstance(name, str) and PARTICIPANT_NAME.fullmatch(name) and name == name.strip():
        return None
    return (
        f"bad participant name {name!r}: 1-64 letters, digits, spaces or '_.@+-', starting "
        "with a letter or digit"
    )


@dataclass(frozen=True, kw_only=True)
class LadderSettings:
    """How a ladder plays and judges (``docs/ladder.md`` gives the reason of each default).

    - ``batch_games``: games per matchmaking batch (each batch is planned from the skills of
      the games before it, and is played as one run: fresh bot processes, every rotation);
      1024 is ``tournaments.run.phases.MIN_DEALS`` deals at tables of four, the fewest a
      tournament's phase holds: a smaller batch plays fewer games a second;
    - ``placement_games``: a bot version with fewer games is in placement: it is seated first;
    - ``max_batch_entries``: most bot versions in one batch (each needs one process per seat
      rotation while the batch runs);
    - ``fault_window`` and ``fault_limit``: a version is suspended when at least
      ``fault_limit`` of its last ``fault_window`` games had a fault of its own;
    - ``inherit``: a new version of a bot starts from its predecessor's mu (with a wider sigma)
      rather than from scratch.
    """

    batch_games: int = 1024
    placement_games: int = 12
    max_batch_entries: int = 48
    fault_window: int = 20
    fault_limit: int = 5
    inherit: bool = True

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LadderSettings:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


@dataclass(frozen=True, kw_only=True)
class LadderInfo:
    """A stored ladder: its game, options, table sizes, move time and settings."""

    id: int
    name: str
    game: str
    options: dict[str, Any]
    min_table: int
    max_table: int
    move_ms: int
    settings: LadderSettings
    created_at: str

    @property
    def table_sizes(self) -> tuple[int, ...]:
        return tuple(range(self.min_table, self.max_table + 1))

    def sizes_text(self) -> str:
        if self.min_table == self.max_table:
            return str(self.min_table)
        return f"{self.min_table}-{self.max_table}"

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["settings"] = self.settings.to_dict()
        data["table_sizes"] = self.sizes_text()
        return data


@dataclass(frozen=True, kw_only=True)
class Entry:
    """One version of a bot in a ladder: the bot's name, the version's number in this ladder
    and its registered version (a batch runs the version it was planned with: a folder bot's
    copy), the registered bot it runs as (its name), its participant, where it came from (an
    upload always runs in the sandbox), its status and the entry it replaced."""

    id: int
    ladder_id: int
    bot: str
    number: int
    version: str
    runs_as: str
    participant: str
    uploaded: bool
    status: EntryStatus
    reason: str | None
    previous_id: int | None
    entered_at: str
    left_at: str | None = None

    @property
    def label(self) -> str:
        """How the leaderboard names it: ``bot`` for a first version, ``bot v2`` after."""
        return self.bot if self.number == 1 else f"{self.bot} v{self.number}"

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Entry:
        return cls(
            id=row["id"],
            ladder_id=row["ladder_id"],
            bot=row["bot"],
            number=row["number"],
            version=row["version"],
            runs_as=row["runs_as"],
            participant=row["participant"],
            uploaded=bool(row["uploaded"]),
            status=EntryStatus(row["status"]),
            reason=row["reason"],
            previous_id=row["previous_id"],
            entered_at=row["entered_at"],
            left_at=row["left_at"],
        )

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["status"] = self.status.value
        data["label"] = self.label
        return data


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

    def to_dict(self) -> dict[str, Any]:
        return {
            "ladder": self.ladder.to_dict(),
            "games": self.games,
            "batches": self.batches,
            "pending": self.pending,
            "notes": list(self.notes),
            "lines": [line.to_dict() for line in self.lines],
        }
