"""The seats a referee plays over: one interface, four kinds.

A seat takes part in a game in three moves: ``start`` (a game begins: is the seat ready?),
``ask`` (a turn: the seat's view and legal list, with a deadline; the answer is an action or a
fault) and ``end`` (the result). The referee sees nothing else, so a game is played the same way
whoever sits there:

- ``ProcessSeat``: a bot process over ZeroMQ (``arena.procs.hub``), one seat of one game (a process
  serving several games has one such seat in each). A turn is a ``turn`` message with a fresh
  request id (``pending``); its answer comes later, routed by that id through the referee's
  driver (``arena.referee.driver``), which also expires it at its deadline and checks that the
  process is alive. The process knows the game by an **opaque id** of this seat's own
  (``wire_id``: a fresh random 53-bit number), never by the arena's: nothing in it tells which
  games share a deal, nor where a game stands in the plan.
- ``InProcessSeat``: a Python ``act(view, legal) -> str`` called directly. An exception is a
  crash, an answer that is not a string is malformed, one past the deadline is a timeout.
- ``PersonSeat``: a person (``Person``: ``arena play --human`` reads one from the terminal),
  asked in this process like an in-process seat and waited for: a person has no deadline unless
  the seat is given one. Leaving the game (Ctrl-C, the end of the input) is a RESIGNED fault,
  which forfeits the seat at once; the actions it chose are recorded as a person's.
- ``ScriptedSeat``: a list of answers and misbehaviours, for tests.

Whether an answer is *legal* is not the seat's business: the game's ``apply`` checks it once.
"""

from __future__ import annotations

import enum
import logging
import secrets
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from arena.procs.botproc import BotProcess
from arena.procs.hub import Hub, Peer
from arena.referee.record import Chooser, FaultKind
from protocol import messages

log = logging.getLogger(__name__)

Act = Callable[[dict[str, Any], list[str]], str]


class Start(NamedTuple):
    """What a seat is told when a game begins (the ``start`` message's fields)."""

    game_id: int
    game: str
    seat: int
    players: int
    options: Mapping[str, Any]
    seed: int


class Turn(NamedTuple):
    """One decision asked of a seat: its view, its legal actions, the time it has and the
    game's step (for the bot's log: which step its output is of)."""

    game_id: int
    view: dict[str, Any]
    legal: list[str]
    deadline_ms: float
    step: int = 0


class Reply(NamedTuple):
    """A seat's answer to a turn (``action``), or a fault (``fault``, ``detail``).

    ``ends`` is False for a fault that does not answer the turn (a message with a request id
    that was never sent): the turn goes on waiting. ``elapsed_ms`` is the time the answer took.
    """

    action: str | None
    fault: FaultKind | None = None
    detail: str = ""
    elapsed_ms: float = 0.0
    ends: bool = True


#: Opaque game ids are below this: 53 bits, so that a JavaScript number holds one exactly.
OPAQUE_ID_LIMIT = 2**53


def opaque_id() -> int:
    """A fresh random game id for one process's seat: positive, below ``OPAQUE_ID_LIMIT``."""
    return 1 + secrets.randbelow(OPAQUE_ID_LIMIT - 1)


def answer(action: str, elapsed_ms: float) -> Reply:
    return Reply(action, None, "", elapsed_ms)


def fault(kind: FaultKind, detail: str, *, ends: bool = True) -> Reply:
    return Reply(None, kind, detail, 0.0, ends)


class Seat(ABC):
    """One player of one game. ``label`` names it (the bot's name by default in records);
    ``chooser`` is who the record says chose its answers; ``start_fault`` is the kind of the
    fault when ``start`` says it cannot play."""

    label: str = "?"
    chooser: Chooser = Chooser.BOT
    start_fault: FaultKind = FaultKind.CRASH

    @abstractmethod
    def start(self, start: Start) -> str | None:
        """A game begins: None if the seat is ready, else why it cannot play (a crash)."""

    @abstractmethod
    def ask(self, turn: Turn) -> Sequence[Reply]:
        """Ask for a decision. Returns the replies available at once (the last one ends the
        turn), or none: then the answer comes later, routed to the seat by the referee's driver
        (``arena.referee.driver``: process seats)."""

    @abstractmethod
    def end(self, game_id: int, result: Mapping[str, Any], view: dict[str, Any]) -> None:
        """The game is over: its result and the seat's last view."""


# -- bot processes over ZeroMQ ------------------------------------------------------------


