"""The arena's end of the wire: a private door per bot process, tokens, and the peers.

Each local bot process gets a secret single-use token and its own **door** (``arena.procs.doors``):
a ROUTER socket on an ipc:// endpoint in a folder of its own, ``endpoint_of(label)``. A
``hello`` there with that door's token and the right protocol version makes its sender a peer;
a bad hello gets an ``error`` reply and nothing else. Every other message from a sender that is
not a peer is dropped without a reply. Once a bot is welcomed no new connection can reach its
door; a bot that opens too many connections or floods without a welcome gets its door cut,
which is only its own loss.

The referee receives from the doors of the seats it waits for (``receive(ms, awaited)``, or
``receive_batch``: everything already queued on them, so one wake-up serves many turns), so no
other process's traffic can delay a seat's answer. ``receive_batch`` sleeps on the doors' file
descriptors (one epoll set) and reads only the doors that woke, each to the end. What the hub
holds for a peer that takes batches (``defer``/``flush``) goes out in one ``batch`` message.
A process may serve several games at once: its hello's ``max_games``, capped at
``MAX_GAMES_PER_PROCESS`` (``Peer.max_games``). Waiting for hellos (``admit``) keeps any
peer's message it reads for the next ``receive_batch``.

With a ``RemoteConfig`` the hub also listens on TCP for remote bots (``arena.procs.remote``): a
hello there with a database-issued token makes the connection an idle peer of that bot, which the
bot pool then claims for a label.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import select
import shutil
import tempfile
import time
from collections import deque
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import zmq

from arena.errors import BotStartError
from arena.procs.doors import MAX_HELLO_BYTES, Door, raise_fd_limit, read_hello
from arena.procs.remote import RemoteConfig, RemoteListener
from protocol import PROTOCOL_VERSION
from protocol.codec import MAX_BOT_MESSAGE, decode
from protocol.errors import MessageTooLarge, ProtocolError
from protocol.messages import ErrorCode, batch, error, validate_from_bot
from protocol.transport import RouterSocket, ipc_folder

#: Refused hellos logged as warnings; later ones are logged at debug level only.
WARN_REFUSALS = 5
#: ZeroMQ sockets the hub's context may hold (a door takes three: its own and its monitor's).
MAX_SOCKETS = 8192
#: Remote connections remembered as having had their one hello attempt.
REMOTE_STRANGERS = 4096
#: The most games one bot process is given at once, whatever its hello's ``max_games`` says.
MAX_GAMES_PER_PROCESS = 64
#: Messages read from one source in one ``receive_batch`` (a flooder cannot make it endless).
BATCH_PER_SOURCE = MAX_GAMES_PER_PROCESS + 8
#: Messages of one peer kept by ``admit`` for the driver (a peer owes at most max_games).
HELD_PER_PEER = MAX_GAMES_PER_PROCESS + 8
#: The longest message a welcomed peer that takes no batches may send: its only valid message,
#: an ``action``, is under 1.2 KB however it is encoded (widest msgpack headers, 256 four-byte
#: characters). Anything longer is malformed without being decoded: a flood of heavy messages
#: costs the referee no decoding time, which would delay the reading of other bots' answers. A
#: peer that takes batches may send up to the hub's bound (64 KiB: a ``batch`` of answers).
MAX_ANSWER_BYTES = 4096


def capped_max_games(value: object) -> int:
    """A hello's ``max_games`` as the arena honours it: absent -> 1, else 1..64."""
    if not isinstance(value, int) or isinstance(value, bool):
        return 1
    return min(max(1, value), MAX_GAMES_PER_PROCESS)


log = logging.getLogger(__name__)


@dataclass
class Peer:
    """A connected bot process (mutable: request counters and liveness change).

    ``peer_id`` is unique within the hub; ``route`` is the ZeroMQ routing id on ``router``.
    ``remote`` names the registered bot of a remote connection; ``door`` is a local bot's door.
    ``closed`` is set when the process is gone or the arena cut its connection (``cut``: why).
    ``max_games`` is how many games it serves at once (its hello's, capped); ``batch``: its
    hello said ``batch: true``, so what is held for it (``Hub.defer``) goes out in one message.
    """

    peer_id: bytes
    label: str
    name: str
    last_request: int = 0  # request ids sent to one peer are 1, 2, 3, ...
    closed: bool = False
    router: RouterSocket | None = None
    route: bytes = b""
    remote: str | None = None
    door: Door | None = None
    cut: str | None = None
    max_games: int = 1
    batch: bool = False


