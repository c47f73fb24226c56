"""A game session: one hub, one pool of bot processes on it, and process seats over them.

A ``Session`` owns a hub (``arena.procs.hub``) and a pool of bot processes
(``arena.procs.pool``) that serve game after game (a process is replaced only after it
crashed), and makes the seats a game is played over from pool entries (``seats``: a bot that
does not start sits absent, or raises). ``arena play``, the tournament runner, ``arena bot
check`` and the benchmarks get their process seats from it and play them through the
referee's driver (``arena.referee.driver``); they ask its ``pool`` directly for anything else
(processes to start ahead, to end at a phase's end):

    with Session(limits, sandbox=box) as session:
        seats = session.seats([(key, spec), ...])       # or InProcessSeat(act), ScriptedSeat
        record = driver.play(GameSetup(game, seats, deal, bot_seeds=...), limits)

A process serves up to its ``max_games`` games at once; the per-game state lives in the
referee's ``GamePlay``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Self

from arena.errors import BotRefused, BotStartError
from arena.procs.botproc import BotSpec
from arena.procs.hub import Hub
from arena.procs.limits import Limits
from arena.procs.pool import BotPool
from arena.procs.remote import RemoteConfig
from arena.procs.sandbox import Sandbox
from arena.referee.seats import ProcessSeat, Seat

log = logging.getLogger(__name__)


class Session:
    """A hub and a pool of bot processes under ``limits`` (default: ``Limits()``), run under
    ``sandbox`` (None: unsandboxed; the command line resolves it), writing their logs to
    ``log_dir``; remote bots join through ``remote`` (a bad configuration fails here); local
    bots reach the hub at ``endpoint``."""

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
        self.warned: set[tuple[str, str]] = set()  # (bot, reason): each said once
        self.hub = Hub(endpoint, remote=remote)
        try:
            self.pool = BotPool(
                self.hub,
                log_dir=log_dir,
                limits=limits,
                sandbox=sandbox,
                startup_ms=startup_ms,
            )
        except BaseException:
            self.hub.close()
            raise

    def seats(self, entries: Sequence[tuple[str, BotSpec]], *, strict: bool = False) -> list[Seat]:
        """Process seats for pool entries (key, spec), one per seat, started if need be.

        A bot that does not start raises BotStartError if ``strict``; else it sits absent and
        its seat's fault says why (``refused`` when the arena refused its hello, else
        ``crash``), the log once per bot and reason.
        """
        pool = self.pool
        try:
            return [ProcessSeat(self.hub, proc) for proc in pool.get(entries)]
        except BotStartError as exc:
            if strict:
                raise
            failed = {exc.label: exc}
        seats: list[Seat] = []
        for entry in entries:  # find which one failed; it plays with none
            try:
                if entry[0] in failed:
                    raise failed[entry[0]]
                seats.append(ProcessSeat(self.hub, pool.get([entry])[0]))
            except BotStartError as exc:
                self._warn_once(entry[1].name, str(exc))
                refused = isinstance(exc, BotRefused)
                seats.append(ProcessSeat(self.hub, None, absent=str(exc), refused=refused))
        return seats

    def _warn_once(self, bot: str, reason: str) -> None:
        """A bot that did not start, in the log once per reason (later ones at debug level:
        each of its seats' faults says it again)."""
        said = (bot, reason)
        level = logging.DEBUG if said in self.warned else logging.WARNING
        self.warned.add(said)
        log.log(level, "bot %s did not start: %s", bot, reason)

    def close(self) -> None:
        self.pool.close()
        self.hub.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
