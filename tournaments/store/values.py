"""Values the store returns: bots, tournaments, stored games, standings, ratings.

All are frozen dataclasses with a ``to_dict()`` giving JSON-ready data (for ``--json`` output
and reports); ``from_row`` builds them from a database row.
"""

from __future__ import annotations

import enum
import json
import re
from dataclasses import asdict, dataclass
from typing import Any, NamedTuple

from arena.referee.record import ActionRecord, Fault, GameRecord
from tournaments.plans.schedule import PlannedGame, TournamentSpec
from tournaments.ratings import BatchRatings, Crosstable, EloRatings

__all__ = [
    "BotInfo",
    "BotKind",
    "EntrantInfo",
    "GameStatus",
    "ProcessRecord",
    "RatingMethod",
    "RatingRow",
    "SeatedGame",
    "Standing",
    "StoredGame",
    "TournamentInfo",
    "TournamentRatings",
    "TournamentStatus",
]


class _Text(enum.StrEnum):
    """An enum stored and shown as its text value."""


class BotKind(_Text):
    """Where a bot comes from: shipped with the arena, or registered by a user."""

    BUNDLED = "bundled"
    REGISTERED = "registered"


class TournamentStatus(_Text):
    """``planned``: no game played yet; ``in-progress``: some played; ``done``: all played;
    ``cancelled``: its organiser gave it up (``arena tournament cancel``): the games it had
    played are kept, those it had not are dropped."""

    PLANNED = "planned"
    IN_PROGRESS = "in-progress"
    DONE = "done"
    CANCELLED = "cancelled"

    @property
    def finished(self) -> bool:
        """Whether no game of it will be played any more (done, or cancelled)."""
        return self in (TournamentStatus.DONE, TournamentStatus.CANCELLED)


class GameStatus(_Text):
    PENDING = "pending"
    DONE = "done"


class RatingMethod(_Text):
    """``elo``: incremental Elo in plan order; ``mle``: batch maximum likelihood."""

    ELO = "elo"
    MLE = "mle"


def _plain(value: Any) -> Any:
    """``asdict`` output made JSON-ready (enums to their values, tuples to lists)."""
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


#: A registered bot's name: 1-64 letters, digits, ``_``, ``-`` or ``.``, starting with a
#: letter or digit. Names are shown in terminals and pages and name the bot's log folder, so
#: they hold no control or look-alike characters and no two map to one folder.
BOT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


def bot_name_problem(name: object, *, what: str = "bot") -> str | None:
    """Why ``name`` cannot be a registered bot's name (or, ``what`` = ``"ladder"``, another
    name of the same form), or None if it can."""
    if isinstance(name, str) and BOT_NAME.fullmatch(name):
        return None
    return (
        f"bad {what} name {name!r}: 1-64 letters, digits, '_', '-' or '.', starting with a "
        "letter or digit"
    )


@dataclass(frozen=True, kw_only=True)
class BotInfo:
    """A registered bot (or one version of it): its command line (text, split with ``shlex``),
    the folder it was registered from (or None), kind, version, the games it plays, and how
    many games it has played.

    ``digest`` names the arena's copy a folder bot runs from (``tournaments.catalogue.botcopies``);
    ``files`` are the files a command bot's command names, with their SHA-256, checked before
    each run. Both are None for a bot registered before the arena kept them (checked against
    its old version hash: ``tournaments.catalogue.oldversions``). ``uploaded``: a participant
    uploaded this code to a ladder: it runs only in the sandbox."""

    name: str
    command: str
    path: str | None
    kind: BotKind
    version: str
    games: tuple[str, ...]
    played: int
    added_at: str
    digest: str | None = None
    files: tuple[tuple[str, str], ...] | None = None
    uploaded: bool = False

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> BotInfo:
        files = row.get("files")
        return cls(
            name=row["name"],
            command=row["command"],
            path=row["path"],
            kind=BotKind(row["kind"]),
            version=row["version"],
            games=tuple(json.loads(row["games"])),
            played=row["played"],
            added_at=row["added_at"],
            digest=row.get("digest"),
            files=None if files is None else tuple((str(p), str(h)) for p, h in json.loads(files)),
            uploaded=bool(row.get("uploaded")),
        )

    def to_dict(self) -> dict[str, Any]:
        return _plain(asdict(self))