@dataclass(slots=True)
class _Pending:
    """A turn sent and not yet answered (``sent``/``deadline`` are restamped by the driver
    when a held send goes out)."""

    request: int
    sent: float
    deadline: float
    allowed_ms: float
    peer_id: bytes = b""


class ProcessSeat(Seat):
    """A bot process on ``hub`` (``proc`` None: no process; ``absent`` may say why, and
    ``refused`` that the arena refused its hello: its fault is then ``refused``, not a
    crash). The messages it is sent name the game by ``wire_id``, drawn at ``start``."""

    def __init__(
        self,
        hub: Hub,
        proc: BotProcess | None,
        *,
        absent: str | None = None,
        refused: bool = False,
    ) -> None:
        self.hub = hub
        self.proc = proc
        self.absent = absent
        if refused:
            self.start_fault = FaultKind.REFUSED
        self.label = proc.label if proc is not None else "?"
        self.peer: Peer | None = None
        self.wire_id = 0
        self.pending: _Pending | None = None

    def _cut(self) -> str | None:
        """Why the arena closed this process's connection, if it did."""
        proc = self.proc
        peer = proc.peer if proc is not None else None
        if peer is not None and peer.cut and proc.running():
            return f"connection closed by the arena: {peer.cut}"
        return None

    def start(self, start: Start) -> str | None:
        proc = self.proc
        if proc is None or proc.peer is None or not proc.alive():
            why = self.absent or self._cut()
            return "no running bot process at the start" + (f": {why[:300]}" if why else "")
        self.peer = proc.peer
        self.wire_id = opaque_id()
        self.hub.send(
            self.peer,
            messages.start(
                game_id=self.wire_id,
                game=start.game,
                seat=start.seat,
                players=start.players,
                options=start.options,
                seed=start.seed,
            ),
        )
        if proc.output is not None:  # its log says which game its lines are of
            proc.output.open_game(start.game_id, start.seat, alone=self.peer.max_games == 1)
        return None

    def ask(self, turn: Turn) -> Sequence[Reply]:
        peer = self.peer
        output = self.proc.output
        if output is not None:
            output.turn(turn.game_id, turn.step)
        peer.last_request = request = peer.last_request + 1
        now = time.monotonic()  # the deadline runs from before the send, never from after it
        self.hub.send(
            peer,
            messages.turn(
                game_id=self.wire_id,
                request=request,
                view=turn.view,
                legal=turn.legal,
                deadline_ms=int(turn.deadline_ms),
            ),
        )
        self.pending = _Pending(
            request, now, now + turn.deadline_ms / 1000.0, turn.deadline_ms, peer.peer_id
        )
        return ()

    def end(self, game_id: int, result: Mapping[str, Any], view: dict[str, Any]) -> None:
        self.pending = None
        if self.proc is not None and self.proc.output is not None:
            self.proc.output.close_game(game_id)
        if self.peer is not None and self.proc.alive():
            self.hub.send(self.peer, messages.end(game_id=self.wire_id, result=result, view=view))

    def expired(self) -> Reply:
        """The pending turn timed out."""
        item, self.pending = self.pending, None
        return fault(FaultKind.TIMEOUT, f"no answer within {round(item.allowed_ms)} ms")

    def gone(self) -> Reply | None:
        """A crash fault if the process is gone (the pending turn ends), else None."""
        if self.proc.alive():
            return None
        self.pending = None
        return fault(FaultKind.CRASH, self._cut() or f"bot process {self.proc.exit_summary()}")


# -- in-process seats -----------------------------------------------------------------------


class InProcessSeat(Seat):
    """A bot's ``act(view, legal) -> str`` called in this process."""

    def __init__(self, act: Act, label: str = "in-process") -> None:
        self.act = act
        self.label = label

    def start(self, start: Start) -> str | None:
        return None

    def ask(self, turn: Turn) -> Sequence[Reply]:
        started = time.perf_counter()
        try:
            action = self.act(turn.view, turn.legal)
        except Exception as exc:  # a bot's exception is its crash, not the arena's
            log.info("%s raised %s", self.label, exc, exc_info=True)
            return (fault(FaultKind.CRASH, f"act raised {type(exc).__name__}: {exc}"[:300]),)
        elapsed_ms = (time.perf_counter() - started) * 1000.0
        if not isinstance(action, str):
            return (
                fault(FaultKind.MALFORMED, f"action is a {type(action).__name__}, not a string"),
            )
        if elapsed_ms > turn.deadline_ms:
            return (fault(FaultKind.TIMEOUT, f"no answer within {round(turn.deadline_ms)} ms"),)
        return (answer(action, elapsed_ms),)

    def end(self, game_id: int, result: Mapping[str, Any], view: dict[str, Any]) -> None:
        return None


