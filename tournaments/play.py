"""``arena play``'s use case: one game between bots over the real protocol (``game_request``
checks it, ``play_game`` plays it), its record kept in memory (``tournaments.published`` shows
it: ``replay_steps``, ``seat_turns``, ``seat_data``).

A person may take one seat (``arena play --human``): the caller gives a ``Person`` (the
terminal, in ``arena.cli.person``), which the referee asks in this process at each of the seat's
decisions with exactly what a bot there would be sent; its record names the seat ``human`` and
the actions it chose as a person's.

The deal comes from the seed and the user's secret key (``arena.keys.keyfile``): the same
user with the same seed gets the same game, and no bot can compute the deal from the seed.
The record keeps the deal seed itself, so the game replays anywhere.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.games import get_game
from arena.keys.keyfile import KeyFile
from arena.keys.seeds import deal_seed, random_seed
from arena.referee import single
from arena.referee.record import GameRecord
from arena.referee.seats import Leave, Person, PersonSeat, Start, Turn
from tournaments.catalogue.lookup import PERSON, Catalogue
from tournaments.service import RunOptions, bot_processes
from tournaments.store.database import resolve_db_path

__all__ = [
    "PERSON",
    "GameRequest",
    "Leave",
    "Person",
    "Start",
    "Turn",
    "game_request",
    "play_game",
]


@dataclass(frozen=True)
class GameRequest:
    """A game to play, checked (``game_request``): the game, a SPEC per seat (``PERSON`` at the
    person's seat, if any: ``person``) and the game's options, parsed."""

    game: str
    bots: tuple[str, ...]
    options: dict[str, Any]
    person: int | None = None


def game_request(
    game_name: str,
    bots: Sequence[str],
    options: Mapping[str, str] | None = None,
    *,
    person_seat: int | None = None,
) -> GameRequest:
    """Check a game to play: ``game_name`` between ``bots`` (a SPEC per seat: a bundled or
    registered bot's name, a command line, or ``PERSON``: a person plays that seat) with
    ``options``; ``person_seat`` seats a person there among ``bots`` (``--human --seat S``).
    At most one person plays. Raises ArenaError subclasses for an unknown game or option, a
    number of players the game does not take, or a person's seat that is not one."""
    specs = [spec.strip() for spec in bots]
    if person_seat is not None:
        if not 0 <= person_seat <= len(specs):
            raise ArenaError(f"the person's seat {person_seat} is not one of 0..{len(specs)}")
        specs.insert(person_seat, PERSON)
    seats = [index for index, spec in enumerate(specs) if spec == PERSON]
    if len(seats) > 1:
        raise ArenaError(f"one person plays at most one seat, not seats {seats}")
    game = get_game(game_name)
    game.check_players(len(specs))
    return GameRequest(
        game.name,
        tuple(specs),
        game.parse_options(dict(options or {})),
        seats[0] if seats else None,
    )


def play_game(
    request: GameRequest,
    *,
    seed: int | None = None,
    move_ms: int = 1000,
    max_faults: int = 3,
    run_options: RunOptions | None = None,
    db_path: Path | None = None,
    person: Person | None = None,
    person_ms: int | None = None,
) -> GameRecord:
    """Play the game of ``request`` on the deal of ``seed`` (default: random) keyed with the
    user's secret key. Bot output goes to the logs folder beside the database (``db_path``,
    else ``$ARENA_DB``, else ``./arena.db``). ``person`` plays the request's person's seat,
    within ``person_ms`` a decision (None: no deadline); the bots have ``move_ms``. Raises
    ArenaError subclasses for a bot that cannot be found or started, or a person's seat
    without a person."""
    if (request.person is None) != (person is None):
        raise ArenaError("a person plays exactly when the request has a person's seat")
    run_options = run_options or RunOptions()
    db = resolve_db_path(db_path)
    catalogue = Catalogue.at(db)
    specs = [catalogue.resolve(text) for text in request.bots if text != PERSON]
    here = {}
    if request.person is not None and person is not None:
        here[request.person] = PersonSeat(person, time_ms=person_ms, label=PERSON)
    key = KeyFile.of_user().play_key()
    deal = deal_seed(key, random_seed() if seed is None else seed, 0, 0)
    processes = bot_processes(db, run_options, specs, catalogue.folders())
    return single.play_game(
        request.game,
        specs,
        here=here,
        seed=deal,
        key=key,
        options=request.options,
        limits=run_options.limits(move_ms=move_ms, max_faults=max_faults),
        log_dir=processes.log_dir,
        sandbox=processes.sandbox,
        remote=processes.remote,
    )
