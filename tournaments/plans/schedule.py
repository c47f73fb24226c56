"""Tournament plans: which entrants meet, in which seats, on which deal.

A tournament is a game, its options, a list of entrants (bots; the same bot may be entered
several times as copies), a table size ``k``, a number of repetitions and a seed. ``plan(spec)``
lists every game before anything is played:

- every k-subset of the entrants (``itertools.combinations`` in entrant order) is a *table*;
- each table is played in all ``k`` cyclic seat rotations on the **same deal seed** (duplicate
  deals: seat order and the luck of the deal cancel out across the rotations);
- the whole set is repeated ``repetitions`` times, each repetition with fresh deal seeds.

With **independent deals** (``DealMode.INDEPENDENT``: ``--deals independent``, for entrants who
are strangers) the tables, rotations and seats are the same, but every game (each rotation of
each table) has its own deal seed: no two games share a deal, so nothing a bot sees or is told
in one game, by any channel, names a hidden card of another. Seats stay balanced (at each table
every entrant sits in every seat once); the luck of the deal no longer cancels, so ratings need
more games for the same precision (``docs/security.md`` measures how many). A match is
duplicate only (``check_spec``): its entrants are one author's NEW and BASE, and its SPRT's unit
is a deal.

A batch of a standing **ladder** (``tournaments.ladder``) is a tournament whose tables its
matchmaking chose (``table_games`` writes each one's rotations, as here).

A **gauntlet** (``gauntlet`` names one entrant) keeps only the tables that hold that entrant:
it meets every other entrant, the others never meet without it. A **match** (``arena match``,
NEW against BASE with filler bots) is a round robin of exactly ``table_size`` entrants: one
table, one deal per repetition; it is stopped early by its SPRT. At tables of three or more its
deal is played in the ``k`` cyclic rotations of ``[NEW, BASE, fillers...]`` **and** the ``k``
cyclic rotations of its mirror image (``seatings``): in the first NEW sits directly before
BASE, in the second BASE directly before NEW, so who acts right after whom favours neither,
however many deals are played (cyclic rotations alone cancel the seat but not the order).

Seeds are derived with HMAC-SHA256 from the tournament seed under the tournament's **secret
key** (``arena.keys.seeds``): with the same key a plan (and, with deterministic bots, the whole
tournament) is reproducible bit for bit; without it no one can compute a deal from the seed,
repetition and table. A new tournament gets a new key, hence new deals even with the same seed. The
deal seeds are stored with the plan; a resumed run needs the key only for the bot seeds. All
seeds are 63-bit non-negative integers (they fit a signed SQLite INTEGER and every msgpack
implementation).
"""

from __future__ import annotations

import enum
import itertools
import math
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from arena.games.base import Game
from arena.keys.seeds import bot_seeds, deal_seed
from tournaments.errors import PlanError

__all__ = [
    "MAX_PLANNED_GAMES",
    "DealMode",
    "PlannedGame",
    "TournamentKind",
    "TournamentSpec",
    "check_spec",
    "entrant_names",
    "game_deal_seed",
    "plan",
    "plan_size",
    "seatings",
    "seatings_per_deal",
    "table_games",
    "tables_per_repetition",
]

#: A plan larger than this is refused (it would not fit comfortably in memory or a database).
MAX_PLANNED_GAMES = 5_000_000

_COPY_MARK = "#"


def entrant_names(bots: Sequence[str]) -> tuple[str, ...]:
    """Unique entrant names for a list of bot names: copies are named ``name#2``, ``name#3``.

    The first copy keeps the plain name. Raises PlanError if a name would clash with another
    bot's name (e.g. bots ``x`` twice and ``x#2``) or a name is empty.
    """
    seen: Counter[str] = Counter()
    names: list[str] = []
    for name in bots:
        if not name or name != name.strip():
            raise PlanError(f"bad bot name {name!r}: names are non-empty, without outer spaces")
        seen[name] += 1
        names.append(name if seen[name] == 1 else f"{name}{_COPY_MARK}{seen[name]}")
    if len(set(names)) != len(names):
        clash = sorted(entrant for entrant, n in Counter(names).items() if n > 1)
        raise PlanError(f"entrant names clash: {', '.join(clash)}; rename a bot")
    return tuple(names)


class TournamentKind(enum.StrEnum):
    """How a tournament's tables are chosen (see the module's docstring)."""

    ROUND_ROBIN = "round-robin"
    GAUNTLET = "gauntlet"
    MATCH = "match"
    LADDER = "ladder"  # one batch of a standing ladder's tables (``tournaments.ladder``)


class DealMode(enum.StrEnum):
    """How a table's seat rotations are dealt (see the module's docstring): one deal for all
    of them (``duplicate``: the luck of the deal cancels out), or one deal each
    (``independent``: no two games share a deal, so there is nothing to pool)."""

    DUPLICATE = "duplicate"
    INDEPENDENT = "independent"


