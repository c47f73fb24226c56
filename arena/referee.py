"""The referee: plays one game between connected bot processes and returns its record.

Until the game is over it sends ``turn`` to every seat in ``to_act()`` at once (a simultaneous
step reveals nothing of one seat's choice to another), collects answers until each deadline,
checks them and applies the joint action. A timeout, an illegal action, a malformed message, a
wrong request or game id, or a crash is a **fault**: the seat's move is made by the referee's
default policy — the first action of the legal list, which is deterministic — and the fault is
recorded. After ``limits.max_faults`` faults (at once for a crash) the seat forfeits: it is
placed last and the default policy makes its remaining moves. Replies to earlier requests are
dropped: a late answer never becomes the next answer.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.botproc import BotProcess
from arena.games.base import Game
from arena.hub import Hub, Peer
from arena.record import ActionRecord, Chooser, Fault, FaultKind, GameRecord, Limits, final_places
from arena.seeds import random_seed

log = logging.getLogger(__name__)

#: How often (ms) the referee checks that waiting bot processes are still alive.
LIVENESS_MS = 100


def default_action(legal: Sequence[str]) -> str:
    """The referee's default policy: the first legal action (legal lists are ordered)."""
    return legal[0]


@dataclass
class _Seat:
    seat: int
    proc: BotProcess | None
    faults: int = 0
    forfeited: bool = False
    bank_ms: float = 0.0
    think_us: int = 0
    decisions: int = 0


@dataclass
class _Pending:
    request: int
    sent: float
    deadline: float
    legal: list[str]
    peer: Peer


def _cut(proc: BotProcess | None) -> str | None:
    """Why the arena closed this process's connection, if it did."""
    peer = proc.peer if proc is not None else None
    if peer is not None and peer.cut and proc.running():
        return f"connection closed by the arena: {peer.cut}"
    return None


