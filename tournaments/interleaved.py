"""The compliance suite's check of a bot that serves several games at once (``max_games`` > 1).

A few games of one game are opened together on the bot's one process and driven on the raw
protocol over the hub, as the suite's first game is: the bot holds seat 0, the other seats play
at random here. Each game's next turn is sent as soon as its previous one is answered, so turns
of different games wait at the same time and reach the bot back to back; a game that ends is
followed by a new one, so ``start`` and ``end`` messages arrive between other games' turns.
Every answer must carry its own turn's ``request`` and ``game_id`` and one of that turn's
actions, within that turn's deadline; answers may come in any order.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Any

from arena.games.base import Game, State
from arena.procs.botproc import BotProcess
from arena.procs.hub import Hub
from protocol import messages

#: Games open at once, at most (fewer if the bot declares fewer).
OPEN_AT_ONCE = 4
#: Games played in all: more than are open at once, so games start while others are under way.
GAMES_IN_ALL = 6


def start_message(game: Game, state: State, game_id: int, seed: int) -> dict[str, Any]:
    """The ``start`` of a raw game in which the bot holds seat 0."""
    return messages.start(
        game_id=game_id,
        game=game.name,
        seat=0,
        players=state.players,
        options=state.options,
        seed=seed,
    )


def end_message(state: State, game_id: int) -> dict[str, Any]:
    """The ``end`` of a finished raw game, seen from seat 0."""
    outcome = state.outcome()
    return messages.end(
        game_id=game_id,
        result={"places": list(outcome.places), "scores": list(outcome.scores), "forfeits": []},
        view=state.view(0),
    )


@dataclass
class _Open:
    """One game in flight (mutable: its state advances)."""

    game_id: int
    state: State


@dataclass
class _Pending:
    """A turn waiting for the bot's answer."""

    game: _Open
    legal: list[str]
    deadline: float


class InterleavedGames:
    """One run of the check on one bot process; ``run`` returns (passed, detail)."""

    def __init__(
        self, hub: Hub, proc: BotProcess, game: Game, rng: random.Random, move_ms: int
    ) -> None:
        assert proc.peer is not None
        self.hub, self.proc, self.peer, self.game, self.rng = hub, proc, proc.peer, game, rng
        self.move_ms = move_ms
        self.pending: dict[int, _Pending] = {}  # request -> its turn
        self.started = 0
        self.turns = 0
        self.out_of_order = 0
        self.most_waiting = 0

    def run(self, at_once: int) -> tuple[bool, str]:
        """Play ``GAMES_IN_ALL`` games, ``at_once`` of them (at most) open at a time."""
        games = [self._start() for _ in range(at_once)]
        while games or self.pending:
            for game in [g for g in games if g not in self._waiting()]:
                if not self._ask(game):
                    games.remove(game)
                    self.hub.send(self.peer, end_message(game.state, game.game_id))
                    if self.started < GAMES_IN_ALL:
                        games.append(self._start())
            if not self.pending:
                continue
            self.most_waiting = max(self.most_waiting, len(self.pending))
            problem = self._answer()
            if problem is not None:
                return False, problem
        return True, (
            f"{self.started} {self.game.name} games, {at_once} at a time in one process: "
            f"{self.turns} turns, up to {self.most_waiting} waiting at once, "
            f"{self.out_of_order} answered out of order"
        )

    def _waiting(self) -> list[_Open]:
        return [turn.game for turn in self.pending.values()]

    def _start(self) -> _Open:
        self.started += 1
        game_id = self.rng.getrandbits(40)
        state = self.game.new(self.game.min_players, self.rng.getrandbits(62))
        self.hub.send(self.peer, start_message(self.game, state, game_id, self.rng.getrandbits(63)))
        return _Open(game_id, state)

    def _ask(self, game: _Open) -> bool:
        """Play the other seats until seat 0 acts, then send its turn; False once over."""
        state = game.state
        while not state.is_over() and 0 not in state.to_act():
            state.apply({seat: self.rng.choice(state.legal(seat)) for seat in state.to_act()})
        if state.is_over():
            return False
        self.peer.last_request += 1
        request = self.peer.last_request
        legal = state.legal(0)
        self.pending[request] = _Pending(game, legal, time.monotonic() + self.move_ms / 1000.0)
        self.hub.send(
            self.peer,
            messages.turn(
                game_id=game.game_id,
                request=request,
                view=state.view(0),
                legal=legal,
                deadline_ms=self.move_ms,
            ),
        )
        self.turns += 1
        return True

    def _answer(self) -> str | None:
        """Wait for one answer and apply it; the problem in words, or None."""
        first = min(self.pending)
        left_ms = (self.pending[first].deadline - time.monotonic()) * 1000.0
        incoming = self.hub.receive(min(max(0.0, left_ms), 100.0), [self.peer])
        if incoming is None:
            if not self.proc.alive():
                why = self.proc.exit_summary()
                return f"its process stopped ({why}) with {len(self.pending)} turn(s) waiting"
            if time.monotonic() >= self.pending[first].deadline:
                game = self.pending[first].game.game_id
                return (
                    f"no answer within {self.move_ms} ms to request {first} (game {game}), "
                    f"{len(self.pending)} turn(s) of different games waiting"
                )
            return None
        if incoming.problem is not None:
            return f"a malformed answer: {incoming.problem}"
        message = incoming.message
        request, game_id = message["request"], message["game_id"]
        turn = self.pending.pop(request, None)
        if turn is None:
            return f"answered request {request}, which is not a turn waiting for it"
        if game_id != turn.game.game_id:
            return (
                f"answered request {request} with game_id {game_id}, not that turn's "
                f"{turn.game.game_id} ({len(self.pending) + 1} games waiting)"
            )
        if message["action"] not in turn.legal:
            return f"answered {message['action'][:60]!r}, which was not offered"
        if request != first:
            self.out_of_order += 1
        state = turn.game.state
        joint = {seat: self.rng.choice(state.legal(seat)) for seat in state.to_act()}
        joint[0] = message["action"]
        state.apply(joint)
        return None