@dataclass(frozen=True, kw_only=True)
class EntrantInfo:
    """An entrant of a tournament: its unique name, the bot, and the bot's version then."""

    name: str
    bot: str
    version: str


@dataclass(frozen=True, kw_only=True)
class TournamentInfo:
    """A stored tournament: its spec, status, entrants and progress."""

    id: int
    spec: TournamentSpec
    created_at: str
    status: TournamentStatus
    entrants: tuple[EntrantInfo, ...]
    games_done: int
    games_total: int

    @classmethod
    def from_row(
        cls,
        row: dict[str, Any],
        *,
        entrants: tuple[EntrantInfo, ...],
        games_done: int,
        games_total: int,
    ) -> TournamentInfo:
        spec = TournamentSpec(
            game=row["game"],
            options=json.loads(row["options"]),
            bots=tuple(e.bot for e in entrants),
            table_size=row["table_size"],
            repetitions=row["rounds"],
            seed=row["seed"],
            move_ms=row["move_ms"],
            kind=row.get("kind") or "round-robin",
            gauntlet=row.get("gauntlet"),
            deals=row.get("deals") or "duplicate",
            per_entrant=row.get("per_entrant"),
            rounds=row.get("round_count"),
            advance=row.get("advance"),
        )
        return cls(
            id=row["id"],
            spec=spec,
            created_at=row["created_at"],
            status=TournamentStatus(row["status"]),
            entrants=entrants,
            games_done=games_done,
            games_total=games_total,
        )

    def to_dict(self) -> dict[str, Any]:
        data = {
            "id": self.id,
            "status": self.status.value,
            "created_at": self.created_at,
            "games_done": self.games_done,
            "games_total": self.games_total,
        }
        data.update(self.spec.to_dict())
        data["entrants"] = [asdict(e) for e in self.entrants]
        return data


@dataclass(frozen=True, kw_only=True)
class StoredGame:
    """A planned game as stored, with its record once played (``record`` is None before).

    ``planned.seating`` holds entrant names and ``bots`` the bot names by seat. In the
    rebuilt ``record``, ``bots`` are the entrant names (as the runner names the seats), and
    ``events`` are empty: they are not stored, a replay from the deal seed and actions makes
    them again.
    """

    id: int
    tournament_id: int
    game: str
    options: dict[str, Any]
    planned: PlannedGame
    bots: tuple[str, ...]
    status: GameStatus
    started_at: str | None
    finished_at: str | None
    record: GameRecord | None

    @property
    def players(self) -> int:
        return len(self.planned.seating)

    @property
    def deal_seed(self) -> int:
        return self.planned.deal_seed

    @classmethod
    def from_row(
        cls,
        row: dict[str, Any],
        *,
        bots: dict[str, str],
        seats: list[dict[str, Any]],
        faults: tuple[Fault, ...],
    ) -> StoredGame:
        seating = tuple(json.loads(row["seating"]))
        planned = PlannedGame(
            index=row["plan_index"],
            repetition=row["round"],
            table=row["table_index"],
            rotation=row["rotation"],
            deal_seed=row["deal_seed"],
            seating=seating,
        )
        options = json.loads(row["options"])
        names = tuple(bots.get(label, label) for label in seating)
        record = None
        if row["status"] == GameStatus.DONE.value:
            outcome = json.loads(row["outcome"])
            record = GameRecord(
                game=row["game"],
                options=options,
                seed=row["deal_seed"],
                bots=seating,
                actions=tuple(ActionRecord.from_list(a) for a in json.loads(row["actions"])),
                faults=faults,
                forfeits=tuple(json.loads(row["forfeits"])),
                scores=tuple(outcome["scores"]),
                game_places=tuple(outcome["game_places"]),
                places=tuple(outcome["places"]),
                think_us=tuple(s["think_us"] for s in seats),
                decisions=tuple(s["decisions"] for s in seats),
                wall_ms=row["wall_ms"],
            )
        return cls(
            id=row["id"],
            tournament_id=row["tournament_id"],
            game=row["game"],
            options=options,
            planned=planned,
            bots=names,
            status=GameStatus(row["status"]),
            started_at=row["started_at"],
            finished_at=row["finished_at"],
            record=record,
        )

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.id,
            "tournament_id": self.tournament_id,
            "game": self.game,
            "options": self.options,
            "players": self.players,
            "status": self.status.value,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "plan": _plain({k: v for k, v in asdict(self.planned).items() if k != "seat_seeds"}),
            "bots": list(self.bots),
        }
        if self.record is not None:
            data["record"] = self.record.to_dict(events=False)
        return data