# -- a person ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Leave:
    """A person's answer that is no action: they leave the game (``why``: Ctrl-C, the end of
    the input)."""

    why: str


class Person(Protocol):
    """Someone who plays a seat from outside the program (``arena play --human``: a person at
    the terminal). They are shown what a bot in the seat would be sent, no more: the start,
    each turn (the seat's view and legal list) and the end (the result and the last view)."""

    def start(self, start: Start) -> None:
        """A game begins."""

    def decide(self, turn: Turn, time_ms: float | None) -> str | Leave:
        """The action chosen for ``turn`` (one of ``turn.legal``), or ``Leave``; ``time_ms``
        is the time the person has (None: no deadline; ``turn.deadline_ms`` is a bot's)."""

    def end(self, result: Mapping[str, Any], view: dict[str, Any]) -> None:
        """The game is over: its result and the seat's last view."""


class PersonSeat(Seat):
    """A ``Person`` asked in this process, and waited for: no deadline unless ``time_ms``
    gives one (an answer after it is a timeout, and the default policy moves). Leaving is a
    RESIGNED fault: the seat forfeits at once and the default policy plays on for it."""

    chooser = Chooser.PERSON

    def __init__(self, person: Person, *, time_ms: float | None = None, label: str = "human"):
        self.person = person
        self.time_ms = time_ms
        self.label = label

    def start(self, start: Start) -> str | None:
        self.person.start(start)
        return None

    def ask(self, turn: Turn) -> Sequence[Reply]:
        started = time.perf_counter()
        chosen = self.person.decide(turn, self.time_ms)
        elapsed_ms = (time.perf_counter() - started) * 1000.0
        if isinstance(chosen, Leave):
            return (fault(FaultKind.RESIGNED, f"the person left the game: {chosen.why}"[:300]),)
        if self.time_ms is not None and elapsed_ms > self.time_ms:
            return (fault(FaultKind.TIMEOUT, f"no answer within {round(self.time_ms)} ms"),)
        return (answer(chosen, elapsed_ms),)

    def end(self, game_id: int, result: Mapping[str, Any], view: dict[str, Any]) -> None:
        self.person.end(result, view)


# -- scripted seats (tests) -----------------------------------------------------------------


class Misbehave(enum.StrEnum):
    """What a scripted seat may do instead of answering a turn."""

    TIMEOUT = "timeout"  # no answer in time (a late answer is dropped: same thing)
    MALFORMED = "malformed"  # a message that is not a valid answer
    WRONG_ID = "wrong-id"  # a reply to a request never sent; the next script item answers
    CRASH = "crash"  # the process dies
    ABSENT = "absent"  # (first item only) no process at the start


class ScriptedSeat(Seat):
    """Answers turns from ``script``: actions (legal or not) and ``Misbehave`` items, in order;
    then the first legal action. Keeps every message it was sent, for tests to inspect."""

    def __init__(self, script: Iterable[str | Misbehave] = (), label: str = "scripted") -> None:
        self.script = list(script)
        self.label = label
        self.starts: list[Start] = []
        self.turns: list[Turn] = []
        self.ends: list[tuple[int, Mapping[str, Any], dict[str, Any]]] = []

    def start(self, start: Start) -> str | None:
        self.starts.append(start)
        if self.script and self.script[0] is Misbehave.ABSENT:
            self.script.pop(0)
            return "no running bot process at the start: scripted"
        return None

    def ask(self, turn: Turn) -> Sequence[Reply]:
        self.turns.append(turn)
        replies: list[Reply] = []
        while self.script and self.script[0] is Misbehave.WRONG_ID:
            self.script.pop(0)
            replies.append(fault(FaultKind.WRONG_ID, "request id 0 was never sent", ends=False))
        item = self.script.pop(0) if self.script else turn.legal[0]
        if isinstance(item, Misbehave):
            kind = FaultKind(item.value) if item is not Misbehave.ABSENT else FaultKind.CRASH
            replies.append(fault(kind, f"scripted {item.value}"))
        else:
            replies.append(answer(item, 0.0))
        return replies

    def end(self, game_id: int, result: Mapping[str, Any], view: dict[str, Any]) -> None:
        self.ends.append((game_id, result, view))
