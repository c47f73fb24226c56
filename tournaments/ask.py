"""``arena bot ask``: send one recorded turn of a stored game to a bot and see its answer,
debugging one move without replaying a tournament.

The turn is rebuilt from the stored game (its deal and actions, replayed with the engine): the
view and legal list that seat had at that step, and nothing else of the deal. It is withheld,
as the game's replay is, while the deal is still being played in another seat rotation. One
process of the bot is started and told, as in the game, ``start`` (same game, seat, players,
options and the seat's own seed) and then that ``turn``; its answer (or fault) is reported,
with what it printed meanwhile. A bot that keeps state from earlier turns of the game does
not have it here: it sees the turn as its first.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.errors import BotStartError, MissingKey
from arena.keys.seeds import bot_seeds, random_seed
from arena.procs.botproc import BotSpec
from arena.procs.limits import Limits
from arena.procs.logs import output_tail
from arena.procs.sandbox import Sandbox
from arena.referee.record import Chooser
from arena.referee.replay import state_at
from arena.referee.seats import ProcessSeat, Start, Turn
from arena.referee.session import Session
from protocol import messages
from tournaments.catalogue.bot_sandbox import sandbox_for
from tournaments.catalogue.lookup import Catalogue
from tournaments.catalogue.targets import bot_target
from tournaments.errors import NotFound, TournamentError, UsageProblem
from tournaments.service import RunOptions
from tournaments.store.facts import Store
from tournaments.store.withheld import deal_in_play, deal_withheld_reason

__all__ = ["BotAnswer", "Asked", "RecordedTurn", "Withheld", "ask", "ask_bot", "recorded_turn"]

#: Lines of the bot's output shown with its answer.
OUTPUT_LINES = 40


class Withheld(TournamentError):
    """A recorded turn of a deal still in play: not shown."""


@dataclass(frozen=True, kw_only=True)
class RecordedTurn:
    """One seat's turn of a stored game: what it was sent then, and what was played."""

    game_id: int
    tournament_id: int
    game: str
    options: dict[str, Any]
    players: int
    seat: int
    entrant: str
    step: int
    view: dict[str, Any]
    legal: list[str]
    seed: int
    played: str
    played_by: Chooser

    def to_dict(self) -> dict[str, Any]:
        return {
            "game_id": self.game_id,
            "tournament_id": self.tournament_id,
            "game": self.game,
            "seat": self.seat,
            "entrant": self.entrant,
            "step": self.step,
            "view": self.view,
            "legal": self.legal,
            "played": self.played,
            "played_by": self.played_by.value,
        }


def recorded_turn(store: Store, game_id: int, seat: int, step: int) -> RecordedTurn:
    """Seat ``seat``'s turn at step ``step`` of stored game ``game_id``. Raises NotFound,
    Withheld (its deal is in play) or UsageProblem (no such seat, or the seat did not act
    at that step: the steps it did act at are named)."""
    stored = store.game(game_id)
    record = stored.record
    if record is None:
        raise NotFound(f"game {game_id} has not been played yet")
    if deal_in_play(store, game_id):
        raise Withheld(deal_withheld_reason(game_id))
    if not 0 <= seat < record.players:
        raise UsageProblem(f"seat {seat} is not one of 0..{record.players - 1}")
    mine = {action.step: action for action in record.actions if action.seat == seat}
    if step not in mine:
        steps = sorted(mine)
        shown = ", ".join(str(s) for s in steps[:20]) + (", ..." if len(steps) > 20 else "")
        raise UsageProblem(
            f"seat {seat} did not act at step {step} of game {game_id}; it acted at steps "
            f"{shown} ({len(steps)} in all)"
        )
    steps = record.joint_actions()
    state = state_at(record.game, record.players, record.seed, record.options, steps, step)
    try:
        seed = bot_seeds(store.tournament_key(stored.tournament_id), record.seed, record.players)[
            seat
        ]
    except MissingKey:
        seed = random_seed()  # the key file is elsewhere: any seed, the deal is unchanged
    return RecordedTurn(
        game_id=game_id,
        tournament_id=stored.tournament_id,
        game=record.game,
        options=dict(record.options),
        players=record.players,
        seat=seat,
        entrant=stored.planned.seating[seat],
        step=step,
        view=state.view(seat),
        legal=list(state.legal(seat)),
        seed=seed,
        played=mine[step].action,
        played_by=mine[step].by,
    )