class SeatedGame(NamedTuple):
    """A planned game's deal (repetition and table), rotation and seating, and its places once
    played (None before). A named tuple: a plan's thousands are read back at once."""

    repetition: int
    table: int
    rotation: int
    seating: tuple[str, ...]
    places: tuple[int, ...] | None


@dataclass(frozen=True, kw_only=True)
class ProcessRecord:
    """One bot process of a run, as the arena records it (``tournaments.run.playing``): the
    entrant it served, the run and phase, where it ran (``host``) and as which pid, when it
    started and, once ended, when (``confirmed``: seen gone after being killed at the end of a
    phase or of the run; else marked ended, unseen, when a later run found it left by a killed
    one, or when the lease of a cluster worker lost with it had run out).
    Times are seconds since the epoch. ``token`` names it; games name the process at each seat
    by it."""

    token: str
    entrant: str
    run: str
    phase: int
    host: str
    pid: int | None
    remote: bool
    started_at: float
    ended_at: float | None = None
    confirmed: bool = False


@dataclass(frozen=True, kw_only=True)
class Standing:
    """One entrant's line of the ``standings`` view."""

    entrant: str
    bot: str
    games: int
    wins: int
    mean_place: float | None
    mean_score: float | None
    faults: int
    forfeits: int

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Standing:
        return cls(
            entrant=row["entrant"],
            bot=row["bot"],
            games=row["games"],
            wins=row["wins"],
            mean_place=row["mean_place"],
            mean_score=row["mean_score"],
            faults=row["faults"],
            forfeits=row["forfeits"],
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, kw_only=True)
class RatingRow:
    """A stored rating; ``lo``/``hi`` (95 %) only for the ``mle`` method."""

    entrant: str
    method: RatingMethod
    rating: float
    lo: float | None
    hi: float | None
    games: int

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> RatingRow:
        return cls(
            entrant=row["entrant"],
            method=RatingMethod(row["method"]),
            rating=row["rating"],
            lo=row["lo"],
            hi=row["hi"],
            games=row["games"],
        )

    def to_dict(self) -> dict[str, Any]:
        return _plain(asdict(self))


@dataclass(frozen=True, kw_only=True)
class TournamentRatings:
    """What ``Results.rebuild_ratings`` computed: both ratings and the crosstable."""

    elo: EloRatings
    batch: BatchRatings
    crosstable: Crosstable


@dataclass(frozen=True)
class FaultCount:
    """How many faults of one kind an entrant of a tournament made (``Results.faults``)."""

    tournament_id: int
    entrant: str
    kind: str
    count: int


class PlayedSeat(NamedTuple):
    """One seat of a finished game, as a match counts it (``Results.played_seats``): the
    game's plan index and id, the entrant at the seat, its place, its faults and whether it
    forfeited."""

    plan_index: int
    game_id: int
    entrant: str
    place: int
    faults: int
    forfeited: int
