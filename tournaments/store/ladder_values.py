"""A ladder's stored values: its settings, its entries (one per version of a bot), its
finished games as ratings take them and its entries' seat statistics (what
``tournaments.store.ladders`` reads and writes). Frozen dataclasses with ``to_dict()`` for
``--json`` and the web."""

from __future__ import annotations

import enum
import re
from dataclasses import asdict, dataclass, fields
from typing import Any, NamedTuple

from tournaments.plans.schedule import DealMode
from tournaments.store.values import BOT_NAME, bot_name_problem


class EntryStatus(enum.StrEnum):
    """``active``: in matchmaking; ``retired``: a newer version of its bot replaced it;
    ``suspended``: it faulted past the ladder's threshold (the reason says how)."""

    ACTIVE = "active"
    RETIRED = "retired"
    SUSPENDED = "suspended"


class LadderDeals(enum.StrEnum):
    """How a ladder's batches deal (``tournaments.plans.schedule.DealMode``): ``duplicate`` or
    ``independent`` always, or ``auto``: independent once the ladder has an uploaded entry
    (its participants are then strangers to the organiser and to each other), duplicate
    before (``docs/ladder.md`` says why)."""

    AUTO = "auto"
    DUPLICATE = "duplicate"
    INDEPENDENT = "independent"

    def mode(self, *, uploads: bool) -> DealMode:
        """The deal mode of a batch planned now, for a ladder with (or without) uploads."""
        if self is LadderDeals.AUTO:
            return DealMode.INDEPENDENT if uploads else DealMode.DUPLICATE
        return DealMode(self.value)


#: A ladder's name: it appears in commands, URLs and pages, and has a bot name's form.
LADDER_NAME = BOT_NAME
#: A participant's name (an invitation's): shown on the leaderboard.
PARTICIPANT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_. @+-]{0,63}")


def ladder_name_problem(name: object) -> str | None:
    """Why ``name`` cannot name a ladder, or None if it can."""
    return bot_name_problem(name, what="ladder")


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
      rather than from scratch;
    - ``deals``: how its batches deal (``LadderDeals``; ladders stored before it was a
      setting get the default, ``auto``).
    """

    batch_games: int = 1024
    placement_games: int = 12
    max_batch_entries: int = 48
    fault_window: int = 20
    fault_limit: int = 5
    inherit: bool = True
    deals: LadderDeals = LadderDeals.AUTO

    def __post_init__(self) -> None:
        object.__setattr__(self, "deals", LadderDeals(self.deals))

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["deals"] = self.deals.value
        return data

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
        return sizes_text(self.table_sizes)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["settings"] = self.settings.to_dict()
        data["table_sizes"] = self.sizes_text()
        return data


def sizes_text(sizes: tuple[int, ...] | list[int]) -> str:
    """``3``, ``3-4``: the table sizes from the smallest to the largest."""
    low, high = min(sizes), max(sizes)
    return str(low) if low == high else f"{low}-{high}"


@dataclass(frozen=True, kw_only=True)
class BatchRef:
    """A ladder's batch as a tournament: its tournament id, its ladder, its number in that
    ladder (the first is 1) and the sizes of its tables."""

    tid: int
    ladder: str
    number: int
    sizes: tuple[int, ...]

    def sizes_text(self) -> str:
        return sizes_text(self.sizes) if self.sizes else "-"

    def to_dict(self) -> dict[str, Any]:
        return {"ladder": self.ladder, "batch": self.number, "table_sizes": self.sizes_text()}


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


class LadderGame(NamedTuple):
    """A finished ladder game as ratings take it: its id (the rating order), its batch,
    and each seat's entry id and place."""

    id: int
    batch: int
    entries: tuple[int, ...]
    places: tuple[int, ...]


@dataclass(frozen=True, kw_only=True)
class SeatStats:
    """An entry's games, wins, summed places and games with a fault of its own."""

    games: int
    wins: int
    place_sum: int
    faulty: int
