"""The referee: plays one game over seats (``arena.seats``) and returns its record.

Until the game is over it asks every seat in ``to_act()`` at once (a simultaneous step reveals
nothing of one seat's choice to another), collects the answers until each deadline and applies
the joint action; the game's ``apply`` is the one check of legality. A timeout, an illegal
action, a malformed message, a wrong request or game id, or a crash is a **fault**: the seat's
move is made by the referee's default policy — the first action of the legal list, which is
deterministic — and the fault is recorded. After ``limits.max_faults`` faults (at once for a
crash) the seat forfeits: it is placed last and the default policy makes its remaining moves.

Everything that belongs to one game (fault counts, time banks, pending turns, the action and
fault logs) lives in that game's ``GamePlay``; the ``Referee`` holds only the limits.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.errors import ArenaError, IllegalAction
from arena.games.base import Game, State
from arena.record import (
    ActionRecord,
    Chooser,
    Fault,
    FaultKind,
    GameRecord,
    Limits,
    final_places,
)
from arena.seats import ProcessSeat, Reply, Seat, Start, Turn, wait
from arena.seeds import random_seed

log = logging.getLogger(__name__)


def default_action(legal: Sequence[str]) -> str:
    """The referee's default policy: the first legal action (legal lists are ordered)."""
    return legal[0]


@dataclass
class _Player:
    """One seat's standing in the game in progress."""

    index: int
    seat: Seat
    bank_ms: float
    faults: int = 0
    forfeited: bool = False
    think_us: int = 0
    decisions: int = 0