#: Why a match cannot have independent deals (``check_spec``, ``arena match --deals``).
MATCH_DEALS = (
    "a match plays duplicate deals only: its SPRT's unit is a deal played in every seating "
    "(independent deals would need another unit and many more games), and NEW and BASE are "
    "one author's bots; to measure a stranger's bot on independent deals, play a gauntlet "
    "(`arena tournament create --gauntlet BOT --deals independent`)"
)


@dataclass(frozen=True, kw_only=True)
class TournamentSpec:
    """What a tournament is: game, options, bots, table size, repetitions, seed.

    ``bots`` are bot names in entrant order; a name may repeat to enter copies of a bot.
    ``entrants`` are the unique entrant names used everywhere else (seating, results,
    ratings). ``repetitions`` is how many times the whole round robin is played.
    ``move_ms`` is the per-decision deadline the runner gives each bot. ``kind`` says how
    tables are chosen; a gauntlet's ``gauntlet`` is the entrant every table holds. ``deals``
    says whether a table's rotations share one deal or each have their own.
    """

    game: str
    options: Mapping[str, Any] = field(default_factory=dict)
    bots: tuple[str, ...]
    table_size: int
    repetitions: int = 1
    seed: int = 0
    move_ms: int = 1000
    kind: TournamentKind = TournamentKind.ROUND_ROBIN
    gauntlet: str | None = None
    deals: DealMode = DealMode.DUPLICATE

    def __post_init__(self) -> None:
        object.__setattr__(self, "bots", tuple(self.bots))
        object.__setattr__(self, "options", dict(self.options))
        object.__setattr__(self, "kind", TournamentKind(self.kind))
        object.__setattr__(self, "deals", DealMode(self.deals))

    @property
    def entrants(self) -> tuple[str, ...]:
        return entrant_names(self.bots)

    def entrant_bots(self) -> dict[str, str]:
        """Entrant name → bot name."""
        return dict(zip(self.entrants, self.bots))

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "options": dict(self.options),
            "bots": list(self.bots),
            "table_size": self.table_size,
            "repetitions": self.repetitions,
            "seed": self.seed,
            "move_ms": self.move_ms,
            "kind": self.kind.value,
            "gauntlet": self.gauntlet,
            "deals": self.deals.value,
        }


@dataclass(frozen=True, kw_only=True)
class PlannedGame:
    """One game of a plan. ``seating[seat]`` is the entrant at that seat; ``rotation`` is which
    of its deal's seatings it is (``seatings``: ``0..k-1``, or ``0..2k-1`` in a match).

    ``seat_seeds`` are the bot seeds of the seats (keyed: see ``arena.keys.seeds.bot_seed``), filled
    in by ``plan`` and ``Store.pending_games``, which have the tournament's key; a game read
    back for display has none. They are derived, so two planned games compare equal without
    them.
    """

    index: int
    repetition: int
    table: int
    rotation: int
    deal_seed: int
    seating: tuple[str, ...]
    seat_seeds: tuple[int, ...] = field(default=(), repr=False, compare=False)

    def bot_seeds(self) -> tuple[int, ...]:
        """The ``start.seed`` of each seat. Raises PlanError for a game without them."""
        if len(self.seat_seeds) != len(self.seating):
            raise PlanError(
                f"planned game {self.index} has no bot seeds: read it with "
                "Store.pending_games, which has the tournament's key"
            )
        return self.seat_seeds


def tables_per_repetition(spec: TournamentSpec) -> int:
    """How many tables (deals) one repetition of ``spec`` has."""
    n, k = len(spec.bots), spec.table_size
    return math.comb(n - 1, k - 1) if spec.gauntlet is not None else math.comb(n, k)


def plan_size(spec: TournamentSpec) -> int:
    """How many games ``plan(spec)`` lists, computed without listing them."""
    return spec.repetitions * tables_per_repetition(spec) * seatings_per_deal(spec)


