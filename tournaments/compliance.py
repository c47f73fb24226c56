"""The compliance suite of ``arena bot check`` and ``arena bot add``: does a bot speak the
protocol?

It drives one process of the bot through the real hub over ZeroMQ, as fastchess's
``--compliance`` drives a chess engine, and reports a line per check in a bot author's words:

1. **hello**: it starts, connects and says hello with its token and protocol 1 (``BotPool``);
2. **ids**: in a first game, driven message by message on the hub (raw protocol), with a
   ``game_id`` and a 63-bit seed it cannot have guessed, it answers each turn with that
   turn's ``game_id`` and ``request``;
3. **legal**, **messages**, **deadline**, **games in a row**: it plays many games of each game
   it claims, at every table size up to five and every seat, against ``random`` bots, under
   the referee (``Referee.play``), in the same process, with only offered actions, well-formed
   maps and answers within the deadline (its latency percentiles are reported);
4. **several games at once**: a bot whose hello says ``max_games`` > 1 plays a few games at
   once in its process, on the raw protocol, their turns back to back (``tournaments.interleaved``);
5. **bye**: it exits when told ``bye``.

A check that cannot run because an earlier one failed is reported as skipped. Every wait is
bounded (start-up, each move's deadline, three faults per game, a few seconds after bye), so a
program that is no bot at all (``cat``, ``sleep 100``, ``yes``) fails in bounded time.
"""

from __future__ import annotations

import logging
import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from arena.errors import BotStartError
from arena.games import get_game
from arena.games.base import Game
from arena.keys.seeds import bot_seeds, new_key, random_seed
from arena.procs.botproc import BotProcess, BotSpec
from arena.procs.limits import Limits
from arena.procs.sandbox import Sandbox
from arena.referee.record import Chooser, FaultKind, GameRecord
from arena.referee.seats import ProcessSeat
from arena.referee.session import Session
from protocol import messages
from tournaments.catalogue import bundled_spec
from tournaments.interleaved import OPEN_AT_ONCE, InterleavedGames, end_message, start_message

log = logging.getLogger(__name__)

__all__ = ["Check", "ComplianceReport", "run_checks"]

#: Seconds a bot has to exit after ``bye``.
BYE_S = 3.0
#: The game id of the first (raw) game: no bot can have guessed it.
PROBE_GAME_ID = 7_340_033
#: The seed of that game: near 2**63, so a decoder without 64-bit integers shows it.
PROBE_SEED = (1 << 63) - 12_345
#: Table sizes tried go up to this many players (within the game's range).
MAX_TABLE = 5


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
class ComplianceReport:
    """Every check of one bot, its latency percentiles (ms) and where its output went."""

    bot: str
    games: tuple[str, ...]
    checks: tuple[Check, ...]
    latency_ms: dict[str, float] = field(default_factory=dict)
    games_played: int = 0
    log_path: str | None = None

    @property
    def passed(self) -> bool:
        return all(check.ok for check in self.checks)

    def failures(self) -> list[Check]:
        return [check for check in self.checks if check.ok is False]

    def lines(self) -> list[str]:
        out = [f"checking {self.bot} ({', '.join(self.games)})"]
        out += [check.line() for check in self.checks]
        if self.log_path:
            out.append(f"its output: {self.log_path}")
        out.append(
            "all checks passed" if self.passed else f"{len(self.failures())} check(s) failed"
        )
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "bot": self.bot,
            "games": list(self.games),
            "passed": self.passed,
            "games_played": self.games_played,
            "latency_ms": dict(self.latency_ms),
            "checks": [check.to_dict() for check in self.checks],
            "log": self.log_path,
        }