class Incoming(NamedTuple):
    """One message from a peer: either a valid map, or the protocol error it caused.

    A NamedTuple (immutable, and cheaper to build than a frozen dataclass: one per message).
    """

    peer: Peer
    message: dict[str, Any] | None
    problem: ProtocolError | None
    at: float


class _Got(NamedTuple):
    """One raw message: where it came from (a door, or None for the remote listener)."""

    door: Door | None
    route: bytes
    frames: list[bytes]
    user: str | None


def _carries_token(data: bytes, token: str) -> bool:
    """Whether a malformed hello (at most ``MAX_HELLO_BYTES``, msgpack or JSON) holds this
    door's token: then it is surely the bot's own."""
    if len(data) > MAX_HELLO_BYTES:
        return False
    try:
        value: Any = decode(data, max_bytes=MAX_HELLO_BYTES)
    except ProtocolError:
        try:
            value = json.loads(data)
        except (ValueError, RecursionError):
            return False
    found = value.get("token") if isinstance(value, dict) else None
    return isinstance(found, str) and secrets.compare_digest(found.encode(), token.encode())


def private_folder(endpoint: str | None) -> str:
    """The hub's folder for doors: the folder of an ``ipc://`` endpoint, or a fresh one.

    A fresh folder is mode 0711: others may pass through it to a door folder they own, not
    list it (door folders have random names and are 0700).
    """
    if endpoint is None:
        folder = tempfile.mkdtemp(prefix="arena-ipc-")
        os.chmod(folder, 0o711)
        return folder
    folder = ipc_folder(endpoint)
    if folder is None:
        raise ValueError(f"local bots reach the arena over ipc://, not {endpoint}")
    os.makedirs(folder, mode=0o700, exist_ok=True)
    return folder


