"""The compliance suite's check of a bot that serves several games at once (``max_games`` > 1).

A few games of one game are played at once on the bot's one process through the referee's
driver (``arena.referee.driver``), as a tournament plays them: the bot holds one seat of each
(a different seat from game to game), the other seats are played in this process at random.
Each game's next turn is sent as soon as its previous one is answered, so turns of different
games wait at the same time and reach the bot back to back (in one ``batch`` message, to a bot
whose hello says ``batch: true``); a game that ends is followed by a
new one, so ``start`` and ``end`` messages arrive between other games' turns. The check is
judged by the faults the driver records: every answer must carry its own turn's ``request``
and ``game_id`` and one of that turn's actions, within that turn's deadline, in any order.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from arena.games.base import Game
from arena.procs.botproc import BotProcess
from arena.procs.hub import Hub
from arena.referee import driver
from arena.referee.game import GameSetup
from arena.referee.record import Fault, FaultKind
from arena.referee.seats import InProcessSeat, ProcessSeat, Seat, Turn
from arena.referee.session import Session

#: Games open at once, at most (fewer if the bot declares fewer).
OPEN_AT_ONCE = 4
#: Games played in all: more than are open at once, so games start while others are under way.
GAMES_IN_ALL = 6

Act = Callable[[dict[str, Any], list[str]], str]


class _Watch:
    """The bot's seats in the games at once: how many turns were sent, the most that waited
    for its answers at the same time, and when each was sent (turns sent together share the
    moment: to a bot that takes batches, they went in one message)."""

    def __init__(self) -> None:
        self.seats: list[ProcessSeat] = []
        self.turns = 0
        self.most = 0
        self.pending: list[Any] = []

    def asked(self, pending: Any) -> None:
        self.turns += 1
        self.most = max(self.most, sum(seat.pending is not None for seat in self.seats))
        self.pending.append(pending)

    def together(self) -> int:
        """The most turns sent at one moment (in one batch, to a bot that takes batches)."""
        return max(Counter(item.sent for item in self.pending).values(), default=0)


class _WatchedSeat(ProcessSeat):
    """The bot's seat in one game, counted by a ``_Watch``."""

    def __init__(self, hub: Hub, proc: BotProcess, watch: _Watch) -> None:
        super().__init__(hub, proc)
        self.watch = watch
        watch.seats.append(self)

    def ask(self, turn: Turn) -> Sequence[Any]:
        replies = super().ask(turn)
        self.watch.asked(self.pending)
        return replies


def interleave(
    session: Session,
    proc: BotProcess,
    game: Game,
    rng: random.Random,
    opponent: Callable[[], Act],
) -> tuple[bool, str, int]:
    """Play ``GAMES_IN_ALL`` games of ``game``, up to ``OPEN_AT_ONCE`` (or the bot's
    ``max_games``) at once, on the bot's process ``proc``; ``opponent()`` makes the play of
    each other seat. Returns (passed, what happened in words, the most turns sent together:
    in one batch, to a bot that takes batches)."""
    at_once = min(proc.peer.max_games, OPEN_AT_ONCE)
    players = game.min_players
    watch = _Watch()
    faulty: list[tuple[int, Fault]] = []

    def setups() -> Iterator[GameSetup]:
        for index in range(GAMES_IN_ALL):
            if faulty:
                return  # one fault says it: the games in flight finish, no new one starts
            seat = index % players
            seats: list[Seat] = [
                _WatchedSeat(session.hub, proc, watch)
                if other == seat
                else InProcessSeat(opponent(), f"random{other}")
                for other in range(players)
            ]
            yield GameSetup(
                game,
                seats,
                rng.getrandbits(62),
                None,
                rng.getrandbits(40),
                [rng.getrandbits(63) for _ in range(players)],
            )

    played = 0
    for done in driver.play_many(setups(), at_once, session.limits):
        if done.error is not None:
            return False, f"the arena could not play a game: {done.error}", 0
        played += 1
        seat = next(i for i, name in enumerate(done.record.bots) if name == proc.label)
        steps: set[int] = set()
        for fault in done.record.faults:
            if fault.seat == seat and fault.step not in steps:
                steps.add(fault.step)
                faulty.append((done.game_id, fault))
    waiting = f"up to {watch.most} waiting at once"
    if faulty:
        game_id, fault = faulty[0]
        return (
            False,
            (
                f"{game.name} game {game_id}, step {fault.step}: {fault.kind.value}: "
                f"{_in_words(fault)} ({at_once} games open at once, {waiting})"
            ),
            watch.together(),
        )
    if not proc.alive():
        return False, f"its process stopped ({proc.exit_summary()})", watch.together()
    batched = f", up to {watch.together()} in one batch" if proc.peer.batch else ""
    return (
        True,
        (
            f"{played} {game.name} games, {at_once} at a time in one process: "
            f"{watch.turns} turns, {waiting}{batched}"
        ),
        watch.together(),
    )


def _in_words(fault: Fault) -> str:
    if fault.kind is FaultKind.WRONG_ID:
        return f"an answer with the wrong game_id or request: {fault.detail}"
    if fault.kind is FaultKind.TIMEOUT:
        return f"{fault.detail} while other games' turns waited too: declare a smaller max_games"
    return fault.detail