def check_spec(spec: TournamentSpec, game: Game | None = None) -> TournamentSpec:
    """Validate ``spec``; with ``game``, also its table size and options.

    Returns the spec with options parsed and defaults filled in (so a stored tournament replays
    the same even if a game's defaults change later). Raises PlanError, or the game's own
    OptionError for an unknown or bad option.
    """
    entrants = spec.entrants
    if not isinstance(spec.table_size, int) or spec.table_size < 2:
        raise PlanError(f"table size must be at least 2, not {spec.table_size!r}")
    if len(entrants) < spec.table_size:
        raise PlanError(
            f"{len(entrants)} entrant(s) cannot fill a table of {spec.table_size}; "
            f"enter at least {spec.table_size} bots (a bot may be entered several times)"
        )
    if not isinstance(spec.repetitions, int) or spec.repetitions < 1:
        raise PlanError(f"repetitions must be at least 1, not {spec.repetitions!r}")
    if not isinstance(spec.move_ms, int) or spec.move_ms < 1:
        raise PlanError(f"move time must be at least 1 ms, not {spec.move_ms!r}")
    if not isinstance(spec.seed, int) or isinstance(spec.seed, bool):
        raise PlanError(f"seed must be a whole number, not {spec.seed!r}")
    if (spec.kind is TournamentKind.GAUNTLET) != (spec.gauntlet is not None):
        raise PlanError("a gauntlet names the entrant every table holds (and only a gauntlet)")
    if spec.gauntlet is not None and spec.gauntlet not in entrants:
        raise PlanError(f"the gauntlet's entrant {spec.gauntlet!r} is not entered")
    if spec.kind is TournamentKind.MATCH and spec.deals is not DealMode.DUPLICATE:
        raise PlanError(MATCH_DEALS)
    if spec.kind is TournamentKind.MATCH and len(entrants) != spec.table_size:
        raise PlanError(
            f"a match seats all its {len(entrants)} entrants at one table of {spec.table_size}"
        )
    size = plan_size(spec)
    if size > MAX_PLANNED_GAMES:
        raise PlanError(
            f"the plan has {size:,} games (more than {MAX_PLANNED_GAMES:,}); "
            "use fewer entrants, a smaller table or fewer repetitions"
        )
    if game is None:
        return spec
    if spec.game != game.name:
        raise PlanError(f"spec is for game {spec.game!r}, not {game.name!r}")
    if not game.min_players <= spec.table_size <= game.max_players:
        raise PlanError(
            f"{game.name} takes {game.min_players}-{game.max_players} players; "
            f"table size {spec.table_size} is outside that range"
        )
    return replace(spec, options=game.parse_options(spec.options))


def seatings(spec: TournamentSpec, table: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The seatings a table's deal is played in, by rotation: its ``k`` cyclic rotations; for a
    match at a table of three or more, then the ``k`` cyclic rotations of its mirror image."""
    orders = [table]
    if spec.kind is TournamentKind.MATCH and len(table) >= 3:
        orders.append(tuple(reversed(table)))
    return [order[r:] + order[:r] for order in orders for r in range(len(order))]


def seatings_per_deal(spec: TournamentSpec) -> int:
    """How many games one deal of ``spec`` is played in (``seatings``)."""
    k = spec.table_size
    return 2 * k if spec.kind is TournamentKind.MATCH and k >= 3 else k


def iter_plan(spec: TournamentSpec, *, key: bytes) -> Iterator[PlannedGame]:
    """The games of ``spec`` in plan order (repetition, table, rotation), without validation;
    ``key`` is the tournament's secret key."""
    k = spec.table_size
    tables = [
        table
        for table in itertools.combinations(spec.entrants, k)
        if spec.gauntlet is None or spec.gauntlet in table
    ]
    index = 0
    for repetition in range(spec.repetitions):
        for table_no, table in enumerate(tables):
            games = list(
                table_games(
                    key,
                    spec.seed,
                    repetition,
                    table_no,
                    seatings(spec, table),
                    index,
                    deals=spec.deals,
                )
            )
            yield from games
            index += len(games)


def game_deal_seed(
    key: bytes, seed: int, repetition: int, table_no: int, rotation: int, deals: DealMode
) -> int:
    """The deal seed of one game of a plan: its table's (duplicate deals) or its own
    (independent deals), keyed with ``key`` from the tournament ``seed``."""
    if deals is DealMode.DUPLICATE:
        return deal_seed(key, seed, repetition, table_no)
    return deal_seed(key, seed, repetition, table_no, rotation=rotation)


def table_games(
    key: bytes,
    seed: int,
    repetition: int,
    table_no: int,
    seatings: Sequence[tuple[str, ...]],
    first_index: int,
    *,
    deals: DealMode = DealMode.DUPLICATE,
) -> Iterator[PlannedGame]:
    """One table's games, keyed with ``key`` from the tournament ``seed``, one per seating
    (rotation ``r`` plays ``seatings[r]``), numbered from plan index ``first_index``: on one
    deal, or (``deals`` independent) each on its own."""
    players = len(seatings[0])
    deal, seeds = -1, ()  # the table's deal, reused by each rotation (duplicate deals)
    for rotation, seating in enumerate(seatings):
        if rotation == 0 or deals is not DealMode.DUPLICATE:
            deal = game_deal_seed(key, seed, repetition, table_no, rotation, deals)
            seeds = bot_seeds(key, deal, players)
        yield PlannedGame(
            index=first_index + rotation,
            repetition=repetition,
            table=table_no,
            rotation=rotation,
            deal_seed=deal,
            seating=tuple(seating),
            seat_seeds=seeds,
        )


def plan(spec: TournamentSpec, game: Game | None = None, *, key: bytes) -> list[PlannedGame]:
    """Every game of the tournament, in plan order, its seeds keyed with ``key`` (the
    tournament's secret key). Validates as ``check_spec`` does."""
    return list(iter_plan(check_spec(spec, game), key=key))
