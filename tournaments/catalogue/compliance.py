"""The compliance suite of ``arena bot check`` and ``arena bot add``: does a bot speak the
protocol?

It plays one process of the bot through the real hub and the referee's driver
(``arena.referee.driver``), as fastchess's ``--compliance`` drives a chess engine, and reports
a line per check in the protocol page's words:

1. **hello**: it starts, connects and says hello with its token and protocol 1 (``BotPool``);
   a refused hello is reported with the arena's answer (``bad-token``, ``bad-hello``...);
2. **ids**: in a first game, with a ``game_id`` and a 63-bit seed it cannot have guessed, and
   in every later one, it answers each turn with that turn's ``game_id`` and ``request``;
3. **legal**, **messages**, **deadline**, **games in a row**: it plays every table size each
   game allows (or ``table_sizes``) in every seat, at least once, in the same process, the
   other seats played by the referee at random in this process, with only offered actions,
   well-formed maps and answers within the deadline (its latency percentiles are reported);
4. **several games at once**: a bot whose hello says ``max_games`` > 1 plays a few games at
   once in its process, their turns waiting together (``tournaments.catalogue.interleaved``);
   one whose hello says ``batch: true`` gets them in batches, and must answer each turn of a
   batch legally and for its own game (each entry is judged on its own);
5. **bye**: it exits when told ``bye``.

Every game is judged by the faults the driver records, one cause one check: the first fault
of a step is its cause (a turn answered with the wrong ``game_id`` then timed out is an ids
failure, not a deadline one), and each kind of fault fails exactly one check. A stale reply
is dropped by the driver, as the protocol says, never failed. A check that cannot run because
an earlier one failed is reported as skipped. Every wait is bounded (start-up, each move's
deadline, three faults per game, the first game with a fault ends the games, a few seconds
after bye), so a program that is no bot at all (``cat``, ``sleep 100``, ``yes``) fails in
bounded time. A bot that passes but slowly can still take long (every seat of every table
size, each move up to its deadline): a ``CheckStop`` bounds the whole check by a time budget
and lets another thread cancel it; either kills the bot's process at once (its game ends) and
the check fails, saying why.
"""

from __future__ import annotations

import logging
import math
import os
import random
import re
import signal
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from arena.errors import BotStartError
from arena.games import get_game
from arena.games.base import Game
from arena.keys.seeds import bot_seeds, new_key, random_seed
from arena.procs.botproc import BotProcess, BotSpec
from arena.procs.limits import Limits
from arena.procs.logs import log_path as log_file
from arena.procs.logs import output_tail
from arena.procs.sandbox import Sandbox
from arena.referee import driver
from arena.referee.game import GameSetup
from arena.referee.record import Chooser, Fault, FaultKind, GameRecord
from arena.referee.replay import state_at
from arena.referee.seats import InProcessSeat, ProcessSeat, Seat
from arena.referee.session import Session
from protocol import messages
from tournaments.catalogue.interleaved import interleave
from tournaments.errors import UsageProblem

log = logging.getLogger(__name__)

__all__ = ["Check", "CheckStop", "ComplianceReport", "Coverage", "run_checks", "seatings"]

#: Seconds a bot has to exit after ``bye``.
BYE_S = 3.0
#: The arena's id of the first game (its log lines are tagged with it; the bot is sent a fresh
#: random id, as every game id a bot receives: ``arena.referee.seats.opaque_id``).
PROBE_GAME_ID = 7_340_033
#: The bot's seed in that game: near 2**63, so a decoder without 64-bit integers shows it.
PROBE_SEED = (1 << 63) - 12_345
#: Lines of the bot's output shown with a failed check.
OUTPUT_LINES = 12
#: What a bot's output says when it failed to decode a large integer (the probe seed): only
#: then is a crash before its first decision blamed on the seed.
INTEGER_TROUBLE = re.compile(
    r"integer|int64|uint64|bigint|overflow|out of range|too (big|large)|precision|"
    r"unpack|msgpack|decod",
    re.IGNORECASE,
)
#: Offered actions listed with an illegal answer.
OFFERED_SHOWN = 12

