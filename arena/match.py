"""Play one game between bot specs: start a hub and the processes, referee, clean up."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from arena.botproc import BotPool, BotSpec
from arena.games import get_game
from arena.hub import Hub
from arena.record import GameRecord, Limits
from arena.referee import Referee
from arena.remote import RemoteConfig
from arena.sandbox import Sandbox
from arena.seeds import bot_seeds, new_key

log = logging.getLogger(__name__)


def play_match(game_name: str, specs: Sequence[BotSpec], *, seed: int, key: bytes | None = None,
               options: Mapping[str, Any] | None = None, limits: Limits = Limits(),
               endpoint: str | None = None, log_dir: Path | None = None,
               sandbox: Sandbox | None = None,
               remote: RemoteConfig | None = None) -> GameRecord:
    """Play one game of ``game_name`` with one fresh process per seat; return its record.

    ``seed`` is the deal seed (the record keeps it); each bot gets a seed derived from it with
    the secret ``key`` (default: a fresh random key, when no one needs to reproduce the bots'
    seeds).

    Bots run under ``limits`` and ``sandbox`` (see ``BotPool``); remote bots connect through
    ``remote``. Raises UnknownGame, PlayerCountError, OptionError or BotStartError (or
    SandboxError, RemoteError) before any play.
    """
    game = get_game(game_name)
    game.check_players(len(specs))
    parsed = game.parse_options(options)
    hub = Hub(endpoint, remote=remote)
    try:
        with BotPool(hub, log_dir=log_dir, limits=limits, sandbox=sandbox) as pool:
            entries = [(f"seat{seat}:{spec.name}", spec) for seat, spec in enumerate(specs)]
            procs = pool.get(entries)
            referee = Referee(hub, limits)
            return referee.play(game, procs, seed=seed, options=parsed,
                                bot_seeds=bot_seeds(key or new_key(), seed, len(specs)),
                                names=[spec.name for spec in specs])
    finally:
        hub.close()
