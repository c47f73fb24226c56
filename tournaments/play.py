"""``arena play``'s use case: one game between bots over the real protocol (``game_request``
checks it, ``play_game`` plays it), its record kept in memory (``tournaments.published`` shows
it: ``replay_steps``, ``seat_turns``, ``seat_data``).

The deal comes from the seed and the user's secret key (``arena.keys.keyfile``): the same
user with the same seed gets the same game, and no bot can compute the deal from the seed.
The record keeps the deal seed itself, so the game replays anywhere.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.games import get_game
from arena.keys.keyfile import KeyFile
from arena.keys.seeds import deal_seed, random_seed
from arena.referee import single
from arena.referee.record import GameRecord
from tournaments.catalogue.lookup import Catalogue
from tournaments.service import RunOptions, bot_processes
from tournaments.store.database import resolve_db_path

__all__ = ["GameRequest", "game_request", "play_game"]


@dataclass(frozen=True)
class GameRequest:
    """A game to play, checked (``game_request``): the game, a bot SPEC per seat and the game's
    options, parsed."""

    game: str
    bots: tuple[str, ...]
    options: dict[str, Any]


def game_request(
    game_name: str, bots: Sequence[str], options: Mapping[str, str] | None = None
) -> GameRequest:
    """Check a game to play: ``game_name`` between ``bots`` (a SPEC per seat: a bundled or
    registered bot's name, or a command line) with ``options``. Raises ArenaError subclasses
    for an unknown game or option, or a number of players the game does not take."""
    game = get_game(game_name)
    game.check_players(len(bots))
    return GameRequest(game.name, tuple(bots), game.parse_options(dict(options or {})))


def play_game(
    request: GameRequest,
    *,
    seed: int | None = None,
    move_ms: int = 1000,
    max_faults: int = 3,
    run_options: RunOptions | None = None,
    db_path: Path | None = None,
) -> GameRecord:
    """Play the game of ``request`` on the deal of ``seed`` (default: random) keyed with the
    user's secret key. Bot output goes to the logs folder beside the database (``db_path``,
    else ``$ARENA_DB``, else ``./arena.db``). Raises ArenaError subclasses for a bot that
    cannot be found or started."""
    run_options = run_options or RunOptions()
    db = resolve_db_path(db_path)
    catalogue = Catalogue.at(db)
    specs = [catalogue.resolve(text) for text in request.bots]
    key = KeyFile.of_user().play_key()
    deal = deal_seed(key, random_seed() if seed is None else seed, 0, 0)
    processes = bot_processes(db, run_options, specs, catalogue.folders())
    return single.play_game(
        request.game,
        specs,
        seed=deal,
        key=key,
        options=request.options,
        limits=run_options.limits(move_ms=move_ms, max_faults=max_faults),
        log_dir=processes.log_dir,
        sandbox=processes.sandbox,
        remote=processes.remote,
    )
