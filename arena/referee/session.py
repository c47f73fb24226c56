"""A game session: the one way to play games, over bot processes or in-process seats.

A ``Session`` owns a referee and, from the first process seat on, a hub and a pool of bot
processes that serve game after game (a process is replaced only after it crashed). ``arena
play``, the tournament runner, the benchmarks and the bot tests all play through it:

    with Session(limits, sandbox=box) as session:
        seats = session.seats([(key, spec), ...])       # or InProcessSeat(act), ScriptedSeat
        record = session.play(game, seats, seed=deal, bot_seeds=...)

A process serves up to its ``max_games`` games at once (``play_many`` keeps several in flight:
``arena.referee.driver``); the per-game state lives in the referee's ``GamePlay``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Self

from arena.errors import BotStartError
from arena.games.base import Game
from arena.procs.botproc import BotPool, BotSpec
from arena.procs.hub import Hub
from arena.procs.limits import Limits
from arena.procs.remote import RemoteConfig
from arena.procs.sandbox import Sandbox
from arena.referee import driver
from arena.referee.driver import Played
from arena.referee.game import Table
from arena.referee.record import GameRecord
from arena.referee.seats import ProcessSeat, Seat

log = logging.getLogger(__name__)


class Session:
    """Plays games under ``limits`` (default: ``Limits()``). Bot processes (made on first
    need) run under ``sandbox`` (None: unsandboxed; the command line resolves it) and write
    their logs to ``log_dir``;
    remote bots join through ``remote``; local bots reach the hub at ``endpoint``."""

    def __init__(
        self,
        limits: Limits | None = None,
        *,
        log_dir: Path | None = None,
        sandbox: Sandbox | None = None,
        remote: RemoteConfig | None = None,
        endpoint: str | None = None,
        startup_ms: int | None = None,
    ) -> None:
        self.limits = limits = limits or Limits()
        self._pool_args = {
            "log_dir": log_dir,
            "limits": limits,
            "sandbox": sandbox,
            "startup_ms": startup_ms,
        }
        self._hub_args = {"endpoint": endpoint, "remote": remote}
        self._pool: BotPool | None = None
        self._hub: Hub | None = None
        if remote is not None:  # listen now: a bad configuration fails here
            self._hub = Hub(endpoint, remote=remote)

    @property
    def hub(self) -> Hub:
        if self._hub is None:
            self._hub = Hub(self._hub_args["endpoint"], remote=self._hub_args["remote"])
        return self._hub

    @property
    def pool(self) -> BotPool:
        if self._pool is None:
            self._pool = BotPool(self.hub, **self._pool_args)
        return self._pool

    @property
    def started(self) -> int:
        """How many bot processes this session started."""
        return self._pool.started if self._pool is not None else 0

    def capacity(self, key: str) -> int:
        """How many games the process of pool entry ``key`` may have open at once: its
        hello's ``max_games`` (capped by the hub), 1 until it said hello."""
        proc = self._pool.procs.get(key) if self._pool is not None else None
        peer = proc.peer if proc is not None else None
        return peer.max_games if peer is not None and not peer.closed else 1

    def prestart(self, entries: Sequence[tuple[str, BotSpec]]) -> None:
        """Start the processes of these pool entries (key, spec) ahead of the games."""
        self.pool.prestart(entries)

    def seats(self, entries: Sequence[tuple[str, BotSpec]], *, strict: bool = False) -> list[Seat]:
        """Process seats for pool entries (key, spec), one per seat, started if need be.

        A bot that does not start raises BotStartError if ``strict``; else it sits absent and
        its seat's crash fault says why.
        """
        pool = self.pool
        try:
            return [ProcessSeat(self.hub, proc) for proc in pool.get(entries)]
        except BotStartError as exc:
            if strict:
                raise
            failed = {exc.label: str(exc)}
        seats: list[Seat] = []
        for entry in entries:  # find which one failed; it plays with none
            try:
                if entry[0] in failed:
                    raise BotStartError(failed[entry[0]])
                seats.append(ProcessSeat(self.hub, pool.get([entry])[0]))
            except BotStartError as exc:
                log.warning("bot %s did not start: %s", entry[0], exc)
                seats.append(ProcessSeat(self.hub, None, absent=str(exc)))
        return seats

    def play(
        self,
        game: Game,
        seats: Sequence[Seat],
        *,
        seed: int,
        options: Mapping[str, Any] | None = None,
        game_id: int = 1,
        bot_seeds: Sequence[int] | None = None,
        names: Sequence[str] | None = None,
    ) -> GameRecord:
        """Play one game over ``seats`` (see ``arena.referee.game.Table``)."""
        table = Table(game, seats, seed, options, game_id, bot_seeds, names)
        return driver.play(table, self.limits)

    def play_many(self, tables: Iterable[Table], at_once: int) -> Iterator[Played]:
        """Play ``tables`` (consumed lazily), up to ``at_once`` in flight; yield each as it
        finishes (see ``arena.referee.driver.play_many``). The caller keeps each process within
        its ``peer.max_games``."""
        return driver.play_many(tables, at_once, self.limits)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
        if self._hub is not None:
            self._hub.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
