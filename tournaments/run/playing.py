"""Playing planned games on one game session: the part of a run every executor shares.

A ``SessionRunner`` plays a tournament's planned games on one session (``arena.referee.session``).
The serial run, each ``--jobs`` worker process and each Dask worker drive one. It keeps up to K
games in flight (``games_per_worker``, default ``auto_games_per_worker``) through the referee's
driver; a game starts only when each of its processes has a free slot (a process serves up to
its hello's ``max_games`` games at once, one for bots that say nothing).

A run is played in **phases** (``tournaments.run.phases``): a phase holds at most one seat rotation
of any deal. Within a phase an entrant's processes serve game after game (a second process
starts only when the first has no free slot, up to ``replicas``); at the phase's end
(``end_phase``) every local bot process is ended and confirmed gone, its scratch and (as root)
what its uid left removed, before the next phase starts any. So no two processes that play
rotations of one deal are ever alive at the same time, nothing one of them wrote is left for
another, and no process plays a deal twice. A remote bot is one connection its owner's program
holds, which the arena cannot end or isolate: it keeps it for the whole run (``tournament
create`` warns).

Every bot process is recorded (``ProcessRecord``: its entrant, where and in which phase it ran,
when it started and ended); ``play_many`` yields each record before the first game it played,
and each game's ``Played`` names the process at each seat. Records of games come back without
their event log: the store keeps the actions, and replays rebuild the events with the engine.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.errors import ArenaError
from arena.games.base import Game
from arena.procs.botproc import BotProcess, BotSpec
from arena.procs.limits import Limits
from arena.procs.remote import RemoteConfig
from arena.procs.sandbox import Sandbox
from arena.referee.driver import Driver
from arena.referee.game import GamePlay, GameSetup
from arena.referee.record import Played
from arena.referee.seats import ProcessSeat
from arena.referee.session import Session
from tournaments.errors import BotChanged
from tournaments.plans.schedule import PlannedGame
from tournaments.store.values import ProcessRecord

if TYPE_CHECKING:
    from tournaments.catalogue.lookup import PlannedCode

log = logging.getLogger(__name__)


def process_key(label: str, replica: int, spec: BotSpec) -> str:
    """The pool key of entrant ``label``'s ``replica``-th process of a phase.

    Keys never collide: a local key ends in ``.p`` and digits, a remote one in ``.remote``, so
    no entrant's name (``x.p1``, say) can make its key another entrant's. A remote bot has one
    key: one connection for the whole run."""
    return f"{label}.remote" if spec.remote else f"{label}.p{replica}"


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


#: Bot processes started at once when a phase begins (the rest start when a game needs them).
PREPARE_PROCS = 32


@dataclass(frozen=True, kw_only=True)
class RunConfig:
    """How a run plays its games, wherever they are played: one value for the serial run,
    each ``--jobs`` worker process and each Dask worker (which puts its own bots' specs, sandbox
    and logs folder in it, ``tournaments.run.cluster_worker``).

    ``bots`` maps each entrant to how to run it; ``limits`` and ``sandbox`` (None: unsandboxed;
    ``tournaments.service`` resolves it) say how bot processes run, ``log_dir`` where their
    output goes; ``at_once`` is how many games each worker drives at once; ``remote`` lets
    remote bots join (one listening process: ``jobs`` 1 only); ``code`` is the code each
    entrant was planned with, hashed again before each of its processes starts (and by the
    run between phases: ``tournaments.run.runner``; None: not checked)."""

    game: Game
    options: Mapping[str, Any]
    bots: Mapping[str, BotSpec]
    limits: Limits
    at_once: int
    sandbox: Sandbox | None = None
    log_dir: Path | None = None
    remote: RemoteConfig | None = None
    code: PlannedCode | None = None


class SessionRunner:
    """Plays a tournament's planned games on one session, several at once, phase by
    phase: within a phase an entrant's processes serve game after game, a process never has
    more games open than its ``max_games``, and ``end_phase`` ends them all. ``on_start`` is
    told each game's id as it starts (the run's list of games in play)."""

    def __init__(
        self,
        config: RunConfig,
        *,
        run: str = "",
        host: str = "local",
        on_start: Callable[[int], None] | None = None,
    ) -> None:
        self.config = config
        self.on_start = on_start
        self.game = config.game
        self.options = dict(config.options)
        self.specs = dict(config.bots)
        self.run, self.host = run, host
        self.session = Session(
            config.limits, log_dir=config.log_dir, sandbox=config.sandbox, remote=config.remote
        )
        self.driver = Driver()
        self.phase = 0
        self._replicas: dict[str, list[str]] = {}  # entrant -> its process keys this phase
        self._records: dict[str, ProcessRecord] = {}  # token -> record, of live processes
        self._fresh: list[ProcessRecord] = []  # records not yet yielded
        self._seated: dict[int, tuple[str | None, ...]] = {}  # game in flight -> tokens
        self._upcoming: list[tuple[str, BotSpec]] = []  # the next phase's first processes

    def begin_phase(
        self, index: int, entrants: Iterable[str] = (), *, upcoming: Iterable[str] = ()
    ) -> None:
        """Start phase ``index``: its first process of each of ``entrants`` starts now (up to
        ``PREPARE_PROCS``, all at once, so that their start-up overlaps; a warm one made
        during the phase before is released). Once its first games have started, the first
        processes of the next phase's entrants (``upcoming``) are made ready as warm starts
        (``arena.procs.warm``): they run no bot code until that phase begins."""
        self.phase = index
        local = [label for label in dict.fromkeys(entrants) if not self.specs[label].remote]
        entries = []
        for label in local[:PREPARE_PROCS]:
            if self._changed([label]) is not None:
                continue  # its games fail to start, and the run stops at the phase's end
            keys = self._replicas.setdefault(label, [])
            if not keys:
                keys.append(process_key(label, 0, self.specs[label]))
                entries.append((keys[0], self.specs[label]))
        self.session.pool.prestart(entries)
        following = [label for label in dict.fromkeys(upcoming) if not self.specs[label].remote]
        self._upcoming = [
            (process_key(label, 0, self.specs[label]), self.specs[label])
            for label in following[:PREPARE_PROCS]
        ]

    def end_warm(self) -> None:
        """End the next phase's warm processes unused, none of their bots' code run: this
        runner plays none of that phase's games (a cluster's worker that got none)."""
        self._upcoming = []
        self.session.pool.end_warm()

    @property
    def started(self) -> int:
        """Bot processes started so far."""
        return self.session.pool.started

    @property
    def in_flight(self) -> int:
        """Games being played now."""
        return len(self.driver)

    def play_many(
        self, games: Iterable[tuple[int, PlannedGame] | None], at_once: int
    ) -> Iterator[Played | ProcessRecord]:
        """Play ``games`` (consumed lazily), up to ``at_once`` in flight, and yield each as
        it finishes, after the record of every process it was the first game of. A game starts
        only when each of its processes has a free slot (else a later one that can starts
        first: results do not depend on the order). A None in ``games`` means "no game to
        hand out now" (asked again when a game finishes). A game the arena could not play
        comes back with its ``error``; the others go on."""
        source = iter(games)
        backlog: list[tuple[int, PlannedGame]] = []
        more = True

        def fill() -> None:
            nonlocal more
            more = self._fill(source, backlog, at_once, more)
            if self._upcoming:  # this phase's processes have started: ready the next one's
                self.session.pool.prewarm(self._upcoming)
                self._upcoming = []
            if not self.driver.active() and (more or backlog):
                raise ArenaError("no game can start and none is in flight")

        for played in self.driver.run(fill):
            fresh, self._fresh = self._fresh, []
            yield from fresh
            yield self._finished(played)

    def _finished(self, played: Played) -> Played:
        record = played.record
        return replace(
            played,
            record=None if record is None else replace(record, events=()),
            processes=self._seated.pop(played.game_id, ()),
        )

    def _fill(
        self,
        source: Iterator[tuple[int, PlannedGame] | None],
        backlog: list[tuple[int, PlannedGame]],
        at_once: int,
        more: bool,
    ) -> bool:
        """Start games until ``at_once`` are in flight: the first of ``backlog`` whose
        processes all have a free slot, pulling more from ``source`` (up to ``LOOKAHEAD``
        waiting) when none can start. Returns whether ``source`` may give more games."""
        while len(self.driver) < at_once:
            found = next(
                (
                    (item, entries)
                    for item in backlog
                    if (entries := self._assign(item[1])) is not None
                ),
                None,
            )
            if found is None:
                if not more or len(backlog) >= LOOKAHEAD:
                    return more
                pulled = next(source, _END)
                if pulled is _END or pulled is None:
                    return pulled is None
                backlog.append(pulled)
                continue
            backlog.remove(found[0])
            self._start(*found[0], found[1])
        return more

    def _assign(self, planned: PlannedGame) -> list[tuple[str, BotSpec]] | None:
        """The pool entries (process key, spec) of a game's seats: for each entrant, the first
        of its processes with a free slot, or a new one while it has fewer than ``replicas``;
        None if some entrant has none to give now."""
        entries = []
        for label in planned.seating:
            spec = self.specs[label]
            keys = self._replicas.get(label, [])
            key = next((key for key in keys if self._has_room(key)), None)
            if key is None and (not keys or not spec.remote):
                if len(keys) < self._replicas_of(keys, len(planned.seating)):
                    key = process_key(label, len(keys), spec)
            if key is None:
                return None
            entries.append((key, spec))
        return entries

    def _has_room(self, key: str) -> bool:
        """Whether the process of ``key`` may take one more game: one not started (or not
        welcomed) yet may; one whose connection is closed is replaced once its games in
        flight have ended."""
        proc = self.session.pool.procs.get(key)
        peer = proc.peer if proc is not None else None
        if peer is None:
            return True
        if peer.closed:
            return peer.peer_id not in self.driver.open
        return self.driver.has_room(peer)

    def _replicas_of(self, keys: list[str], seats: int) -> int:
        """How many processes an entrant (with processes ``keys`` so far) may have in a phase:
        by its first process's ``max_games``, enough to play as many games at once as a table
        has ``seats`` (one process for a bot that serves many games, a table's worth for one
        that serves one game at a time, as one process per rotation gave it before)."""
        proc = self.session.pool.procs.get(keys[0]) if keys else None
        peer = proc.peer if proc is not None else None
        per_process = peer.max_games if peer is not None else 1
        return max(1, math.ceil(seats / per_process))

    def _start(
        self, game_id: int, planned: PlannedGame, entries: list[tuple[str, BotSpec]]
    ) -> None:
        """Start one game, its seats' processes started if need be (a game that cannot be
        set up comes back from the driver with its error)."""
        starting = [
            label
            for label, (key, spec) in zip(planned.seating, entries, strict=True)
            if not spec.remote and not self._running(key)
        ]
        changed = self._changed(starting)
        if changed is not None:  # the game stays pending; the run stops at the phase's end
            self.driver.fail(game_id, changed)
            return
        for label, (key, _) in zip(planned.seating, entries, strict=True):
            keys = self._replicas.setdefault(label, [])
            if key not in keys:
                keys.append(key)
        try:
            seats = self.session.seats(entries)
        except Exception as exc:  # noqa: BLE001 - one game's error never stops the others
            log.exception("game %d could not start", game_id)
            self.driver.fail(game_id, f"{type(exc).__name__}: {exc}")
            return
        tokens = []
        for label, seat in zip(planned.seating, seats, strict=True):
            proc = seat.proc if isinstance(seat, ProcessSeat) else None
            tokens.append(None if proc is None else self._note(label, proc).token)
        self._seated[game_id] = tuple(tokens)
        setup = GameSetup(
            self.game,
            seats,
            planned.deal_seed,
            self.options,
            game_id,
            planned.bot_seeds(),
            planned.seating,
        )
        self.driver.add(GamePlay(self.config.limits, setup))
        if self.on_start is not None:
            self.on_start(game_id)

    def _running(self, key: str) -> bool:
        """Whether pool entry ``key`` has a process, not known to be gone (else a game starts
        one). No system call: a death not yet seen is checked at the next phase."""
        proc = self.session.pool.procs.get(key)
        if proc is None or (proc.peer is not None and proc.peer.closed):
            return False
        return proc.popen is None or proc.popen.returncode is None

    def _changed(self, labels: list[str]) -> str | None:
        """Why the code of a process of ``labels`` about to start is no longer its entrant's
        planned version (None: it is, or the run checks no code)."""
        if self.config.code is None or not labels:
            return None
        try:
            self.config.code.check(labels)
        except BotChanged as exc:
            log.error("%s", exc)
            return str(exc)
        return None

    def _note(self, label: str, proc: BotProcess) -> ProcessRecord:
        """The record of ``label``'s process ``proc``, made (and queued to be yielded) the
        first time it is seen."""
        found = self._records.get(proc.token)
        if found is None:
            found = self._records[proc.token] = self._record(label, proc)
            self._fresh.append(found)
        return found

    def _record(self, label: str, proc: BotProcess) -> ProcessRecord:
        return ProcessRecord(
            token=proc.token,
            entrant=label,
            run=self.run,
            phase=self.phase,
            host=self.host,
            pid=proc.popen.pid if proc.popen is not None else None,
            remote=proc.spec.remote,
            started_at=proc.started_wall,
        )

    def _ended(self, procs: list[BotProcess], left: list[BotProcess]) -> list[ProcessRecord]:
        """The records of processes just ended (``left``: not confirmed gone)."""
        owner = {key: label for label, keys in self._replicas.items() for key in keys}
        now = time.time()
        records = []
        for proc in procs:
            record = self._records.pop(proc.token, None) or self._record(owner[proc.label], proc)
            records.append(replace(record, ended_at=now, confirmed=proc not in left))
        gone = {record.token for record in records}
        self._fresh = [record for record in self._fresh if record.token not in gone]
        return records

    def end_phase(self) -> list[ProcessRecord]:
        """End every local bot process of this phase (bye, then killed with all it started;
        its scratch and, as root, its uid's leftovers removed) and return their records,
        each ``confirmed`` if nothing of it is seen running any more. Called with no game in
        flight; remote connections stay."""
        if self.driver.active():
            raise ArenaError("a phase ends only once its games have")
        records = self._ended(*self.session.pool.end_local())
        self._replicas = {
            label: keys for label, keys in self._replicas.items() if self.specs[label].remote
        }
        return records

    def close(self) -> list[ProcessRecord]:
        """End every process, remote connections too; the records of those ended now."""
        records = self._ended(*self.session.pool.end_local())
        remote = list(self.session.pool.procs.values())
        self.session.close()
        return records + self._ended(remote, [])


#: The end of an iterator.
_END: Any = object()
