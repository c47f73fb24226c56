"""Play one game between bot specs (``arena play``): one fresh process per seat, and any seat
played in this process (a person's: ``arena play --human``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from arena.games import get_game
from arena.keys.seeds import bot_seeds, new_key
from arena.procs.botproc import BotSpec
from arena.procs.limits import Limits
from arena.procs.remote import RemoteConfig
from arena.procs.sandbox import Sandbox
from arena.referee import driver
from arena.referee.game import GameSetup
from arena.referee.record import GameRecord
from arena.referee.seats import Seat
from arena.referee.session import Session

#: The id of an ``arena play`` game: no stored game has it (ids start at 1), so the lines its
#: bots write into the logs next to a database are never taken for a stored game's.
PLAY_GAME_ID = 0


def play_game(
    game_name: str,
    specs: Sequence[BotSpec],
    *,
    seed: int,
    here: Mapping[int, Seat] | None = None,
    key: bytes | None = None,
    options: Mapping[str, Any] | None = None,
    limits: Limits = Limits(),
    endpoint: str | None = None,
    log_dir: Path | None = None,
    sandbox: Sandbox | None = None,
    remote: RemoteConfig | None = None,
) -> GameRecord:
    """Play one game of ``game_name`` with one fresh process per seat; return its record.

    ``specs`` are the bots of the seats, in order, but for the seats of ``here``: seats
    played in this process (a ``PersonSeat``), by their index.

    ``seed`` is the deal seed (the record keeps it); each bot gets a seed derived from it with
    the secret ``key`` (default: a fresh random key, when no one needs to reproduce the bots'
    seeds).

    Bots run under ``limits`` and ``sandbox`` (None: unsandboxed; the command line resolves
    it); remote bots connect through ``remote``. Raises UnknownGame, PlayerCountError,
    OptionError or BotStartError (or RemoteError) before any play.
    """
    here = dict(here or {})
    players = len(specs) + len(here)
    game = get_game(game_name)
    game.check_players(players)
    if any(not 0 <= index < players for index in here):
        raise ValueError(f"a seat played here is not one of 0..{players - 1}")
    parsed = game.parse_options(options)
    bots = iter(specs)
    order = [here.get(index) or next(bots) for index in range(players)]
    with Session(
        limits, log_dir=log_dir, sandbox=sandbox, remote=remote, endpoint=endpoint
    ) as session:
        started = iter(
            session.seats(
                [
                    (f"seat{index}:{spec.name}", spec)
                    for index, spec in enumerate(order)
                    if isinstance(spec, BotSpec)
                ],
                strict=True,
            )
        )
        seats = [spec if isinstance(spec, Seat) else next(started) for spec in order]
        setup = GameSetup(
            game,
            seats,
            seed=seed,
            options=parsed,
            game_id=PLAY_GAME_ID,
            bot_seeds=bot_seeds(key or new_key(), seed, players),
            names=[spec.label if isinstance(spec, Seat) else spec.name for spec in order],
        )
        return driver.play(setup, limits)