class Referee:
    """Plays games on one hub. Holds the fault and action logs of the game in progress."""

    def __init__(self, hub: Hub, limits: Limits) -> None:
        self.hub = hub
        self.limits = limits

    def play(self, game: Game, procs: Sequence[BotProcess | None], *, seed: int,
             options: Mapping[str, Any] | None = None, game_id: int = 1,
             bot_seeds: Sequence[int] | None = None,
             names: Sequence[str] | None = None,
             absent: Mapping[int, str] | None = None) -> GameRecord:
        """Play one game; ``procs[seat]`` is the process at each seat (None = absent, and
        ``absent[seat]`` may say why: it is the detail of that seat's crash fault).

        ``bot_seeds[seat]`` is the ``start.seed`` of each seat (keyed, see ``arena.seeds``);
        without them each bot gets a random seed, never the deal ``seed``."""
        started = time.perf_counter()
        players = len(procs)
        state = game.new(players, seed, options)
        seats = [_Seat(seat, proc, bank_ms=float(self.limits.time_bank_ms))
                 for seat, proc in enumerate(procs)]
        self._actions: list[ActionRecord] = []
        self._faults: list[Fault] = []
        self._game_id = game_id
        by_peer = {}
        for seat in seats:
            proc = seat.proc
            if proc is None or proc.peer is None or not proc.alive():
                why = (absent or {}).get(seat.seat) or _cut(proc)
                self._fault(seat, 0, FaultKind.CRASH, "no running bot process at the start"
                            + (f": {why[:300]}" if why else ""))
                self._forfeit(seat)
                continue
            by_peer[proc.peer.peer_id] = seat
            self.hub.send(proc.peer, {
                "type": "start", "game_id": game_id, "game": game.name, "seat": seat.seat,
                "players": players, "options": state.options,
                # never the deal seed: it would reveal every hand
                "seed": bot_seeds[seat.seat] if bot_seeds else random_seed(),
            })
        self._by_peer = by_peer
        step = 0
        while not state.is_over():
            legal = {index: state.legal(index) for index in state.to_act()}
            joint = self._collect(state, seats, step, legal)
            state.apply(joint, legal)
            step += 1
        outcome = state.outcome()
        forfeits = tuple(seat.seat for seat in seats if seat.forfeited)
        places = final_places(outcome.places, forfeits)
        result_base = {"scores": list(outcome.scores), "places": list(places),
                       "forfeits": list(forfeits)}
        for seat in seats:
            if seat.proc is not None and seat.proc.peer is not None and seat.proc.alive():
                self.hub.send(seat.proc.peer, {"type": "end", "game_id": game_id,
                                               "result": result_base,
                                               "view": state.view(seat.seat)})
        return GameRecord(
            game=game.name, options=dict(state.options), seed=seed,
            bots=tuple(names or [s.proc.label if s.proc else "?" for s in seats]),
            actions=tuple(sorted(self._actions, key=lambda a: (a.step, a.seat))),
            faults=tuple(self._faults), forfeits=forfeits,
            scores=tuple(outcome.scores), game_places=tuple(outcome.places), places=places,
            think_us=tuple(s.think_us for s in seats),
            decisions=tuple(s.decisions for s in seats),
            wall_ms=(time.perf_counter() - started) * 1000.0,
            events=tuple(state.events),
        )

    # -- one step -------------------------------------------------------------------------

    def _collect(self, state: Any, seats: list[_Seat], step: int,
                 legal_lists: dict[int, list[str]]) -> dict[int, str]:
        joint: dict[int, str] = {}
        pending: dict[int, _Pending] = {}
        move_ms = self.limits.move_ms
        for index, legal in legal_lists.items():
            seat = seats[index]
            if seat.forfeited:
                self._choose(joint, seat, step, default_action(legal), Chooser.REFEREE, 0)
                continue
            peer = seat.proc.peer
            peer.last_request += 1
            allowed = move_ms + seat.bank_ms
            self.hub.send(peer, {"type": "turn", "game_id": self._game_id,
                                 "request": peer.last_request, "view": state.view(index),
                                 "legal": legal, "deadline_ms": int(allowed)})
            now = time.monotonic()
            pending[index] = _Pending(peer.last_request, now, now + allowed / 1000.0, legal,
                                      peer)
        while pending:
            self._wait(pending, seats, joint, step)
        return joint

    def _wait(self, pending: dict[int, _Pending], seats: list[_Seat], joint: dict[int, str],
              step: int) -> None:
        now = time.monotonic()
        if len(pending) == 1:
            first = next(iter(pending.values()))
            awaited: tuple[Peer, ...] | list[Peer] = (first.peer,)
        else:
            first = min(pending.values(), key=lambda p: p.deadline)
            awaited = [item.peer for item in pending.values()]
        if now >= first.deadline:
            for index, item in list(pending.items()):
                if now >= item.deadline:
                    seat = seats[index]
                    seat.bank_ms = 0.0
                    self._fault(seat, step, FaultKind.TIMEOUT,
                                f"no answer within {round((item.deadline - item.sent) * 1000)} ms")
                    del pending[index]
                    self._choose(joint, seat, step, default_action(item.legal),
                                 Chooser.REFEREE, 0)
            return
        wait_ms = min((first.deadline - now) * 1000.0, LIVENESS_MS)
        incoming = self.hub.receive(wait_ms, awaited)
        if incoming is None:
            for index in list(pending):
                seat = seats[index]
                if not seat.proc.alive():
                    item = pending.pop(index)
                    why = _cut(seat.proc) or f"bot process {seat.proc.exit_summary()}"
                    self._fault(seat, step, FaultKind.CRASH, why)
                    self._forfeit(seat)
                    self._choose(joint, seat, step, default_action(item.legal),
                                 Chooser.REFEREE, 0)
            return
        seat = self._by_peer.get(incoming.peer.peer_id)
        if seat is None or seat.forfeited:
            log.debug("dropped a message from %s, not playing here", incoming.peer.label)
            return
        if incoming.problem is not None:
            # a malformed message from a seat we are waiting for is its (bad) answer
            self._fault(seat, step, FaultKind.MALFORMED, str(incoming.problem)[:200])
            item = pending.pop(seat.seat, None)
            if item is not None:
                self._choose(joint, seat, step, default_action(item.legal), Chooser.REFEREE, 0)
            return
        message = incoming.message
        request = message["request"]
        item = pending.get(seat.seat)
        if item is None or request != item.request:
            if 1 <= request <= incoming.peer.last_request:
                log.debug("dropped a stale reply from seat %d (request %d)", seat.seat, request)
                return
            self._fault(seat, step, FaultKind.WRONG_ID, f"request id {request} was never sent")
            self._after_fault(seat, pending, joint, step)
            return
        if message["game_id"] != self._game_id:
            self._fault(seat, step, FaultKind.WRONG_ID,
                        f"game id {message['game_id']} is not this game ({self._game_id})")
            self._after_fault(seat, pending, joint, step)
            return
        del pending[seat.seat]
        elapsed_ms = (incoming.at - item.sent) * 1000.0
        if elapsed_ms > self.limits.move_ms:
            seat.bank_ms = max(0.0, seat.bank_ms - (elapsed_ms - self.limits.move_ms))
        action = message["action"]
        if action not in item.legal:
            self._fault(seat, step, FaultKind.ILLEGAL, f"{action[:60]!r} was not offered")
            self._choose(joint, seat, step, default_action(item.legal), Chooser.REFEREE, 0)
            return
        think = int(elapsed_ms * 1000)
        seat.think_us += think
        seat.decisions += 1
        self._choose(joint, seat, step, action, Chooser.BOT, think)

    def _after_fault(self, seat: _Seat, pending: dict[int, _Pending], joint: dict[int, str],
                     step: int) -> None:
        """A fault outside an answer: forfeit (and default the pending move) at the bound."""
        if seat.forfeited:
            item = pending.pop(seat.seat, None)
            if item is not None:
                self._choose(joint, seat, step, default_action(item.legal), Chooser.REFEREE, 0)

    def _choose(self, joint: dict[int, str], seat: _Seat, step: int, action: str, by: Chooser,
                think_us: int) -> None:
        joint[seat.seat] = action
        self._actions.append(ActionRecord(step=step, seat=seat.seat, action=action, by=by,
                                          think_us=think_us))

    def _fault(self, seat: _Seat, step: int, kind: FaultKind, detail: str) -> None:
        seat.faults += 1
        self._faults.append(Fault(seat=seat.seat, step=step, kind=kind, detail=detail))
        log.info("fault: seat %d %s at step %d: %s", seat.seat, kind.value, step, detail)
        if seat.faults >= self.limits.max_faults:
            self._forfeit(seat)

    def _forfeit(self, seat: _Seat) -> None:
        if not seat.forfeited:
            seat.forfeited = True
            log.info("seat %d forfeits", seat.seat)