TITLES = {
    "hello": "starts and says hello (token, protocol 1)",
    "ids": "answers each turn with its game_id and request",
    "legal": "plays only the actions it is offered",
    "messages": "sends well-formed messages",
    "deadline": "answers within the deadline",
    "games": "plays game after game in one process",
    "concurrent": "serves the games it says it serves at once (max_games)",
    "batch": "answers a batch's turns, each for its own game (batch)",
    "bye": "exits on bye",
}
#: The check each kind of fault fails (a crash, or a process refused: playing game after game).
FAILS = {
    FaultKind.REFUSED: "games",
    FaultKind.WRONG_ID: "ids",
    FaultKind.ILLEGAL: "legal",
    FaultKind.MALFORMED: "messages",
    FaultKind.PROTOCOL: "messages",
    FaultKind.TIMEOUT: "deadline",
    FaultKind.CRASH: "games",
}


def _played_before(games: int) -> str:
    """How many whole games the bot played before it stopped, in words."""
    return "in its first game" if games <= 0 else f"after {games} whole game(s)"


@dataclass(frozen=True, kw_only=True)
class Check:
    """One check's result: ``ok`` is True (passed), False (failed) or None (skipped)."""

    key: str
    title: str
    ok: bool | None
    detail: str

    def line(self) -> str:
        mark = {True: "pass", False: "FAIL", None: "skip"}[self.ok]
        return f"[{mark}] {self.title}: {self.detail}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "check": self.key,
            "title": self.title,
            "result": {True: "pass", False: "fail", None: "skipped"}[self.ok],
            "detail": self.detail,
        }


@dataclass(frozen=True, kw_only=True)
class Coverage:
    """What the bot played of one game: the seats it held at each table size."""

    game: str
    sizes: tuple[int, ...]  # the table sizes the check was to cover
    played: tuple[tuple[int, int], ...]  # (players, seat) of each game it played

    def seats_at(self, players: int) -> list[int]:
        return sorted({seat for size, seat in self.played if size == players})

    @property
    def complete(self) -> bool:
        return all(len(self.seats_at(size)) == size for size in self.sizes)

    def text(self) -> str:
        """``skull: 3-6 players, every seat (18 games)``, or what was covered of it:
        ``skull: 3-5 players, every seat; 6 players, seat 0 (13 games); not played: ...``."""
        full = [size for size in self.sizes if len(self.seats_at(size)) == size]
        parts = [f"{_ranges(full)} players, every seat"] if full else []
        for size in self.sizes:
            seats = self.seats_at(size)
            if seats and size not in full:
                parts.append(
                    f"{size} players, seat{'s' if len(seats) > 1 else ''} {_listed(seats)}"
                )
        count = len(self.played)
        text = f"{self.game}: {'; '.join(parts) or 'nothing'} ({count} game{'s' * (count != 1)})"
        missing = [size for size in self.sizes if not self.seats_at(size)]
        if missing:
            text += f"; not played: {_ranges(missing)} players"
        return text

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "table_sizes": list(self.sizes),
            "seats": {str(size): self.seats_at(size) for size in self.sizes},
            "games": len(self.played),
            "complete": self.complete,
        }


def _listed(values: Sequence[int]) -> str:
    return ", ".join(str(v) for v in values)


def _ranges(values: Sequence[int]) -> str:
    """``3, 5-8``: sorted values, runs shown as ranges."""
    runs: list[list[int]] = []
    for value in values:
        if runs and value == runs[-1][-1] + 1:
            runs[-1].append(value)
        else:
            runs.append([value])
    return ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)


@dataclass(frozen=True, kw_only=True)
class ComplianceReport:
    """Every check of one bot, what it covered, its latency percentiles (ms) and, when a check
    failed, the last lines of its output (escaped)."""

    bot: str
    games: tuple[str, ...]
    checks: tuple[Check, ...]
    coverage: tuple[Coverage, ...] = ()
    latency_ms: dict[str, float] = field(default_factory=dict)
    games_played: int = 0
    output: tuple[str, ...] = ()
    stopped: str | None = None  # why the check stopped before its end (``CheckStop``)

    @property
    def passed(self) -> bool:
        return self.stopped is None and all(check.ok for check in self.checks)

    def failures(self) -> list[Check]:
        return [check for check in self.checks if check.ok is False]

    def lines(self) -> list[str]:
        out = [f"checking {self.bot} ({', '.join(self.games)})"]
        out += [check.line() for check in self.checks]
        if self.coverage:
            out.append("covered: " + "; ".join(c.text() for c in self.coverage))
        if self.output and not self.passed:
            out.append("its last output:")
            out += [f"  {line}" for line in self.output]
        if self.stopped is not None:
            out.append(f"the check was stopped: {self.stopped}")
        elif self.passed:
            out.append("all checks passed")
        else:
            out.append(f"{len(self.failures())} check(s) failed")
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "bot": self.bot,
            "games": list(self.games),
            "passed": self.passed,
            "games_played": self.games_played,
            "coverage": [c.to_dict() for c in self.coverage],
            "latency_ms": dict(self.latency_ms),
            "checks": [check.to_dict() for check in self.checks],
            "output": list(self.output),
            "stopped": self.stopped,
        }


