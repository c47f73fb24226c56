"""Tournament plans: which entrants meet, in which seats, on which deal.

A tournament is a game, its options, a list of entrants (bots; the same bot may be entered
several times as copies), a table size ``k``, a number of repetitions and a seed. ``plan(spec)``
lists every game before anything is played:

- every k-subset of the entrants (``itertools.combinations`` in entrant order) is a *table*;
- each table is played in all ``k`` cyclic seat rotations on the **same deal seed** (duplicate
  deals: seat order and the luck of the deal cancel out across the rotations);
- the whole set is repeated ``repetitions`` times, each repetition with fresh deal seeds.

A **balanced** tournament (``per_entrant``: each entrant at that many tables) plays the tables
``tournaments.plans.balanced`` chooses instead of every k-subset; a **Swiss** tournament
(``rounds``) and a **knockout** (``advance``: how many of each table go on) are played round by
round (``tournaments.plans.swiss``, ``tournaments.plans.knockout``): ``plan`` lists their first
round, and each later round is planned from the results once the round before is complete
(``round_games``). Round ``r``'s deals are repetitions ``r * repetitions`` and on
(``tournaments.plans.rounds``), so every table of every format plays each deal in all its seat
rotations, on deal seeds drawn as for any plan.

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
import random
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from arena.games.base import Game
from arena.keys.seeds import bot_seeds, deal_seed, derive
from tournaments.errors import PlanError
from tournaments.plans import balanced, knockout, swiss
from tournaments.plans.rounds import RoundPlan, draw_order, repetition_of

__all__ = [
    "MAX_PLANNED_GAMES",
    "DealMode",
    "PlannedGame",
    "TournamentKind",
    "TournamentSpec",
    "check_spec",
    "deals_in_plan",
    "draw",
    "entrant_names",
    "game_deal_seed",
    "plan",
    "plan_size",
    "round_games",
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
    BALANCED = "balanced"  # each entrant at ``per_entrant`` tables (``plans.balanced``)
    SWISS = "swiss"  # ``rounds`` rounds, tables from the standings (``plans.swiss``)
    KNOCKOUT = "knockout"  # the best ``advance`` of each table go on (``plans.knockout``)

    @property
    def in_rounds(self) -> bool:
        """Whether it is played round by round, each round planned from the one before."""
        return self in (TournamentKind.SWISS, TournamentKind.KNOCKOUT)


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
    tables are chosen; a gauntlet's ``gauntlet`` is the entrant every table holds, a balanced
    tournament's ``per_entrant`` how many tables each entrant sits at, a Swiss tournament's
    ``rounds`` its rounds (a knockout's: how many it takes, filled in by ``check_spec``), a
    knockout's ``advance`` how many of each table go on. In a tournament played in rounds,
    ``repetitions`` is the deals each table of a round plays. ``deals``
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
    per_entrant: int | None = None
    rounds: int | None = None
    advance: int | None = None
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
            "per_entrant": self.per_entrant,
            "rounds": self.rounds,
            "advance": self.advance,
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
    """How many tables (deals) one repetition of ``spec`` has (in a tournament played in
    rounds: its first round, the largest)."""
    n, k = len(spec.bots), spec.table_size
    if spec.kind is TournamentKind.BALANCED:
        return balanced.check_balanced(n, k, spec.per_entrant)
    if spec.kind.in_rounds:
        return n // k
    return math.comb(n - 1, k - 1) if spec.gauntlet is not None else math.comb(n, k)


def _round_tables(spec: TournamentSpec) -> list[int]:
    """The tables of each round of a tournament played in rounds."""
    n, k = len(spec.bots), spec.table_size
    if spec.kind is TournamentKind.KNOCKOUT:
        return [size // k for size in knockout.field_sizes(n, k, spec.advance)]
    return [swiss.check_swiss(n, k, spec.rounds)] * int(spec.rounds or 0)


def plan_size(spec: TournamentSpec) -> int:
    """How many games ``spec`` plays, computed without listing them (in a tournament played in
    rounds, all its rounds: ``plan`` lists the first)."""
    if spec.kind.in_rounds:
        return spec.repetitions * sum(_round_tables(spec)) * seatings_per_deal(spec)
    return spec.repetitions * tables_per_repetition(spec) * seatings_per_deal(spec)


def deals_in_plan(spec: TournamentSpec) -> int:
    """How many deal numbers a plan spans (a run numbers each deal ``repetition *
    tables_per_repetition + table``, below this): its tables times its repetitions (and its
    rounds, in a tournament played in rounds)."""
    rounds = len(_round_tables(spec)) if spec.kind.in_rounds else 1
    return tables_per_repetition(spec) * spec.repetitions * rounds


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
    spec = _check_format(spec)
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


def _check_format(spec: TournamentSpec) -> TournamentSpec:
    """Check a format's own parameters (``per_entrant``, ``rounds``, ``advance``); returns the
    spec with a knockout's rounds filled in."""
    kind, n, k = spec.kind, len(spec.bots), spec.table_size
    given = {
        "tables per entrant (--tables-per-entrant)": (
            spec.per_entrant,
            kind is TournamentKind.BALANCED,
        ),
        "rounds (--rounds)": (spec.rounds, kind is TournamentKind.SWISS),
        "number going on from each table (--advance)": (
            spec.advance,
            kind is TournamentKind.KNOCKOUT,
        ),
    }
    for name, (value, needed) in given.items():
        if needed and value is None:
            raise PlanError(f"a {kind.value} tournament needs its {name}")
        if not needed and value is not None and not (name[0] == "r" and kind.in_rounds):
            raise PlanError(f"its {name} is not a setting of a {kind.value} tournament")
    if kind is TournamentKind.BALANCED:
        balanced.check_balanced(n, k, spec.per_entrant)
    elif kind is TournamentKind.SWISS:
        swiss.check_swiss(n, k, spec.rounds)
    elif kind is TournamentKind.KNOCKOUT:
        rounds = knockout.check_knockout(n, k, spec.advance)
        if spec.rounds not in (None, rounds):
            raise PlanError(f"this knockout takes {rounds} rounds, not {spec.rounds}")
        spec = replace(spec, rounds=rounds)
    return spec


