"""The referee: plays games over seats (``arena.referee.seats``) and returns their records.

A game (``GameSetup``: what to play and who plays it) is played by a ``GamePlay`` that advances
step by step; one driver (``arena.referee.driver.Driver``) keeps several games in flight on one
hub (``play_many``), and ``driver.play`` is that path with one game. Until a game is over it
asks every seat in ``to_act()`` at once (a simultaneous step reveals nothing of one seat's
choice to another), collects the answers until each deadline and applies the joint action; the
game's ``apply`` is the one check of legality. A timeout, an illegal action, a malformed
message, a wrong request or game id, or a crash is a **fault**: the seat's move is made by the
referee's default policy — the first action of the legal list, which is deterministic — and the
fault is recorded. After ``limits.max_faults`` faults (at once for a crash, or for a person
who leaves) the seat forfeits: it is placed last and the default policy makes its remaining
moves.

Everything that belongs to one game (fault counts, time banks, pending turns, the action and
fault logs) lives in that game's ``GamePlay``.
"""

from __future__ import annotations

import logging
import operator
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.errors import ArenaError, IllegalAction
from arena.games.base import Game, State
from arena.keys.seeds import random_seed
from arena.procs.limits import Limits
from arena.referee.record import (
    ActionRecord,
    Chooser,
    Fault,
    FaultKind,
    GameRecord,
    final_places,
)
from arena.referee.seats import ProcessSeat, Reply, Seat, Start, Turn

log = logging.getLogger(__name__)

#: The order of a record's actions: by step, then seat (a step's answers come in any order).
_STEP_SEAT = operator.attrgetter("step", "seat")


#: The faults after which a seat forfeits at once: its bot is gone or was never accepted, or
#: its person has left.
AT_ONCE = frozenset({FaultKind.CRASH, FaultKind.REFUSED, FaultKind.RESIGNED})


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
    by: Chooser = Chooser.BOT  # who the record says chose its answers (the seat's ``chooser``)


@dataclass(frozen=True)
class GameSetup:
    """One game to play: the game, its seats (``seats[i]`` plays seat i), the deal ``seed``,
    its options and id, the seats' ``start.seed`` (``bot_seeds``, keyed, see ``arena.keys.seeds``;
    None: a random seed each, never the deal's) and the names in the record (default: labels).
    """

    game: Game
    seats: Sequence[Seat]
    seed: int
    options: Mapping[str, Any] | None = None
    game_id: int = 1
    bot_seeds: Sequence[int] | None = None
    names: Sequence[str] | None = None