class Hub:
    """The doors of local bots, the remote listener, and token and peer bookkeeping."""

    def __init__(
        self,
        endpoint: str | None = None,
        *,
        max_message_bytes: int = MAX_BOT_MESSAGE,
        remote: RemoteConfig | None = None,
    ) -> None:
        """``endpoint``: an ``ipc://`` path whose folder holds the doors (default: a fresh
        private folder, removed on ``close``)."""
        self.fd_limit = raise_fd_limit()
        self.context = zmq.Context()  # its own: three sockets per door, many doors
        self.context.max_sockets = MAX_SOCKETS
        self.folder = private_folder(endpoint)
        self._own_folder = endpoint is None
        self.max_message_bytes = max_message_bytes
        self.doors: dict[str, Door] = {}  # label -> its door
        self.peers: dict[bytes, Peer] = {}
        self.by_label: dict[str, Peer] = {}
        self.dropped = 0
        self.refused = 0
        self._rejected: dict[str, str] = {}
        self._refusals: dict[str, str] = {}  # label -> why its door's last hello was refused
        self.remote: RemoteListener | None = None
        self._idle: dict[str, list[Peer]] = {}  # remote bot name -> unclaimed peers
        self._remote_seen: dict[bytes, None] = {}  # remote strangers that had their hello
        self._cut_wanted = False  # set by watch threads: a door to cut
        self._sources: dict[zmq.Socket, Door | None] | None = None
        self._turn = 0
        self._next_door = 0
        # what ``defer`` holds: each peer's messages in order, by peer id
        self._outbox: dict[bytes, tuple[Peer, list[dict[str, Any]]]] | None = None
        self._held: deque[Incoming] = deque()  # peer messages read by ``admit``
        self._held_by: dict[bytes, int] = {}
        # ``receive_batch`` sleeps on the sources' file descriptors (ZeroMQ's ZMQ_FD, one
        # epoll set) and reads only those that woke; a source touched since it was last read
        # to the end (a send, a partial read) may hold messages its descriptor did not signal,
        # so it is read first (``_unread``).
        self._epoll = select.epoll()
        self._fds: dict[zmq.Socket, int] = {}
        self._by_fd: dict[int, zmq.Socket] = {}
        self._unread: set[zmq.Socket] = set()
        if remote is not None:
            try:
                self.remote = RemoteListener(remote, max_message_bytes=max_message_bytes)
            except BaseException:
                self._remove_folder()
                self.context.term()
                raise

    # -- doors and tokens -------------------------------------------------------------------

    def issue_token(self, label: str) -> str:
        """A fresh secret token for the process that will run ``label``, and its own door.

        Raises BotStartError if the door cannot be made (for example out of file descriptors).
        """
        self.revoke(label)
        token = secrets.token_hex(16)
        self._next_door += 1
        try:
            door = Door(
                key=self._next_door.to_bytes(4, "big"),
                label=label,
                token=token,
                parent=self.folder,
                max_message_bytes=self.max_message_bytes,
                on_cut=self._want_cut,
                context=self.context,
            )
        except (OSError, zmq.ZMQError, RuntimeError) as exc:
            raise BotStartError(f"no endpoint for {label!r}: {exc}", label=label) from None
        self.doors[label] = door
        self._rejected.pop(label, None)
        self._refusals.pop(label, None)
        self._sources = None
        return token

    def endpoint_of(self, label: str) -> str:
        """The ipc:// endpoint of ``label``'s door (issue a token first)."""
        return self.doors[label].endpoint

    def revoke(self, label: str) -> None:
        """Forget ``label``'s door and peer (its process ended); later messages from it drop."""
        door = self.doors.pop(label, None)
        if door is not None:
            self._unwatch(door.router.socket)
            door.close()
            self._sources = None
        peer = self.by_label.pop(label, None)
        if peer is not None:
            peer.closed = True
            self.peers.pop(peer.peer_id, None)

    def _want_cut(self) -> None:
        """(a watch thread) A door is to be cut: the next ``receive`` does it."""
        self._cut_wanted = True

    def _cut_doors(self) -> None:
        """Cut every door whose ``reason`` is set (and not yet cut)."""
        self._cut_wanted = False
        for door in list(self.doors.values()):
            if door.reason is not None and not door.unbound:
                self._cut(door)

    def _cut(self, door: Door) -> None:
        door.cut()
        self._sources = None
        peer = door.peer
        if peer is not None:
            peer.closed = True
            peer.cut = door.reason
        else:
            self._rejected[door.label] = door.reason or "its endpoint was closed"
        log.warning("closed the endpoint of %s: %s", door.label, door.reason)

    def claim_remote(self, label: str, bot: str) -> Peer | None:
        """A connected, unclaimed remote peer of ``bot``, now serving ``label`` (or None)."""
        waiting = self._idle.get(bot)
        if not waiting:
            return None
        peer = waiting.pop(0)
        peer.label = label
        self.by_label[label] = peer
        return peer

    def send(self, peer: Peer, message: dict[str, Any]) -> None:
        """Send one map to a peer (nothing if its connection is closed); while ``defer`` is
        on, it waits in order for ``flush``."""
        outbox = self._outbox
        if outbox is not None:
            held = outbox.get(peer.peer_id)
            if held is None:
                outbox[peer.peer_id] = (peer, [message])
            else:
                held[1].append(message)
        elif not peer.closed:
            peer.router.send(peer.route, message)
            self._unread.add(peer.router.socket)

    def defer(self) -> None:
        """Hold what is sent until ``flush``: the referee sends the turns of a whole batch in
        one burst, then waits (fewer wake-ups of its I/O thread and the bots mid-batch)."""
        if self._outbox is None:
            self._outbox = {}

    def flush(self) -> None:
        """Send what was held and stop holding: each peer's messages in order, and to a peer
        that takes batches, all that was held for it in one message (a ``batch``, or the
        message alone)."""
        outbox = self._outbox
        if outbox is None:
            return
        self._outbox = None
        unread = self._unread
        for peer, held in outbox.values():
            if peer.closed:
                continue
            router = peer.router
            if len(held) == 1:
                router.send(peer.route, held[0])
            elif peer.batch:
                router.send(peer.route, batch(held))
            else:
                for message in held:
                    router.send(peer.route, message)
            unread.add(router.socket)

    # -- receiving --------------------------------------------------------------------------

    def receive(self, timeout_ms: float, awaited: Sequence[Peer] | None = None) -> Incoming | None:
        """Wait up to ``timeout_ms`` for one message from a peer.

        With ``awaited``, only the doors of those peers are read (and the remote listener if
        one of them is remote); else every door. Hellos are handled here (answered with
        ``welcome`` or ``error``); messages from strangers are dropped. Returns None when the
        time is up, or at once after a door was cut.
        """
        if self._cut_wanted:
            self._cut_doors()
            return None
        deadline = time.monotonic() + timeout_ms / 1000.0
        if awaited is not None and len(awaited) == 1:
            single = awaited[0]
            if single.door is not None and not single.closed:
                return self._receive_one(single, deadline)
        sources = self._all_sources() if awaited is None else self._sources_of(awaited)
        items = [(socket, zmq.POLLIN) for socket in sources]
        if not items:  # nothing to read: wait only when not awaiting a seat
            if awaited is None:
                time.sleep(max(0.0, timeout_ms) / 1000.0)
            return None
        while True:
            remaining = (deadline - time.monotonic()) * 1000.0
            got = self._poll(items, sources, remaining)
            if got is None:
                return None
            incoming = self._handle(got)
            if incoming is not None:
                return incoming
            if self._cut_wanted or got.door is not None and got.door.reason is not None:
                self._cut_doors()
                return None
            if remaining <= 0:
                return None

    def admit(self, timeout_ms: float) -> None:
        """Handle hellos for up to ``timeout_ms`` (returns early on a message). A peer's
        message read meanwhile is kept for the next ``receive_batch``, never lost: another
        process's answers may arrive while a new process is awaited."""
        incoming = self.receive(timeout_ms)
        if incoming is None:
            return
        count = self._held_by.get(incoming.peer.peer_id, 0)
        if count >= HELD_PER_PEER:
            self.dropped += 1  # more than it can owe: a flood, its own loss
            return
        self._held_by[incoming.peer.peer_id] = count + 1
        self._held.append(incoming)

    def receive_batch(
        self, timeout_ms: float, awaited: Collection[Peer], *, most: int = BATCH_PER_SOURCE
    ) -> list[Incoming]:
        """Wait up to ``timeout_ms`` for messages from the ``awaited`` peers, then read every
        message already queued on their doors (at most ``most`` per door, and never more than
        ``BATCH_PER_SOURCE``), so one wake-up serves many turns. Each message is stamped when
        read, and all are read before any is decoded: a peer that floods heavy messages never
        delays another's stamp (its time). Hellos and strangers are handled as in ``receive``.

        ``most`` is what the caller knows the peers owe: with one game at a time each awaited
        peer owes one answer, and its door is read once (no look for more: a look is a call
        into ZeroMQ; one ``zmq_poll`` over the doors, as cheap as a sleep on their descriptors
        there); anything else it sent waits for the next call. With more owed, it sleeps on
        the doors' descriptors (one epoll set) and reads each door that woke to the end."""
        if self._cut_wanted:
            self._cut_doors()
        if len(awaited) == 1 and not self._held:
            (peer,) = awaited
            door = peer.door
            if door is not None and not peer.closed and not door.unbound:
                # one local peer: one blocking receive, as ``_receive_one``
                socket = door.router.socket
                self._unread.add(socket)  # whatever this leaves there is read next time
                got = door.router.recv_within(timeout_ms)
                if got is None:
                    return []
                at = time.monotonic()
                if most <= 1 and got[0] == peer.route:  # the hot path: its one answer
                    return [self._from_peer(peer, got[1], at)]
                raw: list[tuple[_Got, float]] = [(_Got(door, got[0], got[1], None), at)]
                if most > 1:
                    self._read_all(socket, door, raw, min(most, BATCH_PER_SOURCE) - 1)
                return self._after(raw, [])
        most = max(1, min(most, BATCH_PER_SOURCE))
        batch: list[Incoming] = []
        if self._held:
            batch.extend(self._held)
            self._held.clear()
            self._held_by.clear()
            timeout_ms = 0
        sources = self._sources_of(awaited)
        if not sources:
            return batch
        raw = []
        if most == 1:  # one game at a time: each door owes one answer, read by one poll
            items = [(socket, zmq.POLLIN) for socket in sources]
            ready = zmq.zmq_poll(items, max(0, int(timeout_ms)))
            self._unread.update(sources)  # the poll looked into them all (see ``_poll``)
            for socket, _ in ready:
                self._read_all(socket, sources[socket], raw, 1)
            return self._after(raw, batch)
        unread = self._unread
        fds = self._fds
        for socket, door in sources.items():
            if socket not in fds:
                self._watch(socket)
            if socket in unread:
                self._read_all(socket, door, raw, most)
        wait = 0.0 if raw or batch else max(0.0, timeout_ms) / 1000.0
        deadline = time.monotonic() + wait
        by_fd = self._by_fd
        while True:
            events = self._epoll.poll(wait)
            for fd, _ in events:
                socket = by_fd.get(fd)
                if socket is None:
                    continue
                if socket in sources:
                    self._read_all(socket, sources[socket], raw, most)
                else:  # not awaited now: its signal spent (no wake-up again for it), read later
                    socket.getsockopt(zmq.EVENTS)
                    unread.add(socket)
            wait = deadline - time.monotonic()
            if raw or not events or wait <= 0:
                return self._after(raw, batch)

    def _watch(self, socket: zmq.Socket) -> None:
        """Sleep on ``socket``'s ZMQ_FD in ``receive_batch`` from now on (it is read once
        first: what came before is not signalled)."""
        fd = socket.getsockopt(zmq.FD)
        self._epoll.register(fd, select.EPOLLIN)
        self._fds[socket] = fd
        self._by_fd[fd] = socket
        self._unread.add(socket)

    def _unwatch(self, socket: zmq.Socket) -> None:
        """Stop sleeping on ``socket`` (before it closes)."""
        fd = self._fds.pop(socket, None)
        self._unread.discard(socket)
        if fd is None:
            return
        self._by_fd.pop(fd, None)
        try:
            self._epoll.unregister(fd)
        except (OSError, ValueError):
            pass

    def _read_all(
        self, socket: zmq.Socket, door: Door | None, raw: list[tuple[_Got, float]], most: int
    ) -> None:
        """Read the messages queued on one source into ``raw`` (at most ``most``), each with
        its read time (decoded later), to the end: its descriptor signals only news after
        that. The end is seen by asking the socket whether more is queued (ZMQ_EVENTS, which
        re-arms the descriptor as a read that finds nothing does, without the cost of the
        exception such a read raises). A source left with messages stays ``_unread``."""
        router = self.remote.router if door is None else door.router
        for left in range(most - 1, -1, -1):
            try:
                if door is None:
                    got = _Got(None, *router.recv_with_user())
                else:
                    got = _Got(door, *router.recv(), None)
            except zmq.Again:
                self._unread.discard(socket)
                return
            raw.append((got, time.monotonic()))
            if left and not router.queued():
                self._unread.discard(socket)
                return
        self._unread.add(socket)

    def _after(self, raw: list[tuple[_Got, float]], batch: list[Incoming]) -> list[Incoming]:
        """Decode the messages read (a stranger's is handled), each with its read time."""
        for got, at in raw:
            incoming = self._handle(got, at)
            if incoming is not None:
                batch.append(incoming)
            elif got.door is not None and got.door.reason is not None:
                self._cut_wanted = True
        if self._cut_wanted:
            self._cut_doors()
        return batch

    def _receive_one(self, peer: Peer, deadline: float) -> Incoming | None:
        """The hot path: one awaited local peer, one blocking receive on its door."""
        door = peer.door
        router = door.router
        self._unread.add(router.socket)  # what this leaves there is read by receive_batch
        while True:
            remaining = (deadline - time.monotonic()) * 1000.0
            got = router.recv_within(remaining if remaining > 0 else 0)
            if got is None:
                return None
            route, frames = got
            if route == peer.route:
                return self._from_peer(peer, frames)
            self._from_stranger(_Got(door, route, frames, None))
            if door.reason is not None or self._cut_wanted:
                self._cut_doors()
                return None
            if remaining <= 0:
                return None

    def _all_sources(self) -> dict[zmq.Socket, Door | None]:
        if self._sources is None:
            sources: dict[zmq.Socket, Door | None] = {
                door.router.socket: door for door in self.doors.values() if not door.unbound
            }
            if self.remote is not None:
                sources[self.remote.router.socket] = None
            self._sources = sources
        return self._sources

    def _sources_of(self, awaited: Sequence[Peer]) -> dict[zmq.Socket, Door | None]:
        sources: dict[zmq.Socket, Door | None] = {}
        for peer in awaited:
            if peer.closed:
                continue
            if peer.door is not None:
                if not peer.door.unbound:
                    sources[peer.door.router.socket] = peer.door
            elif peer.remote is not None and self.remote is not None:
                sources[self.remote.router.socket] = None
        return sources

    def _poll(
        self, items: list, sources: dict[zmq.Socket, Door | None], remaining: float
    ) -> _Got | None:
        """One message from one of ``sources`` (ready sources take turns), or None."""
        ready = zmq.zmq_poll(items, max(0, int(remaining)))
        # the poll looked into every source (their signals may be spent) and one message is
        # read: whatever else is there, ``receive_batch`` reads first
        self._unread.update(sources)
        if not ready:
            return None
        self._turn += 1
        socket = ready[self._turn % len(ready)][0]
        door = sources[socket]
        if door is None:
            route, frames, user = self.remote.router.recv_with_user()
            return _Got(None, route, frames, user)
        route, frames = door.router.recv()
        return _Got(door, route, frames, None)

    def _handle(self, got: _Got, at: float | None = None) -> Incoming | None:
        """A peer's message as an Incoming (read at ``at``, default now); a stranger's
        handled here (None)."""
        if got.door is None:
            peer = self.peers.get(b"R" + got.route)
        else:
            peer = got.door.peer
            if peer is not None and peer.route != got.route:
                peer = None
        if peer is None:
            self._from_stranger(got)
            return None
        return self._from_peer(peer, got.frames, at)

    def _from_peer(self, peer: Peer, frames: list[bytes], at: float | None = None) -> Incoming:
        now = time.monotonic() if at is None else at
        if len(frames) != 1:
            return Incoming(
                peer, None, ProtocolError(f"a message is one frame, got {len(frames)}"), now
            )
        if len(frames[0]) > MAX_ANSWER_BYTES and not peer.batch:
            size = len(frames[0])
            return Incoming(
                peer,
                None,
                MessageTooLarge(f"{size} bytes: an action is under {MAX_ANSWER_BYTES}"),
                now,
            )
        try:
            message = decode(frames[0], max_bytes=self.max_message_bytes)
            kind = validate_from_bot(message)
        except ProtocolError as exc:
            return Incoming(peer, None, exc, now)
        if kind == "hello":
            return Incoming(peer, None, ProtocolError("hello sent twice"), now)
        if kind == "batch" and not peer.batch:
            return Incoming(
                peer, None, ProtocolError("a batch from a bot whose hello said no batch"), now
            )
        return Incoming(peer, message, None, now)

    # -- strangers and hellos ---------------------------------------------------------------

    def _refuse(
        self, router: RouterSocket, route: bytes, code: ErrorCode, text: str, *, door: bool = False
    ) -> None:
        """Answer a hello with an error. A refusal through a bot's own ``door`` is said by
        whoever started the bot (the check's report, the seat's fault), so it is logged at
        debug level; a remote stranger's is a warning (the first ``WARN_REFUSALS``)."""
        router.send(route, error(code, text))
        self.refused += 1
        level = logging.WARNING if self.refused <= WARN_REFUSALS and not door else logging.DEBUG
        log.log(level, "refused a hello: %s", text)

    def _from_stranger(self, got: _Got) -> None:
        door = got.door
        message = (
            door.stranger(got.route, got.frames) if door is not None else self._remote_stranger(got)
        )
        if message is None:
            self.dropped += 1
            return
        if isinstance(message, str):
            self._bad_hello(got, message)
        elif door is None:
            self._remote_hello(got, message)
        else:
            self._local_hello(door, got.route, message)

    def _remote_stranger(self, got: _Got) -> dict[str, Any] | str | None:
        """The hello in a remote stranger's message, or what is wrong with it: only a
        connection's first message counts (the connections remembered are bounded: the
        oldest are forgotten first)."""
        if got.route in self._remote_seen:
            return None
        if len(self._remote_seen) >= REMOTE_STRANGERS:
            del self._remote_seen[next(iter(self._remote_seen))]
        self._remote_seen[got.route] = None
        return read_hello(got.frames)

    def _bad_hello(self, got: _Got, problem: str) -> None:
        """A connection's first message is no valid hello: one ``bad-hello`` answer. Through a
        door, the reason is kept for the bot's author; a message carrying the door's own
        token is surely the bot's, so the bot is refused at once (as for a wrong version)."""
        door = got.door
        router = door.router if door is not None else self.remote.router
        self._refuse(router, got.route, ErrorCode.BAD_HELLO, problem, door=door is not None)
        if door is None:
            return
        self._refusals[door.label] = f"{ErrorCode.BAD_HELLO.value}: {problem}"
        if door.peer is None and got.frames and _carries_token(got.frames[0], door.token):
            door.shut()
            self._rejected[door.label] = f"{ErrorCode.BAD_HELLO.value}: {problem}"

    def _local_hello(self, door: Door, route: bytes, message: dict[str, Any]) -> None:
        if (
            door.peer is not None
            or door.label in self._rejected
            or not secrets.compare_digest(message["token"].encode(), door.token.encode())
        ):
            self._refuse(
                door.router, route, ErrorCode.BAD_TOKEN, "unknown or used token", door=True
            )
            self._refusals[door.label] = (
                f"{ErrorCode.BAD_TOKEN.value}: its token is not the ARENA_TOKEN it was "
                "given, or was used already"
            )
            return
        door.shut()  # the token is used: no new connection from now on
        if message["protocol"] != PROTOCOL_VERSION:
            said = (
                f"protocol {message['protocol']} is not supported; this arena "
                f"speaks {PROTOCOL_VERSION}"
            )
            self._refuse(door.router, route, ErrorCode.BAD_PROTOCOL, said, door=True)
            self._rejected[door.label] = f"{ErrorCode.BAD_PROTOCOL.value}: {said}"
            return
        peer = Peer(
            peer_id=door.key + route,
            label=door.label,
            name=message["name"],
            router=door.router,
            route=route,
            door=door,
            max_games=capped_max_games(message.get("max_games", 1)),
            batch=message.get("batch") is True,
        )
        door.peer = peer
        self.peers[peer.peer_id] = peer
        self.by_label[door.label] = peer
        door.router.send(route, {"type": "welcome", "protocol": PROTOCOL_VERSION})

    def _remote_hello(self, got: _Got, message: dict[str, Any]) -> None:
        router = self.remote.router
        bot = self.remote.claim(message["token"], got.user)
        if bot is None:
            self._refuse(router, got.route, ErrorCode.BAD_TOKEN, "unknown or used token")
            return
        if message["protocol"] != PROTOCOL_VERSION:
            self._refuse(
                router,
                got.route,
                ErrorCode.BAD_PROTOCOL,
                f"protocol {message['protocol']} is not supported; this arena "
                f"speaks {PROTOCOL_VERSION}",
            )
            return
        peer = Peer(
            peer_id=b"R" + got.route,
            label=f"remote:{bot}",
            name=message["name"],
            router=router,
            route=got.route,
            remote=bot,
            max_games=capped_max_games(message.get("max_games", 1)),
            batch=message.get("batch") is True,
        )
        self.peers[peer.peer_id] = peer
        self._idle.setdefault(bot, []).append(peer)
        log.info("remote bot %s connected", bot)
        router.send(got.route, {"type": "welcome", "protocol": PROTOCOL_VERSION})

    def rejection(self, label: str) -> str | None:
        """Why the hello for ``label`` was refused, or its door cut before a welcome."""
        if self._cut_wanted:
            self._cut_doors()
        return self._rejected.get(label)

    def refusal(self, label: str) -> str | None:
        """Why the last hello through ``label``'s door was refused (``code: reason``), even
        when that did not end the bot's chance (a wrong token may come from anyone who
        reaches the door), or None."""
        return self._refusals.get(label)

    def _remove_folder(self) -> None:
        if self._own_folder:
            shutil.rmtree(self.folder, ignore_errors=True)

    def close(self) -> None:
        for label in list(self.doors):
            self.revoke(label)
        self._epoll.close()
        if self.remote is not None:
            self.remote.close()
        self._remove_folder()
        self.context.destroy(linger=0)