@dataclass(frozen=True, kw_only=True)
class BotAnswer:
    """The bot's answer to the turn (``action``, whether it was offered, how long it took),
    or what went wrong (``problem``, in the protocol page's words), and what it printed."""

    action: str | None = None
    offered: bool = False
    ms: float = 0.0
    problem: str | None = None
    output: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "offered": self.offered,
            "ms": round(self.ms, 2),
            "problem": self.problem,
            "output": list(self.output),
        }


def ask_bot(
    spec: BotSpec,
    turn: RecordedTurn,
    *,
    limits: Limits,
    sandbox: Sandbox | None,
) -> BotAnswer:
    """Start one process of ``spec``, send it ``turn`` (after its ``start``) and wait for its
    answer for ``limits.move_ms``."""
    with tempfile.TemporaryDirectory(prefix="arena-ask-") as folder:
        with Session(limits, log_dir=Path(folder), sandbox=sandbox) as session:
            label = f"ask:{spec.name}"
            try:
                proc = session.pool.get([(label, spec)])[0]
            except BotStartError as exc:
                return BotAnswer(problem=str(exc))
            answer = _exchange(session, proc, turn, limits.move_ms)
            log_path = proc.log_path
            if proc.popen is not None and proc.alive():
                session.hub.send(proc.peer, messages.bye())
        output = tuple(output_tail(log_path, OUTPUT_LINES)) if log_path else ()
    return BotAnswer(
        action=answer.action,
        offered=answer.offered,
        ms=answer.ms,
        problem=answer.problem,
        output=output,
    )


def _exchange(session: Session, proc: Any, turn: RecordedTurn, move_ms: int) -> BotAnswer:
    """The game's ``start`` and the turn, sent as the referee sends them (a process seat),
    then the answer or the fault, in the protocol page's words."""
    seat = ProcessSeat(session.hub, proc)
    why = seat.start(
        Start(turn.game_id, turn.game, turn.seat, turn.players, turn.options, turn.seed)
    )
    if why is not None:
        return BotAnswer(problem=f"crash: {why}")
    seat.ask(Turn(turn.game_id, turn.view, turn.legal, move_ms, turn.step))
    pending = seat.pending
    while True:
        left_ms = (pending.deadline - time.monotonic()) * 1000.0
        if left_ms <= 0:
            return BotAnswer(
                problem=f"timeout: no answer within {move_ms} ms (the turn's deadline_ms)"
            )
        incoming = session.hub.receive(min(left_ms, 100.0), [seat.peer])
        if incoming is None:
            if not proc.alive():
                return BotAnswer(problem=f"crash: its process {proc.exit_summary()}")
            continue
        elapsed = (incoming.at - pending.sent) * 1000.0
        if incoming.problem is not None:
            return BotAnswer(problem=f"malformed: {incoming.problem}", ms=elapsed)
        message = incoming.message
        if message["request"] != pending.request or message["game_id"] != seat.wire_id:
            return BotAnswer(
                problem=f"wrong-id: answered request {message['request']} of game "
                f"{message['game_id']}, not request {pending.request} of game {seat.wire_id} "
                "(the ids the turn was sent with)",
                ms=elapsed,
            )
        action = message["action"]
        return BotAnswer(action=action, offered=action in turn.legal, ms=elapsed)


@dataclass(frozen=True, kw_only=True)
class Asked:
    """A recorded turn, the bot it was sent to, and its answer."""

    turn: RecordedTurn
    bot: str
    answer: BotAnswer

    def to_dict(self) -> dict[str, Any]:
        return {"turn": self.turn.to_dict(), "bot": self.bot, "answer": self.answer.to_dict()}


def ask(
    store: Store,
    spec: Sequence[str],
    *,
    game_id: int,
    seat: int,
    step: int,
    options: RunOptions,
    move_ms: int,
) -> Asked:
    """``arena bot ask``: the bot of SPEC ``spec`` (``tournaments.catalogue.targets``) answers seat
    ``seat``'s turn at step ``step`` of stored game ``game_id``, run as ``options`` say
    (limits, sandbox) with ``move_ms`` to answer. Raises as ``recorded_turn`` and
    ``bot_target`` do."""
    catalogue = Catalogue.of(store)
    target = bot_target(spec, catalogue)
    turn = recorded_turn(store, game_id, seat, step)
    box = sandbox_for(
        options.sandbox_mode(), Path(store.path), catalogue.folders(), specs=[target.spec]
    )
    answer = ask_bot(target.spec, turn, limits=options.limits(move_ms=move_ms), sandbox=box)
    return Asked(turn=turn, bot=target.spec.name, answer=answer)