def percentiles(values_ms: Sequence[float]) -> dict[str, float]:
    """p50, p90, p99 and max (nearest rank) of some latencies, rounded to 0.01 ms."""
    if not values_ms:
        return {}
    ordered = sorted(values_ms)

    def rank(q: float) -> float:
        return ordered[max(0, math.ceil(q * len(ordered)) - 1)]

    return {
        "p50": round(rank(0.5), 2),
        "p90": round(rank(0.9), 2),
        "p99": round(rank(0.99), 2),
        "max": round(ordered[-1], 2),
    }


def seatings(game: Game, table_sizes: Iterable[int] | None = None) -> list[tuple[int, int]]:
    """Every (players, seat) of ``game`` at ``table_sizes`` (default: every size it allows),
    smallest tables first. Raises UsageProblem when none of the sizes fits the game."""
    allowed = range(game.min_players, game.max_players + 1)
    sizes = sorted(set(allowed if table_sizes is None else table_sizes) & set(allowed))
    if not sizes:
        raise UsageProblem(
            f"{game.name} takes {game.min_players}-{game.max_players} players: none of the "
            f"table sizes {_listed(sorted(set(table_sizes or ())))}"
        )
    return [(players, seat) for players in sizes for seat in range(players)]


class CheckStop:
    """Stops a check before its end: when its time budget (``budget_s``, counted from its
    start; None: none) is used up, or when ``cancel`` is called (from any thread). The bot's
    process is killed then, so that its game ends at once, and no other game starts."""

    def __init__(self, budget_s: float | None = None) -> None:
        self.budget_s = budget_s
        self._why: str | None = None
        self._event = threading.Event()
        self._lock = threading.Lock()

    def cancel(self, why: str) -> None:
        """Stop the check (the first reason given is kept)."""
        with self._lock:
            self._why = self._why or why
        self._event.set()

    @property
    def why(self) -> str | None:
        """Why the check was stopped (None: it was not)."""
        return self._why

    def watch(self, run: _CheckRun) -> threading.Thread:
        """Watch ``run`` from a thread of its own until it ends or must stop."""

        def watch() -> None:
            if not self._event.wait(self.budget_s) and not run.done.is_set():
                self.cancel(f"it took over its time budget of {self.budget_s:g} s")
            if not run.done.is_set():
                run.kill()

        thread = threading.Thread(target=watch, name="check-stop", daemon=True)
        thread.start()
        return thread

    def end(self) -> None:
        """The check ended: the watching thread goes."""
        self._event.set()


@dataclass(frozen=True)
class _Fault:
    """A fault of the bot in one game, with where it happened."""

    fault: Fault
    where: str  # "skull with 4 players, seat 2, step 7"