class Referee:
    """Plays games under ``limits``, one ``GamePlay`` per game."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits

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
        """Play one game; ``seats[i]`` plays seat i. ``bot_seeds[seat]`` is the ``start.seed``
        of each seat (keyed, see ``arena.seeds``); without them each seat gets a random seed,
        never the deal ``seed``. ``names`` name the seats in the record (default: labels)."""
        return GamePlay(self.limits, game, seats, seed=seed, options=options, game_id=game_id).run(
            bot_seeds, names
        )


class GamePlay:
    """One game in progress: its state, its players' standing and its logs."""

    def __init__(
        self,
        limits: Limits,
        game: Game,
        seats: Sequence[Seat],
        *,
        seed: int,
        options: Mapping[str, Any] | None,
        game_id: int,
    ) -> None:
        self.limits = limits
        self.game = game
        self.seed = seed
        self.game_id = game_id
        self.state: State = game.new(len(seats), seed, options)
        self.players = [
            _Player(index, seat, float(limits.time_bank_ms)) for index, seat in enumerate(seats)
        ]
        self.actions: list[ActionRecord] = []
        self.faults: list[Fault] = []
        self.step = 0
        self.playing: dict[bytes, tuple[int, ProcessSeat]] = {}  # process seats, by peer id

    def run(self, bot_seeds: Sequence[int] | None, names: Sequence[str] | None) -> GameRecord:
        started = time.perf_counter()
        state = self.state
        for player in self.players:
            seed = bot_seeds[player.index] if bot_seeds else random_seed()  # never the deal's
            why = player.seat.start(
                Start(
                    self.game_id,
                    self.game.name,
                    player.index,
                    len(self.players),
                    state.options,
                    seed,
                )
            )
            if why is not None:
                self._fault(player, FaultKind.CRASH, why)
            elif isinstance(player.seat, ProcessSeat):
                if player.seat.peer.peer_id in self.playing:
                    raise ArenaError(f"one connection would play two seats ({player.seat.label})")
                self.playing[player.seat.peer.peer_id] = (player.index, player.seat)
        while not state.is_over():
            self._apply(self._collect())
            self.step += 1
        return self._finish(started, names)

    def _finish(self, started: float, names: Sequence[str] | None) -> GameRecord:
        state = self.state
        outcome = state.outcome()
        forfeits = tuple(p.index for p in self.players if p.forfeited)
        places = final_places(outcome.places, forfeits)
        result = {
            "scores": list(outcome.scores),
            "places": list(places),
            "forfeits": list(forfeits),
        }
        for player in self.players:
            player.seat.end(self.game_id, result, state.view(player.index))
        return GameRecord(
            game=self.game.name,
            options=dict(state.options),
            seed=self.seed,
            bots=tuple(names or [p.seat.label for p in self.players]),
            actions=tuple(sorted(self.actions, key=lambda a: (a.step, a.seat))),
            faults=tuple(self.faults),
            forfeits=forfeits,
            scores=tuple(outcome.scores),
            game_places=tuple(outcome.places),
            places=places,
            think_us=tuple(p.think_us for p in self.players),
            decisions=tuple(p.decisions for p in self.players),
            wall_ms=(time.perf_counter() - started) * 1000.0,
            events=tuple(state.events),
        )

    # -- one step -------------------------------------------------------------------------

    def _collect(self) -> dict[int, tuple[str, int | None]]:
        """Ask every acting seat at once; each seat's action and think time (None: the
        referee chose)."""
        state = self.state
        joint: dict[int, tuple[str, int | None]] = {}
        waiting: dict[int, ProcessSeat] = {}
        move_ms = self.limits.move_ms
        for index in state.to_act():
            player = self.players[index]
            legal = state.legal(index)
            if player.forfeited:
                joint[index] = (default_action(legal), None)
                continue
            turn = Turn(self.game_id, state.view(index), legal, move_ms + player.bank_ms)
            replies = player.seat.ask(turn)
            if not replies:
                waiting[index] = player.seat
            for reply in replies:
                self._take(player, reply, joint, waiting)
        while waiting:
            for index, reply in wait(waiting, self.playing):
                self._take(self.players[index], reply, joint, waiting)
        return joint

    def _take(
        self,
        player: _Player,
        reply: Reply,
        joint: dict[int, tuple[str, int | None]],
        waiting: dict[int, ProcessSeat],
    ) -> None:
        """One reply of ``player``: its answer, or a fault (the default policy answers when
        the fault ends the turn, or when the seat forfeits)."""
        index = player.index
        if player.forfeited:
            return  # the default policy has made its move
        if reply.fault is None:
            waiting.pop(index, None)
            move_ms = self.limits.move_ms
            if reply.elapsed_ms > move_ms:
                player.bank_ms = max(0.0, player.bank_ms - (reply.elapsed_ms - move_ms))
            joint[index] = (reply.action, int(reply.elapsed_ms * 1000))
            return
        if reply.fault is FaultKind.TIMEOUT:
            player.bank_ms = 0.0
        self._fault(player, reply.fault, reply.detail)
        if (reply.ends or player.forfeited) and index not in joint:
            waiting.pop(index, None)
            if index in self.state.to_act():
                joint[index] = (default_action(self.state.legal(index)), None)

    def _apply(self, joint: dict[int, tuple[str, int | None]]) -> None:
        """Apply the joint action; an illegal answer is its seat's fault and the default
        policy's move instead."""
        state = self.state
        actions = {index: action for index, (action, _) in joint.items()}
        while True:
            try:
                state.apply(actions)
                break
            except IllegalAction as exc:
                if exc.seat is None or joint[exc.seat][1] is None:
                    raise  # the referee's own mistake, not a seat's
                index = exc.seat
                self._fault(
                    self.players[index],
                    FaultKind.ILLEGAL,
                    f"{actions[index][:60]!r} was not offered",
                )
                joint[index] = (default_action(state.legal(index)), None)
                actions[index] = joint[index][0]
        for index, (action, think) in joint.items():
            if think is None:
                self.actions.append(ActionRecord(self.step, index, action, Chooser.REFEREE, 0))
            else:
                player = self.players[index]
                player.think_us += think
                player.decisions += 1
                self.actions.append(ActionRecord(self.step, index, action, Chooser.BOT, think))

    def _fault(self, player: _Player, kind: FaultKind, detail: str) -> None:
        player.faults += 1
        self.faults.append(Fault(seat=player.index, step=self.step, kind=kind, detail=detail))
        log.info("fault: seat %d %s at step %d: %s", player.index, kind.value, self.step, detail)
        if kind is FaultKind.CRASH or player.faults >= self.limits.max_faults:
            self._forfeit(player)

    def _forfeit(self, player: _Player) -> None:
        if not player.forfeited:
            player.forfeited = True
            log.info("seat %d forfeits", player.index)
            if isinstance(player.seat, ProcessSeat) and player.seat.peer is not None:
                self.playing.pop(player.seat.peer.peer_id, None)