TITLES = {
    "hello": "starts and says hello (token, protocol 1)",
    "ids": "answers each turn with its game_id and request",
    "legal": "plays only the actions it is offered",
    "messages": "sends well-formed messages",
    "deadline": "answers within the deadline",
    "games": "plays game after game in one process",
    "concurrent": "serves the games it says it serves at once (max_games)",
    "bye": "exits on bye",
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


class _CheckRun:
    """One check run: a game session whose processes are the bot under test and ``random``
    opponents; the first game talks to the bot on the raw protocol, over the session's hub."""

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
        self.hub = self.session.hub
        self.pool = self.session.pool
        self.label = f"check:{spec.name}"
        self.rng = random.Random(seed)
        self.key = new_key()
        self.checks: dict[str, Check] = {}
        self.latencies: list[float] = []
        self.played = 0
        self.proc: BotProcess | None = None
        self._last_action = ""  # the bot's answer to the last raw turn

    def result(self, key: str, ok: bool | None, detail: str) -> None:
        self.checks[key] = Check(key=key, title=TITLES[key], ok=ok, detail=detail)

    def close(self) -> None:
        self.session.close()

    # -- 1. hello ---------------------------------------------------------------------------

    def hello(self) -> bool:
        try:
            self.proc = self.pool.get([(self.label, self.spec)])[0]
        except BotStartError as exc:
            self.result("hello", False, str(exc))
            return False
        self.result("hello", True, f"welcomed as {self.proc.peer.name!r}")
        return True

    # -- 2. ids, on the raw protocol --------------------------------------------------------

    def probe(self, game: Game) -> None:
        """One game driven turn by turn: the bot at seat 0, the other seats random here."""
        state = game.new(game.min_players, self.rng.getrandbits(62))
        peer = self.proc.peer
        self.hub.send(peer, start_message(game, state, PROBE_GAME_ID, PROBE_SEED))
        turns = 0
        while not state.is_over():
            joint = {seat: self.rng.choice(state.legal(seat)) for seat in state.to_act()}
            if 0 in joint:
                turns += 1
                problem = self._probe_turn(peer, state, turns)
                if problem is not None:
                    self.result("ids", False, f"{game.name}, turn {turns}: {problem}")
                    return
                joint[0] = self._last_action
            state.apply(joint)
        self.hub.send(peer, end_message(state, PROBE_GAME_ID))
        self.result(
            "ids",
            True,
            f"{turns} turns of a {game.name} game with game_id "
            f"{PROBE_GAME_ID} and seed {PROBE_SEED} (a 63-bit integer)",
        )

    def _probe_turn(self, peer: Any, state: Any, turn: int) -> str | None:
        """Send one turn and check the answer; the problem in words, or None."""
        legal = state.legal(0)
        peer.last_request += 1
        request = peer.last_request
        self.hub.send(
            peer,
            messages.turn(
                game_id=PROBE_GAME_ID,
                request=request,
                view=state.view(0),
                legal=legal,
                deadline_ms=self.limits.move_ms,
            ),
        )
        deadline = time.monotonic() + self.limits.move_ms / 1000.0
        while True:
            left_ms = (deadline - time.monotonic()) * 1000.0
            if left_ms <= 0:
                return f"no answer within {self.limits.move_ms} ms"
            incoming = self.hub.receive(min(left_ms, 100.0), [peer])
            if incoming is None:
                if not self.proc.alive():
                    why = f"its process stopped ({self.proc.exit_summary()})"
                    self.result("games", False, f"in the first game: {why}")
                    if turn == 1:
                        why += f"; was it the seed {PROBE_SEED}? Decode msgpack integers as 64-bit"
                    return why
                continue
            if incoming.problem is not None:
                return f"a malformed answer: {incoming.problem}"
            message = incoming.message
            if message["game_id"] != PROBE_GAME_ID:
                return f"answered with game_id {message['game_id']}, not the turn's {PROBE_GAME_ID}"
            if message["request"] != request:
                return f"answered with request {message['request']}, not the turn's {request}"
            if message["action"] not in legal:
                return f"answered {message['action'][:60]!r}, which was not offered"
            self._last_action = message["action"]
            return None

    # -- 3. games under the referee ---------------------------------------------------------

    def play(self, games: Sequence[Game], per_game: int) -> None:
        faults: dict[FaultKind, str] = {}
        decisions = 0
        game_id = 100
        for game in games:
            top = min(game.max_players, max(MAX_TABLE, game.min_players))
            sizes = list(range(game.min_players, top + 1))
            for index in range(per_game):
                players = sizes[index % len(sizes)]
                seat = index % players
                record = self._one_game(game, players, seat, game_id)
                game_id += 1
                if record is None:
                    break
                self.played += 1
                mine = [a for a in record.actions if a.seat == seat and a.by is Chooser.BOT]
                decisions += len(mine)
                self.latencies += [a.think_us / 1000.0 for a in mine]
                for fault in record.faults:
                    if fault.seat == seat and fault.kind not in faults:
                        faults[fault.kind] = (
                            f"{game.name} with {players} players, seat "
                            f"{seat}, step {fault.step}: {fault.kind.value}: "
                            f"{fault.detail}"
                        )
                if any(f.seat == seat for f in record.faults) or not self.proc.alive():
                    break
            if faults or not self.proc.alive():
                break
        self._judge(faults, decisions)

    def _one_game(self, game: Game, players: int, seat: int, game_id: int) -> GameRecord | None:
        others = [(f"check:random{i}", bundled_spec("random")) for i in range(players - 1)]
        entries = others[:seat] + [(self.label, self.spec)] + others[seat:]
        try:
            procs = self.pool.get(entries)
        except BotStartError as exc:
            if exc.label == self.label or not self.proc.alive():
                return None
            raise
        if procs[seat] is not self.proc:  # the pool replaced a process that died
            return None
        deal = self.rng.getrandbits(62)
        seats = [ProcessSeat(self.hub, proc) for proc in procs]
        return self.session.play(
            game,
            seats,
            seed=deal,
            game_id=game_id,
            bot_seeds=bot_seeds(self.key, deal, players),
            names=[label for label, _ in entries],
        )

    def _judge(self, faults: dict[FaultKind, str], decisions: int) -> None:
        alive = self.proc.alive()
        played = f"{self.played} games, {decisions} decisions"
        kinds = {
            "legal": [FaultKind.ILLEGAL],
            "messages": [FaultKind.MALFORMED, FaultKind.PROTOCOL],
            "deadline": [FaultKind.TIMEOUT],
        }
        for key, found in kinds.items():
            bad = [faults[kind] for kind in found if kind in faults]
            self.result(key, not bad, bad[0] if bad else played)
        if FaultKind.WRONG_ID in faults and self.checks["ids"].ok:
            self.result("ids", False, faults[FaultKind.WRONG_ID])
        stats = percentiles(self.latencies)
        if self.checks["deadline"].ok and stats:
            self.result(
                "deadline",
                True,
                f"{played}; latency p50 {stats['p50']} ms, p90 "
                f"{stats['p90']} ms, p99 {stats['p99']} ms, max "
                f"{stats['max']} ms (deadline "
                f"{self.limits.move_ms} ms)",
            )
        if FaultKind.CRASH in faults or not alive:
            why = faults.get(FaultKind.CRASH) or f"its process {self.proc.exit_summary()}"
            self.result("games", False, f"after {self.played} game(s): {why}")
        else:
            self.result("games", True, f"{played} in one process")

    # -- 4. several games at once, on the raw protocol ------------------------------------

    def interleave(self, game: Game) -> None:
        declared = self.proc.peer.max_games
        if declared < 2:
            self.result("concurrent", True, "one game at a time (its hello has no max_games > 1)")
            return
        run = InterleavedGames(self.hub, self.proc, game, self.rng, self.limits.move_ms)
        ok, detail = run.run(min(declared, OPEN_AT_ONCE))
        self.result("concurrent", ok, f"says max_games {declared}; {detail}")

    # -- 5. bye -----------------------------------------------------------------------------

    def bye(self) -> None:
        proc = self.proc
        if proc.popen is None:
            self.result("bye", None, "a remote bot: its process is not the arena's")
            return
        if not proc.alive():
            self.result("bye", None, "its process had already stopped")
            return
        self.hub.send(proc.peer, messages.bye())
        deadline = time.monotonic() + BYE_S
        while proc.popen.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        code = proc.popen.poll()
        if code is None:
            self.result("bye", False, f"still running {BYE_S:g} s after bye")
        else:
            self.result("bye", True, "exited" + ("" if code == 0 else f" (with status {code})"))


def run_checks(
    spec: BotSpec,
    games: Sequence[str],
    *,
    per_game: int = 4,
    move_ms: int = 1000,
    startup_ms: int = 10_000,
    seed: int | None = None,
    limits: Limits | None = None,
    log_dir: Path | None = None,
    sandbox: Sandbox | None = None,
) -> ComplianceReport:
    """Run every check on one process of ``spec`` for ``games`` (``per_game`` games of each
    under the referee, after the raw first game). ``limits`` gives the process limits (its
    ``move_ms``, ``startup_ms`` and ``max_faults`` are replaced). Raises UnknownGame, and
    SandboxError when a required sandbox is missing; the bot's own failures are checks."""
    engines = [get_game(name) for name in games]
    limits = replace(limits or Limits(), move_ms=move_ms, startup_ms=startup_ms, max_faults=3)
    session = _CheckRun(spec, limits, log_dir, sandbox, random_seed() if seed is None else seed)
    try:
        if session.hello():
            session.probe(engines[0])
            if session.proc.alive():
                session.play(engines, per_game)
            if session.proc.alive():
                session.interleave(engines[0])
            session.bye()
        log_path = session.proc.log_path if session.proc is not None else None
    finally:
        session.close()
    checks = [
        session.checks.get(key)
        or Check(key=key, title=title, ok=None, detail="not run: an earlier check failed")
        for key, title in TITLES.items()
    ]
    return ComplianceReport(
        bot=spec.name,
        games=tuple(games),
        checks=tuple(checks),
        latency_ms=percentiles(session.latencies),
        games_played=session.played,
        log_path=str(log_path) if log_path else None,
    )