class _CheckRun:
    """One check run: a session whose only process is the bot under test; the other seats are
    played in this process at random (seeded)."""

    def __init__(
        self,
        spec: BotSpec,
        limits: Limits,
        log_dir: Path | None,
        sandbox: Sandbox | None,
        seed: int,
    ) -> None:
        self.spec = spec
        self.limits = limits
        self.session = Session(limits, log_dir=log_dir, sandbox=sandbox)
        self.label = f"check:{spec.name}"
        self.rng = random.Random(seed)
        self.key = new_key()
        self.checks: dict[str, Check] = {}
        self.faults: dict[str, _Fault] = {}  # check key -> its first fault
        self.latencies: list[float] = []
        self.decisions = 0
        self.played = 0
        self.coverage: dict[str, list[tuple[int, int]]] = {}
        self.proc: BotProcess | None = None
        self.probe_crash = False  # it crashed before its first decision of the probe seed
        self.done = threading.Event()  # the check has ended (nothing left to stop)
        self.stopped = False  # stop before the next game (``kill``)

    def kill(self) -> None:
        """(from another thread) Stop: no game starts any more, and the bot's process (its
        process group, its sandbox) is killed, so that a game being played ends now."""
        self.stopped = True
        proc = self.proc
        if proc is not None and proc.popen is not None:
            try:
                os.killpg(proc.popen.pid, signal.SIGKILL)
            except OSError:
                pass

    def result(self, key: str, ok: bool | None, detail: str) -> None:
        self.checks[key] = Check(key=key, title=TITLES[key], ok=ok, detail=detail)

    def close(self) -> None:
        self.session.close()

    # -- 1. hello ---------------------------------------------------------------------------

    def hello(self) -> bool:
        try:
            self.proc = self.session.pool.get([(self.label, self.spec)])[0]
        except BotStartError as exc:
            self.result("hello", False, str(exc))
            return False
        self.result("hello", True, f"welcomed as {self.proc.peer.name!r}")
        return True

    # -- 2 and 3. games under the referee ---------------------------------------------------

    def random_act(self) -> Callable[[dict[str, Any], list[str]], str]:
        rng = random.Random(self.rng.getrandbits(64))
        return lambda view, legal: rng.choice(legal)

    def seats(self, players: int, seat: int, bot: Seat) -> list[Seat]:
        return [
            bot if index == seat else InProcessSeat(self.random_act(), f"random{index}")
            for index in range(players)
        ]

    def play(self, game: Game, players: int, seat: int, game_id: int, seed: int | None) -> bool:
        """One game with the bot at ``seat``; False once the games must stop (a fault, its
        process is gone, or the check is stopped)."""
        if self.stopped:
            return False
        deal = self.rng.getrandbits(62)
        seeds = list(bot_seeds(self.key, deal, players))
        if seed is not None:
            seeds[seat] = seed
        seats = self.seats(players, seat, ProcessSeat(self.session.hub, self.proc))
        names = [self.label if index == seat else seats[index].label for index in range(players)]
        setup = GameSetup(game, seats, deal, game_id=game_id, bot_seeds=seeds, names=names)
        record = driver.play(setup, self.limits)
        self.played += 1
        self.coverage.setdefault(game.name, []).append((players, seat))
        mine = [a for a in record.actions if a.seat == seat and a.by is Chooser.BOT]
        self.decisions += len(mine)
        self.latencies += [a.think_us / 1000.0 for a in mine]
        found = self.judge(record, seat, f"{game.name} with {players} players, seat {seat}")
        if FaultKind.CRASH in found and seed is not None and not mine:
            self.probe_crash = True  # ``seed_hint`` says so if its output points to the seed
        return not found and self.proc.alive()

    def judge(self, record: GameRecord, seat: int, where: str) -> set[FaultKind]:
        """The kinds of the bot's faults in one game that are causes (the first fault of a
        step; later ones of that step are its consequences), each kept for its check."""
        causes: set[FaultKind] = set()
        steps: set[int] = set()
        for fault in record.faults:
            if fault.seat != seat or fault.step in steps:
                continue
            steps.add(fault.step)
            causes.add(fault.kind)
            key = FAILS[fault.kind]
            if key not in self.faults:
                self.faults[key] = _Fault(
                    self._explained(record, fault), f"{where}, step {fault.step}"
                )
        return causes

    def _explained(self, record: GameRecord, fault: Fault) -> Fault:
        """A fault in the protocol page's words (an illegal answer lists what was offered)."""
        detail = fault.detail
        if fault.kind is FaultKind.ILLEGAL:
            state = state_at(
                record.game,
                record.players,
                record.seed,
                record.options,
                record.joint_actions(),
                fault.step,
            )
            offered = state.legal(fault.seat)
            shown = ", ".join(offered[:OFFERED_SHOWN]) + (
                f", ... ({len(offered)} in all)" if len(offered) > OFFERED_SHOWN else ""
            )
            detail = f"{detail}; offered: {shown}"
        elif fault.kind is FaultKind.WRONG_ID:
            detail = f"an answer with the wrong game_id or request: {detail}"
        elif fault.kind is FaultKind.TIMEOUT:
            detail = f"{detail} (the turn's deadline_ms)"
        return replace(fault, detail=detail)

    def play_all(
        self, engines: Sequence[Game], table_sizes: Sequence[int] | None, per_game: int
    ) -> None:
        """The first game (turn by turn, ids it cannot guess), then every (players, seat) of
        each game, at least ``per_game`` games of each."""
        game_id = 100
        for index, game in enumerate(engines):
            cells = seatings(game, table_sizes)
            first = cells[0]
            if index == 0:
                if not self.play(game, *first, PROBE_GAME_ID, PROBE_SEED):
                    return
                cells = cells[1:] + [first]  # the first game covered its cell
                todo = max(per_game, len(cells)) - 1
            else:
                todo = max(per_game, len(cells))
            for count in range(todo):
                game_id += 1
                if not self.play(game, *cells[count % len(cells)], game_id, None):
                    return

    def judge_games(self, engines: Sequence[Game], table_sizes: Sequence[int] | None) -> None:
        played = f"{self.played} games, {self.decisions} decisions"
        for key in ("ids", "legal", "messages", "deadline"):
            found = self.faults.get(key)
            if found is not None:
                self.result(
                    key, False, f"{found.where}: {found.fault.kind.value}: {found.fault.detail}"
                )
        if "ids" not in self.checks:
            self.result(
                "ids",
                True,
                f"{played}, each with a fresh random game_id (below 2**53), the first with "
                f"seed {PROBE_SEED} (a 63-bit integer)",
            )
        for key in ("legal", "messages"):
            if key not in self.checks:
                self.result(key, True, played)
        stats = percentiles(self.latencies)
        if "deadline" not in self.checks:
            detail = played
            if stats:
                detail += (
                    f"; latency p50 {stats['p50']} ms, p90 {stats['p90']} ms, p99 "
                    f"{stats['p99']} ms, max {stats['max']} ms (deadline {self.limits.move_ms} ms)"
                )
            self.result("deadline", True, detail)
        crash = self.faults.get("games")
        if crash is not None:
            self.result(
                "games", False, f"{crash.where}, {_played_before(self.played - 1)}: "
                f"{crash.fault.kind.value}: {crash.fault.detail}"
            )  # fmt: skip
        elif not self.proc.alive():
            self.result(
                "games",
                False,
                f"{_played_before(self.played)}: its process {self.proc.exit_summary()}",
            )
        else:
            covered = [self.covered(game, table_sizes) for game in engines]
            if all(c.complete for c in covered):
                self.result("games", True, f"{self.played} games in one process")
            elif self.faults or self.stopped:  # the games stopped early: nothing to judge
                self.result(
                    "games",
                    None,
                    f"not judged: the games stopped after {self.played} game(s), "
                    + ("at the first fault (above)" if self.faults else "the check was stopped"),
                )
            else:
                self.result(
                    "games",
                    True,
                    f"{self.played} games in one process (stopped before covering every table "
                    "size and seat)",
                )

    def covered(self, game: Game, table_sizes: Sequence[int] | None) -> Coverage:
        sizes = sorted({players for players, _ in seatings(game, table_sizes)})
        return Coverage(
            game=game.name, sizes=tuple(sizes), played=tuple(self.coverage.get(game.name, ()))
        )

    # -- 4. several games at once -----------------------------------------------------------

    def interleave(self, game: Game) -> None:
        """Several games at once (``tournaments.catalogue.interleaved``); for a bot that takes
        batches, their turns come in batches, and every answer must be legal and for its own
        game."""
        peer = self.proc.peer
        declared = peer.max_games
        if declared < 2:
            self.result("concurrent", True, "one game at a time (its hello has no max_games > 1)")
            if peer.batch:
                self.result(
                    "batch", True, "says batch: true; one game at a time: batches of one turn"
                )
            else:
                self.result("batch", True, "one message at a time (its hello has no batch)")
            return
        ok, detail, together = interleave(self.session, self.proc, game, self.rng, self.random_act)
        self.result("concurrent", ok, f"says max_games {declared}; {detail}")
        if not peer.batch:
            self.result("batch", True, "one message at a time (its hello has no batch)")
        elif not ok:
            self.result("batch", None, "not judged: the games at once failed (see above)")
        elif together < 2:  # a slow bot answers each turn alone, and so gets each alone
            self.result("batch", True, "says batch: true; no two of its turns were sent together")
        else:
            self.result(
                "batch", True, f"says batch: true; answered batches of up to {together} turns"
            )

    # -- 5. bye -----------------------------------------------------------------------------

    def bye(self) -> None:
        proc = self.proc
        if proc.popen is None:
            self.result("bye", None, "a remote bot: its process is not the arena's")
            return
        if not proc.alive():
            self.result("bye", None, "its process had already stopped")
            return
        self.session.hub.send(proc.peer, messages.bye())
        deadline = time.monotonic() + BYE_S
        while proc.popen.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        code = proc.popen.poll()
        if code is not None:
            self.result("bye", True, "exited" + ("" if code == 0 else f" (with status {code})"))
        elif self.checks.get("deadline") and self.checks["deadline"].ok is False:
            self.result(
                "bye",
                None,
                f"not judged: still running {BYE_S:g} s after bye, busy with the turns it "
                "answered late (see the deadline check)",
            )
        else:
            self.result("bye", False, f"still running {BYE_S:g} s after bye")


