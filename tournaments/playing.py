"""Playing planned games on one game session: the part of a run every executor shares.

A ``TableRunner`` plays a tournament's planned games on one session (``arena.referee.session``)
whose bot processes serve game after game (a process is replaced only after a crash). The
serial run, each ``--jobs`` worker process and each Dask worker drive one. It keeps up to K
games in flight (``games_per_worker``, default ``auto_games_per_worker``) through the referee's
driver; a game starts only when each of its processes has a free slot (a process serves up to
its hello's ``max_games`` games at once, one for bots that say nothing).

Rotation r of every deal goes to an entrant's r-th process (``process_key``), so no process
plays a deal twice, however many games run at once. Records come back without their event log:
the store keeps the actions, and replays rebuild the events with the engine.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from arena.games.base import Game
from arena.procs.botproc import BotSpec
from arena.procs.limits import Limits
from arena.procs.remote import RemoteConfig
from arena.procs.sandbox import Sandbox
from arena.referee.driver import Played
from arena.referee.game import Table
from arena.referee.record import GameRecord
from arena.referee.session import Session
from tournaments.schedule import PlannedGame

log = logging.getLogger(__name__)


def process_key(label: str, rotation: int, spec: BotSpec) -> str:
    """The pool key of the process that plays ``label``'s games in seat rotation ``rotation``.

    Every rotation of a deal is played on the same deal, so a process that played one rotation
    would know, in the next, the hands it saw. Rotation r of every deal therefore goes to the
    entrant's r-th process: each process sees each deal at most once, in every mode (one job
    or many, resumed runs, replaced processes). A remote bot is one connection whose owner's
    program the arena cannot isolate: it keeps one key (``tournament create`` warns).

    Keys never collide: a local key ends in ``.rot`` and digits, a remote one in ``.remote``,
    so no entrant's name (``x.rot1``, say) can make its key another entrant's.
    """
    return f"{label}.remote" if spec.remote else f"{label}.rot{rotation}"


@dataclass(frozen=True)
class Finished:
    """A game a ``TableRunner`` finished: its record (without its event log), or the text of
    the arena error that kept it from being played (an arena bug, not a bot's fault)."""

    game_id: int
    record: GameRecord | None
    error: str | None


#: Most games a worker (or the serial run) drives at once when not told (``--games-per-worker``):
#: beyond this, more games in flight gained nothing in ``bench/bench_throughput.py``.
MAX_AUTO_GAMES = 64
#: Move time (ms) per game in flight for the automatic default. An answer waits to be read (and
#: its time stamped) while the referee handles the messages of the other games in flight, about
#: 70 µs each; one game per 16 ms of move time keeps that wait under about 0.5 % of a move.
MOVE_MS_PER_GAME = 16


def auto_games_per_worker(move_ms: int) -> int:
    """Games a worker drives at once by default, for moves of ``move_ms``."""
    return max(1, min(MAX_AUTO_GAMES, move_ms // MOVE_MS_PER_GAME))


#: Planned games looked at, beyond the ones in flight, for one whose processes have a free slot.
LOOKAHEAD = 64


#: Bot processes started at once when a run begins (the rest start a game ahead).
PREPARE_PROCS = 32


@dataclass(frozen=True, kw_only=True)
class RunConfig:
    """How a run plays its games, wherever they are played: one value for the serial run,
    each ``--jobs`` worker process and each Dask worker (which puts its own bots' specs, sandbox
    and logs folder in it, ``tournaments.cluster_worker``).

    ``bots`` maps each entrant to how to run it; ``limits`` and ``sandbox`` (None: unsandboxed;
    ``tournaments.service`` resolves it) say how bot processes run, ``log_dir`` where their
    output goes; ``at_once`` is how many games each worker drives at once; ``remote`` lets
    remote bots join (one listening process: ``jobs`` 1 only)."""

    game: Game
    options: Mapping[str, Any]
    bots: Mapping[str, BotSpec]
    limits: Limits
    at_once: int
    sandbox: Sandbox | None = None
    log_dir: Path | None = None
    remote: RemoteConfig | None = None


class TableRunner:
    """Plays a tournament's planned games (tables) on one session, several at once, whose bot
    processes serve game after game: rotation r of every deal goes to each entrant's r-th
    process, and a process never has more games open than its ``max_games``."""

    def __init__(self, config: RunConfig) -> None:
        self.config = config
        self.game = config.game
        self.options = dict(config.options)
        self.specs = dict(config.bots)
        self.session = Session(
            config.limits, log_dir=config.log_dir, sandbox=config.sandbox, remote=config.remote
        )
        self._open: dict[str, int] = {}  # process key -> games open on it
        self._keys: dict[int, list[str]] = {}  # game in flight -> its process keys
        self._failed: list[Finished] = []

    def entries(self, planned: PlannedGame) -> list[tuple[str, BotSpec]]:
        """The pool entries (process key, spec) of a game's seats."""
        return [
            (process_key(label, planned.rotation, self.specs[label]), self.specs[label])
            for label in planned.seating
        ]

    def prepare(self, planned: PlannedGame) -> None:
        """Start what ``planned`` will need while other games are played."""
        self.session.prestart(self.entries(planned))

    def prepare_rotations(self, rotations: Iterable[int]) -> None:
        """At the start of a run or a worker: start every entrant's processes for ``rotations``
        (in that order), up to ``PREPARE_PROCS`` of them, all at once, so that their start-up
        overlaps the first games."""
        wanted = [
            (process_key(label, rotation, spec), spec)
            for rotation in rotations
            for label, spec in self.specs.items()
        ]
        self.session.prestart(list(dict(wanted).items())[:PREPARE_PROCS])

    @property
    def started(self) -> int:
        """Bot processes started so far."""
        return self.session.started

    @property
    def in_flight(self) -> int:
        """Games being played now."""
        return len(self._keys)

    def play_many(
        self, games: Iterable[tuple[int, PlannedGame] | None], at_once: int
    ) -> Iterator[Finished]:
        """Play ``games`` (consumed lazily), up to ``at_once`` in flight, and yield each as
        it finishes. A game starts only when each of its processes has a free slot (else a
        later one that can starts first: results do not depend on the order). Records come
        without their event log: the store keeps the actions, and replays rebuild the events.
        A game the arena could not play is a ``Finished`` with ``error``; the others go on.
        A None in ``games`` means "no game to hand out now" (asked again later)."""
        for played in self.session.play_many(self._tables(iter(games)), at_once):
            yield self._finished(played)
            yield from self._flush_failed()
        yield from self._flush_failed()

    def _finished(self, played: Played) -> Finished:
        for key in self._keys.pop(played.game_id, ()):
            self._open[key] -= 1
        if played.error is not None:
            error = f"{type(played.error).__name__}: {played.error}"
            return Finished(played.game_id, None, error)
        return Finished(played.game_id, replace(played.record, events=()), None)

    def _flush_failed(self) -> Iterator[Finished]:
        failed, self._failed = self._failed, []
        yield from failed

    def _tables(self, games: Iterator[tuple[int, PlannedGame] | None]) -> Iterator[Table | None]:
        """The tables to play, each as soon as its processes have a free slot (None: none
        can start now)."""
        backlog: list[tuple[int, PlannedGame]] = []
        exhausted = False
        while backlog or not exhausted:
            item = self._startable(backlog)
            while item is None and not exhausted and len(backlog) < LOOKAHEAD:
                pulled = next(games, _END)
                if pulled is _END:
                    exhausted = True
                elif pulled is None:
                    break
                else:
                    backlog.append(pulled)
                    self.prepare(pulled[1])
                    item = self._startable(backlog)
            if item is None:
                if exhausted and not backlog:
                    return
                yield None
                continue
            backlog.remove(item)
            table = self._table(*item)
            if table is not None:
                yield table

    def _startable(self, backlog: list[tuple[int, PlannedGame]]) -> tuple | None:
        """The first game of ``backlog`` whose every process has a free slot."""
        for item in backlog:
            keys = [key for key, _ in self.entries(item[1])]
            if all(self._open.get(key, 0) < self.session.capacity(key) for key in keys):
                return item
        return None

    def _table(self, game_id: int, planned: PlannedGame) -> Table | None:
        """The table of one game, its seats' processes started if need be (None: it could not
        be made; the error is reported with the finished games)."""
        try:
            entries = self.entries(planned)
            seats = self.session.seats(entries)
        except Exception as exc:  # noqa: BLE001 - one game's error never stops the others
            log.exception("game %d could not start", game_id)
            self._failed.append(Finished(game_id, None, f"{type(exc).__name__}: {exc}"))
            return None
        keys = [key for key, _ in entries]
        for key in keys:
            self._open[key] = self._open.get(key, 0) + 1
        self._keys[game_id] = keys
        return Table(
            self.game,
            seats,
            planned.deal_seed,
            self.options,
            game_id,
            planned.bot_seeds(),
            planned.seating,
        )

    def close(self) -> None:
        self.session.close()


#: The end of an iterator.
_END: Any = object()