class GamePlay:
    """One game in progress, advanced step by step: its state, its players' standing, the
    seats it waits for and its logs. ``begin`` starts it; each step asks every acting seat
    at once, and the step is applied as soon as its last answer is in (``take``); ``record``
    is set when the game is over."""

    def __init__(self, limits: Limits, setup: GameSetup) -> None:
        self.limits = limits
        self.setup = setup
        self.game = setup.game
        self.seed = setup.seed
        self.game_id = setup.game_id
        self.state: State = setup.game.new(len(setup.seats), setup.seed, setup.options)
        self.players = [
            _Player(index, seat, float(limits.time_bank_ms), by=seat.chooser)
            for index, seat in enumerate(setup.seats)
        ]
        self.actions: list[ActionRecord] = []
        self.faults: list[Fault] = []
        self.step = 0
        self.playing: dict[bytes, tuple[int, ProcessSeat]] = {}  # process seats, by peer id
        self.joint: dict[int, tuple[str, int | None]] = {}  # this step's answers so far
        self.waiting: dict[int, ProcessSeat] = {}  # seats whose answer comes later
        self.asked: list[int] = []  # seats asked since the driver last routed (``Driver._track``)
        self.record: GameRecord | None = None
        self._started = time.perf_counter()

    def begin(self) -> None:
        """Tell every seat the game starts, then ask the first step."""
        self._started = time.perf_counter()
        bot_seeds = self.setup.bot_seeds
        for player in self.players:
            seed = bot_seeds[player.index] if bot_seeds else random_seed()  # never the deal's
            why = player.seat.start(
                Start(
                    self.game_id,
                    self.game.name,
                    player.index,
                    len(self.players),
                    self.state.options,
                    seed,
                )
            )
            if why is not None:
                self._fault(player, player.seat.start_fault, why)
            elif isinstance(player.seat, ProcessSeat):
                if player.seat.peer.peer_id in self.playing:
                    raise ArenaError(f"one connection would play two seats ({player.seat.label})")
                self.playing[player.seat.peer.peer_id] = (player.index, player.seat)
        self._advance()

    def take(self, index: int, reply: Reply) -> None:
        """A waited-for seat's reply (answer or fault); the step is applied, and the next one
        asked, once no seat is left to wait for."""
        if reply.fault is None:
            self.answer(index, reply.action, reply.elapsed_ms)
            return
        self._take(self.players[index], reply)
        if not self.waiting:
            self._apply()
            self.step += 1
            self._advance()

    def answer(self, index: int, action: str, elapsed_ms: float) -> None:
        """A waited-for seat's answer ``action``, given after ``elapsed_ms``: ``take`` of an
        answer without a fault, the common case (the driver calls it for each answer)."""
        player = self.players[index]
        if not player.forfeited:  # else the default policy has made its move
            self._answered(player, action, elapsed_ms)
        if not self.waiting:
            self._apply()
            self.step += 1
            self._advance()

    def _advance(self) -> None:
        """Ask steps until one waits for a process seat, or the game is over."""
        while not self.state.is_over():
            self._ask()
            if self.waiting:
                return
            self._apply()
            self.step += 1
        self.record = self._finish()

    def _finish(self) -> GameRecord:
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
            bots=tuple(self.setup.names or [p.seat.label for p in self.players]),
            actions=tuple(sorted(self.actions, key=_STEP_SEAT)),
            faults=tuple(self.faults),
            forfeits=forfeits,
            scores=tuple(outcome.scores),
            game_places=tuple(outcome.places),
            places=places,
            think_us=tuple(p.think_us for p in self.players),
            decisions=tuple(p.decisions for p in self.players),
            wall_ms=(time.perf_counter() - self._started) * 1000.0,
            events=tuple(state.events),
        )

    # -- one step -------------------------------------------------------------------------

    def _ask(self) -> None:
        """Ask every acting seat at once: answers available at once go into ``joint``, the
        others are ``waiting`` (a forfeited seat's move is the default policy's)."""
        state = self.state
        joint = self.joint = {}
        waiting = self.waiting = {}
        move_ms = self.limits.move_ms
        players = self.players
        for index in state.to_act():
            player = players[index]
            legal = state.legal(index)
            if player.forfeited:
                joint[index] = (default_action(legal), None)
                continue
            turn = Turn(self.game_id, state.view(index), legal, move_ms + player.bank_ms, self.step)
            replies = player.seat.ask(turn)
            if not replies:
                waiting[index] = player.seat
                self.asked.append(index)
            for reply in replies:
                self._take(player, reply)

    def _take(self, player: _Player, reply: Reply) -> None:
        """One reply of ``player``: its answer, or a fault (the default policy answers when
        the fault ends the turn, or when the seat forfeits)."""
        index = player.index
        if player.forfeited:
            return  # the default policy has made its move
        if reply.fault is None:
            self._answered(player, reply.action, reply.elapsed_ms)
            return
        if reply.fault is FaultKind.TIMEOUT:
            player.bank_ms = 0.0
        self._fault(player, reply.fault, reply.detail)
        if (reply.ends or player.forfeited) and index not in self.joint:
            self.waiting.pop(index, None)
            if index in self.state.to_act():
                self.joint[index] = (default_action(self.state.legal(index)), None)

    def _answered(self, player: _Player, action: str, elapsed_ms: float) -> None:
        """``player``'s answer is in: its think time beyond a move comes off its time bank."""
        index = player.index
        self.waiting.pop(index, None)
        move_ms = self.limits.move_ms
        if elapsed_ms > move_ms:
            player.bank_ms = max(0.0, player.bank_ms - (elapsed_ms - move_ms))
        self.joint[index] = (action, int(elapsed_ms * 1000))

    def _apply(self) -> None:
        """Apply the joint action; an illegal answer is its seat's fault and the default
        policy's move instead."""
        state = self.state
        joint = self.joint
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
                self.actions.append(ActionRecord(self.step, index, action, player.by, think))

    def _fault(self, player: _Player, kind: FaultKind, detail: str) -> None:
        player.faults += 1
        self.faults.append(Fault(seat=player.index, step=self.step, kind=kind, detail=detail))
        log.info("fault: seat %d %s at step %d: %s", player.index, kind.value, self.step, detail)
        if kind in AT_ONCE or player.faults >= self.limits.max_faults:
            self._forfeit(player)

    def _forfeit(self, player: _Player) -> None:
        if not player.forfeited:
            player.forfeited = True
            log.info("seat %d forfeits", player.index)
            if isinstance(player.seat, ProcessSeat) and player.seat.peer is not None:
                self.playing.pop(player.seat.peer.peer_id, None)
