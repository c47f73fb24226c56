"""A game session's bot processes: a hub and a pool, and seats over them.

A ``Session`` owns, from the first process seat on, a hub and a pool of bot processes that
serve game after game (a process is replaced only after it crashed). ``arena play``, the
tournament runner, ``arena bot check`` and the benchmarks get their process seats from it, and
play through the referee's driver (``arena.referee.driver``):

    with Session(limits, sandbox=box) as session:
        seats = session.seats([(key, spec), ...])       # or InProcessSeat(act), ScriptedSeat
        record = driver.play(Table(game, seats, deal, bot_seeds=...), limits)

A process serves up to its ``max_games`` games at once; the per-game state lives in the
referee's ``GamePlay``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Self

from arena.errors import BotStartError
from arena.procs.botproc import BotProcess, BotSpec
from arena.procs.hub import Hub
from arena.procs.limits import Limits
from arena.procs.pool import BotPool
from arena.procs.remote import RemoteConfig
from arena.procs.sandbox import Sandbox
from arena.referee.seats import ProcessSeat, Seat

log = logging.getLogger(__name__)


class Session:
    """Bot processes under ``limits`` (default: ``Limits()``), made on first need, run under
    ``sandbox`` (None: unsandboxed; the command line resolves it) and write their logs to
    ``log_dir``; remote bots join through ``remote``; local bots reach the hub at
    ``endpoint``."""

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

    def process(self, key: str) -> BotProcess | None:
        """The process of pool entry ``key``, if it has one now."""
        return self._pool.procs.get(key) if self._pool is not None else None

    def processes(self) -> list[BotProcess]:
        """The processes (and remote connections) the pool holds now."""
        return list(self._pool.procs.values()) if self._pool is not None else []

    def end_local(self) -> tuple[list[BotProcess], list[BotProcess]]:
        """End every local bot process (``BotPool.end_local``): those ended, and those of which
        something may still run."""
        return self._pool.end_local() if self._pool is not None else ([], [])

    def prestart(self, entries: Sequence[tuple[str, BotSpec]]) -> None:
        """Start the processes of these pool entries (key, spec) ahead of the games."""
        self.pool.prestart(entries)

    def prewarm(self, entries: Sequence[tuple[str, BotSpec]]) -> None:
        """Make processes of these pool entries ready ahead of their turn, as warm starts that
        run no bot code until ``prestart`` or ``seats`` needs them (``BotPool.prewarm``)."""
        self.pool.prewarm(entries)

    def end_warm(self) -> None:
        """End the warm processes not released, unused (``BotPool.end_warm``)."""
        if self._pool is not None:
            self._pool.end_warm()

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

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
        if self._hub is not None:
            self._hub.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