def run_checks(
    spec: BotSpec,
    games: Sequence[str],
    *,
    per_game: int = 0,
    table_sizes: Sequence[int] | None = None,
    move_ms: int = 1000,
    startup_ms: int = 10_000,
    seed: int | None = None,
    limits: Limits | None = None,
    log_dir: Path | None = None,
    sandbox: Sandbox | None = None,
    stop: CheckStop | None = None,
) -> ComplianceReport:
    """Run every check on one process of ``spec`` for ``games``: every table size each game
    allows (or those of ``table_sizes`` it allows) in every seat, at least ``per_game`` games
    of each game. ``limits`` gives the process limits (its ``move_ms``, ``startup_ms`` and
    ``max_faults`` are replaced); ``stop`` may end the check early (then it fails: the
    report's ``stopped`` says why). Raises UnknownGame, UsageProblem when ``table_sizes``
    leaves a game nothing, and SandboxError when a required sandbox is missing; the bot's own
    failures are checks."""
    engines = [get_game(name) for name in games]
    for game in engines:
        seatings(game, table_sizes)  # a bad --table-sizes: one line before anything starts
    limits = replace(limits or Limits(), move_ms=move_ms, startup_ms=startup_ms, max_faults=3)
    run = _CheckRun(spec, limits, log_dir, sandbox, random_seed() if seed is None else seed)
    watching = stop.watch(run) if stop is not None else None
    try:
        if run.hello() and not run.stopped:
            run.play_all(engines, table_sizes, per_game)
            run.judge_games(engines, table_sizes)
            if run.proc.alive():
                run.interleave(engines[0])
            run.bye()
        log_path = (
            run.proc.log_path
            if run.proc is not None
            else log_file(run.session.pool.log_dir, spec.name, run.label)
        )
    finally:
        run.done.set()
        if stop is not None and watching is not None:
            stop.end()
            watching.join()
        run.close()
    checks = [
        run.checks.get(key)
        or Check(key=key, title=title, ok=None, detail="not run: an earlier check failed")
        for key, title in TITLES.items()
    ]
    report = ComplianceReport(
        bot=spec.name,
        games=tuple(games),
        checks=tuple(checks),
        coverage=tuple(run.covered(game, table_sizes) for game in engines) if run.played else (),
        latency_ms=percentiles(run.latencies),
        games_played=run.played,
        stopped=stop.why if stop is not None and run.stopped else None,
    )
    if not report.passed and log_path is not None:
        report = replace(report, output=tuple(output_tail(log_path, OUTPUT_LINES)))
        if run.probe_crash:
            report = seed_hint(report)
    return report


def seed_hint(report: ComplianceReport) -> ComplianceReport:
    """A bot that crashed before its first decision of the first game, whose last output
    speaks of decoding or of an integer, is told it may be its seed (a 63-bit integer); a
    crash for any other reason is left as it is."""
    if not any(INTEGER_TROUBLE.search(line) for line in report.output):
        return report
    hint = f"; was it the seed {PROBE_SEED}? Decode msgpack integers as 64-bit"
    checks = tuple(
        replace(check, detail=check.detail + hint) if check.key == "games" else check
        for check in report.checks
    )
    return replace(report, checks=checks)