def draw(spec: TournamentSpec, key: bytes) -> tuple[str, ...]:
    """The draw of a tournament played in rounds: its entrants in an order drawn from its key
    and seed (``tournaments.plans.rounds.draw_order``)."""
    return draw_order(spec.entrants, random.Random(derive(key, "draw", spec.seed)))


def round_games(
    spec: TournamentSpec, key: bytes, plan: RoundPlan, first_index: int
) -> list[PlannedGame]:
    """The games of one round of a tournament played in rounds: each table of ``plan`` on
    ``spec.repetitions`` deals of its own, each in every seating, numbered from plan index
    ``first_index``."""
    games: list[PlannedGame] = []
    for deal in range(spec.repetitions):
        repetition = repetition_of(plan.number, deal, spec.repetitions)
        for table_no, table in enumerate(plan.tables):
            index = first_index + len(games)
            games += spec_table_games(spec, key, repetition, table_no, table, index)
    return games


def _first_round(spec: TournamentSpec, key: bytes) -> RoundPlan:
    entrants, k, order = spec.entrants, spec.table_size, draw(spec, key)
    if spec.kind is TournamentKind.SWISS:
        return swiss.pair_round(entrants, k, order, [])
    found = knockout.pair_round(entrants, k, int(spec.advance or 0), order, [])
    assert found is not None  # a knockout has a first round
    return found


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
    if spec.kind.in_rounds:
        yield from round_games(spec, key, _first_round(spec, key), 0)
        return
    if spec.kind is TournamentKind.BALANCED:
        rng = random.Random(derive(key, "balanced", spec.seed))
        tables = balanced.balanced_tables(spec.entrants, k, int(spec.per_entrant or 0), rng)
    else:
        tables = [
            table
            for table in itertools.combinations(spec.entrants, k)
            if spec.gauntlet is None or spec.gauntlet in table
        ]
    index = 0
    for repetition in range(spec.repetitions):
        for table_no, table in enumerate(tables):
            games = list(spec_table_games(spec, key, repetition, table_no, table, index))
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


def spec_table_games(
    spec: TournamentSpec,
    key: bytes,
    repetition: int,
    table_no: int,
    table: tuple[str, ...],
    first_index: int,
) -> Iterator[PlannedGame]:
    """The games of ``table`` in ``spec``'s tournament: its seatings (``seatings``), dealt as
    the tournament deals (``table_games``)."""
    return table_games(
        key,
        spec.seed,
        repetition,
        table_no,
        seatings(spec, table),
        first_index,
        deals=spec.deals,
    )


def plan(spec: TournamentSpec, game: Game | None = None, *, key: bytes) -> list[PlannedGame]:
    """Every game of the tournament, in plan order, its seeds keyed with ``key`` (the
    tournament's secret key). Validates as ``check_spec`` does."""
    return list(iter_plan(check_spec(spec, game), key=key))
