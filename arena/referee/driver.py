"""The referee's driver: several games in flight on one hub, each advanced as its answers come.

A game (``arena.referee.game.GamePlay``) advances by steps: in-process and scripted seats answer at
once, a process seat gets a ``turn`` and its answer arrives later. ``Driver`` keeps the games in
flight and, for every turn sent to a process, a **route**: (peer id, request id) -> (game, seat).
Each ``advance``:

1. waits (until the first deadline, at most until the next liveness check) for a message from
   any awaited process, then reads every message already queued on their doors
   (``Hub.receive_batch``): one wake-up serves many decisions;
2. routes each message by its request id to its game and seat and hands the game the answer; a
   game whose step is complete applies it and sends its next turns at once;
3. expires the turns whose deadline has passed (after reading once more what is queued: an
   answer that arrived in time is never judged late because the referee was busy);
4. every ``LIVENESS_MS``, checks that the processes it waits for are alive.

Routing decides whose fault a bad message is, always a seat of the process that sent it: an
answer whose game id is not its request's game is a WRONG_ID fault of that request's seat; one
whose request was never sent, of the seat of the game its game id names or, when that names
none waiting, of that process's oldest pending turn; a malformed message is the oldest pending
turn's MALFORMED fault. A reply to a request that has already ended is dropped. A ``batch``
from a process that takes them (``Peer.batch``) is routed entry by entry, each as if it had
come alone: a malformed entry is a MALFORMED fault of the turn of the game it names (else of
the request it names, else the oldest), never of another game's entry. A game's turns stay
strictly sequential and each turn's deadline is its own: one game's slowness or faults never
touch another game's accounting.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

from arena.errors import ArenaError
from arena.procs.hub import Hub, Incoming, Peer
from arena.procs.limits import Limits
from arena.referee.game import GamePlay, GameSetup
from arena.referee.record import FaultKind, GameRecord, Played
from arena.referee.seats import ProcessSeat, Reply, fault
from protocol.messages import entry_problem

log = logging.getLogger(__name__)

#: How often (ms) the driver checks that the bot processes it waits for are still alive.
LIVENESS_MS = 100


def play(setup: GameSetup, limits: Limits) -> GameRecord:
    """Play one game under ``limits``. An arena error (not a seat's fault) is raised as an
    ArenaError."""
    for done in play_many([setup], 1, limits):
        if done.error is not None:
            raise ArenaError(done.error)
        return done.record
    raise ArenaError("the game was not played")  # unreachable: one game, one result


def play_many(setups: Iterable[GameSetup], at_once: int, limits: Limits) -> Iterator[Played]:
    """Play the games of ``setups`` under ``limits`` (consumed lazily, whenever fewer than
    ``at_once`` are in flight); yield each game as it finishes. The caller keeps each process
    within its ``max_games`` (a game beyond it ends at once with an error):
    ``tournaments.run.playing`` starts a game only when its processes have a free slot."""
    driver = Driver()
    source = iter(setups)

    plays = driver.plays

    def fill() -> None:
        room = at_once - len(plays)
        if room > 0:
            for setup in itertools.islice(source, room):
                driver.add(GamePlay(limits, setup))

    return driver.run(fill)


class Route(NamedTuple):
    """Where the answer to a process seat's turn goes: its game and seat. The driver makes
    one per process seat when a game starts (``Driver._routes_of``) and files it under each
    request id sent to that seat."""

    play: GamePlay
    index: int
    seat: ProcessSeat


class Driver:
    """The games in flight on one hub, their pending turns and the games just finished."""

    def __init__(self) -> None:
        self.hub: Hub | None = None
        self.plays: dict[int, GamePlay] = {}  # by id(): the games in flight
        self.routes: dict[bytes, dict[int, Route]] = {}  # peer id -> request -> route
        self.peers: dict[bytes, Peer] = {}  # the peers with a pending turn
        self.open: dict[bytes, int] = {}  # peer id -> games open on it
        self._routes_of: dict[int, list[Route | None]] = {}  # id(game) -> by seat (processes)
        self._deadlines: list[tuple[float, int, bytes]] = []  # (deadline, request, peer id)
        self._done: list[Played] = []
        self._fresh: list[Any] = []  # pending turns asked since the last flush
        self._next_liveness = 0.0

    def __len__(self) -> int:
        """Games in flight."""
        return len(self.plays)

    def active(self) -> bool:
        """Games in flight, or finished and not yet returned by ``advance``."""
        return bool(self.plays or self._done)

    def has_room(self, peer: Peer) -> bool:
        """Whether ``peer`` may have one more game open (its hello's ``max_games``)."""
        return self.open.get(peer.peer_id, 0) < peer.max_games

    def add(self, play: GamePlay) -> None:
        """Start a game (it may finish at once: then the next ``advance`` returns it)."""
        peers = _peers_of(play)
        for peer in peers:
            if not self.has_room(peer):
                self.fail(play.game_id, f"ArenaError: {peer.label} has no free game slot")
                return
        for peer in peers:
            self.open[peer.peer_id] = self.open.get(peer.peer_id, 0) + 1
        self.plays[id(play)] = play
        self._routes_of[id(play)] = [
            Route(play, index, player.seat) if isinstance(player.seat, ProcessSeat) else None
            for index, player in enumerate(play.players)
        ]
        if self.hub is None:
            self.hub = next((seat.hub for seat in _process_seats(play)), None)
        self._defer()
        self._guard(play, play.begin)
        self._flush()

    def run(self, fill: Callable[[], object]) -> Iterator[Played]:
        """The loop over the games: ``fill`` starts games (``add``) before each wait; each game
        is yielded as it finishes, until none is in flight after a ``fill``."""
        while True:
            fill()
            if not self.active():
                return
            yield from self.advance()

    def fail(self, game_id: int, error: str) -> None:
        """A game that could not start: the next ``advance`` returns it with ``error``."""
        self._done.append(Played(game_id, None, error))

    def advance(self) -> list[Played]:
        """Wait for what happens next in the games in flight; return the games finished."""
        if not self._done:
            if self.plays and not self.routes:
                for play in list(self.plays.values()):  # cannot happen: a game waits for a turn
                    self._close(play, ArenaError("the game waits for no seat"))
            else:
                self._wait()  # it sends what it held before it returns
        done, self._done = self._done, []
        return done

    # -- games ------------------------------------------------------------------------------

    def _guard(self, play: GamePlay, step: Callable[..., None], *args: Any) -> None:
        """Run one step of ``play``; an arena error ends that game only."""
        try:
            step(*args)
        except Exception as exc:  # noqa: BLE001 - one game's error never stops the others
            log.exception("game %d failed", play.game_id)
            self._close(play, exc)
            return
        if play.record is not None:
            self._close(play, None)
        else:
            self._track(play)

    def _close(self, play: GamePlay, error: Exception | None) -> None:
        """End ``play``: its record, or the arena error that stopped it."""
        if self.plays.pop(id(play), None) is None:
            return
        del self._routes_of[id(play)]
        for peer in _peers_of(play):
            self.open[peer.peer_id] -= 1
            if not self.open[peer.peer_id]:
                del self.open[peer.peer_id]
        for seat in play.waiting.values():
            if isinstance(seat, ProcessSeat) and seat.pending is not None:
                self._pop_route(seat.peer.peer_id, seat.pending.request)
        why = None if error is None else f"{type(error).__name__}: {error}"
        self._done.append(Played(play.game_id, play.record if error is None else None, why))

    def _track(self, play: GamePlay) -> None:
        """Route the turns ``play`` has asked since the last time (``GamePlay.asked``; they
        are sent at the next ``_flush``)."""
        asked = play.asked
        if not asked:
            return
        by_peer, fresh = self.routes, self._fresh
        routes_of = self._routes_of[id(play)]
        for index in asked:
            route = routes_of[index]
            item = route.seat.pending if route is not None else None
            if item is None:
                continue
            routes = by_peer.get(item.peer_id)
            if routes is None:
                routes = by_peer[item.peer_id] = {}
                self.peers[item.peer_id] = route.seat.peer
            routes[item.request] = route
            fresh.append(item)
        asked.clear()

    def _defer(self) -> None:
        if self.hub is not None:
            self.hub.defer()

    def _flush(self) -> None:
        """Send the held messages; each new turn's deadline runs from just before that."""
        fresh = self._fresh
        if fresh:
            now = time.monotonic()
            deadlines = self._deadlines
            for item in fresh:
                item.sent = now
                item.deadline = deadline = now + item.allowed_ms / 1000.0
                heapq.heappush(deadlines, (deadline, item.request, item.peer_id))
            fresh.clear()
        if self.hub is not None:
            self.hub.flush()

    def _reply(self, route: Route, reply: Reply) -> None:
        self._guard(route.play, route.play.take, route.index, reply)

    # -- routes -----------------------------------------------------------------------------

    def _live(self, route: Route, request: int) -> bool:
        """The route's turn is still awaited (its game goes on, the seat waits for it)."""
        item = route.seat.pending
        return (
            item is not None
            and item.request == request
            and route.play.waiting.get(route.index) is route.seat
            and id(route.play) in self.plays
        )

    def _pop_route(self, peer_id: bytes, request: int) -> Route | None:
        routes = self.routes.get(peer_id)
        if routes is None:
            return None
        route = routes.pop(request, None)
        if not routes:
            del self.routes[peer_id]
            del self.peers[peer_id]
        return route

    def _oldest(self, peer_id: bytes, before: float | None = None) -> tuple[int, Route] | None:
        """The peer's oldest pending turn still awaited (stale routes are dropped); with
        ``before``, only one sent by then (a turn asked since was never seen by the bot)."""
        for request, route in list(self.routes.get(peer_id, {}).items()):
            if self._live(route, request):
                if before is not None and route.seat.pending.sent > before:
                    return None  # routes are in request order: the later ones are newer
                return request, route
            self._pop_route(peer_id, request)
        return None

    # -- waiting ----------------------------------------------------------------------------

    def _wait(self) -> None:
        """Send the turns held, wait for and route what arrives, expire what is late; the
        turns asked meanwhile are held and sent together at the end."""
        hub = self.hub
        now = time.monotonic()
        if now >= self._next_liveness:
            self._defer()
            self._liveness(now)
            self._flush()
        self._prune()
        deadlines = self._deadlines
        # at most LIVENESS_MS: a steady timeout (a changing one costs a setsockopt per wait)
        wait_ms = LIVENESS_MS
        if deadlines and deadlines[0][0] - now < LIVENESS_MS / 1000.0:
            wait_ms = max(0.0, deadlines[0][0] - now) * 1000.0
        batch = hub.receive_batch(wait_ms, self.peers.values(), most=self._owed())
        hub.defer()
        for incoming in batch:
            self._route(incoming)
        if deadlines and deadlines[0][0] <= time.monotonic():
            self._expire()
        self._flush()

    def _owed(self) -> int:
        """The most answers one awaited process owes (one each, one game at a time): what a
        wait reads from each door (``_expire`` reads everything queued before it judges)."""
        routes = self.routes
        if len(routes) == 1:
            for requests in routes.values():
                return len(requests)
        return max(map(len, routes.values()), default=1)

    def _prune(self) -> None:
        """Drop the deadlines of turns already answered from the top of the heap."""
        deadlines, routes = self._deadlines, self.routes
        while deadlines and deadlines[0][1] not in routes.get(deadlines[0][2], ()):
            heapq.heappop(deadlines)

    def _expire(self) -> None:
        """Time out the turns past their deadline, after reading what is queued."""
        self._prune()
        deadlines = self._deadlines
        now = time.monotonic()
        if not deadlines or deadlines[0][0] > now:
            return
        for incoming in self.hub.receive_batch(0, self.peers.values()):
            self._route(incoming)  # read after ``now``: anything there arrived in time
        while deadlines and deadlines[0][0] <= now:
            _, request, peer_id = heapq.heappop(deadlines)
            route = self.routes.get(peer_id, {}).get(request)
            if route is None:
                continue  # answered
            self._pop_route(peer_id, request)
            if self._live(route, request):
                self._reply(route, route.seat.expired())

    def _liveness(self, now: float) -> None:
        """Crash faults for every pending turn of a process that is gone."""
        self._next_liveness = now + LIVENESS_MS / 1000.0
        for peer_id in list(self.routes):
            found = self._oldest(peer_id)
            if found is None or found[1].seat.proc.alive():
                continue
            for request, route in list(self.routes.get(peer_id, {}).items()):
                self._pop_route(peer_id, request)
                if self._live(route, request):
                    reply = route.seat.gone()
                    if reply is not None:
                        self._reply(route, reply)

    def _route(self, incoming: Incoming) -> None:
        """One message from a process: the answer or fault of one of its own seats, or of
        several (a ``batch``: each entry is routed on its own, as if it had come alone; an entry
        that names no waiting turn is judged after the others, as a lone malformed message)."""
        peer_id = incoming.peer.peer_id
        if incoming.problem is not None:
            detail = str(incoming.problem)[:200]
            self._charge(peer_id, FaultKind.MALFORMED, detail, ends=True, before=incoming.at)
            return
        message = incoming.message
        if message["type"] != "batch":
            self._answer(incoming, message)
            return
        unnamed: list[str] = []
        for entry in message["messages"]:
            problem = entry_problem(entry)
            if problem is None:
                self._answer(incoming, entry)
                continue
            named = entry if type(entry) is dict else {}
            found = self._named(peer_id, named.get("game_id"), named.get("request"))
            if found is None:
                unnamed.append(problem[:200])
            else:
                self._fault_of(peer_id, found, FaultKind.MALFORMED, problem[:200], ends=True)
        for problem in unnamed:
            self._charge(peer_id, FaultKind.MALFORMED, problem, ends=True, before=incoming.at)

    def _answer(self, incoming: Incoming, message: dict[str, Any]) -> None:
        """One ``action`` (alone or a batch's entry): the answer to the turn its request names,
        a stale reply (dropped) or a WRONG_ID fault."""
        peer_id = incoming.peer.peer_id
        request = message["request"]
        routes = self.routes.get(peer_id)
        route = routes.get(request) if routes is not None else None
        if route is not None:  # ``_live`` and ``_pop_route`` inlined: this runs every decision
            play, index, seat = route
            item = seat.pending
            if (
                item is not None
                and item.request == request
                and play.waiting.get(index) is seat
                and id(play) in self.plays
            ):
                if message["game_id"] != seat.wire_id:
                    detail = f"game id {message['game_id']} is not this game's ({seat.wire_id})"
                    self._reply(route, fault(FaultKind.WRONG_ID, detail, ends=False))
                    return
                del routes[request]
                if not routes:
                    del self.routes[peer_id]
                    del self.peers[peer_id]
                seat.pending = None
                elapsed_ms = (incoming.at - item.sent) * 1000.0
                self._guard(play, play.answer, index, message["action"], elapsed_ms)
                return
        if route is not None or 1 <= request <= incoming.peer.last_request:
            if route is not None:
                self._pop_route(peer_id, request)
            log.debug("dropped a stale reply from %s (request %d)", incoming.peer.label, request)
        else:
            detail = f"request id {request} was never sent"
            self._charge(
                peer_id, FaultKind.WRONG_ID, detail, game_id=message["game_id"], before=incoming.at
            )

    def _charge(
        self,
        peer_id: bytes,
        kind: FaultKind,
        detail: str,
        *,
        ends: bool = False,
        game_id: object = None,
        before: float | None = None,
    ) -> None:
        """A fault of one pending turn of the peer (``ends``: that turn is over): the turn of
        the game ``game_id`` names, else its oldest (of those sent ``before``, when given);
        dropped when the peer has none (nothing of it is at stake)."""
        found = self._named(peer_id, game_id, None) or self._oldest(peer_id, before)
        if found is None:
            log.debug("dropped a bad message from a process with no pending turn: %s", detail)
            return
        self._fault_of(peer_id, found, kind, detail, ends=ends)

    def _fault_of(
        self, peer_id: bytes, found: tuple[int, Route], kind: FaultKind, detail: str, *, ends: bool
    ) -> None:
        request, route = found
        if ends:
            self._pop_route(peer_id, request)
            route.seat.pending = None
        self._reply(route, fault(kind, detail, ends=ends))

    def _named(self, peer_id: bytes, game_id: object, request: object) -> tuple[int, Route] | None:
        """The peer's pending turn of the game whose wire id is ``game_id``, else the pending
        turn ``request`` names (None: neither names one)."""
        routes = self.routes.get(peer_id)
        if not routes:
            return None
        if type(game_id) is int:
            for pending, route in routes.items():
                if route.seat.wire_id == game_id and self._live(route, pending):
                    return pending, route
        if type(request) is int:
            route = routes.get(request)
            if route is not None and self._live(route, request):
                return request, route
        return None


def _process_seats(play: GamePlay) -> list[ProcessSeat]:
    return [player.seat for player in play.players if isinstance(player.seat, ProcessSeat)]


def _peers_of(play: GamePlay) -> list[Peer]:
    """The connected peers of a game's process seats."""
    return [
        seat.proc.peer
        for seat in _process_seats(play)
        if seat.proc is not None and seat.proc.peer is not None
    ]
