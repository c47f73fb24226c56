"""The arena's end of the wire: one ROUTER socket, tokens, and the peers that said hello.

Each bot process gets a secret single-use token. A ``hello`` with a known, unused token and the
right protocol version makes its sender a peer; a bad hello gets an ``error`` reply and nothing
else. Every other message from a sender that is not a peer is dropped without a reply.
Tokens are forgotten once used, so the token table holds only tokens still waiting for their
process.

With a ``RemoteConfig`` the hub also listens on TCP for remote bots (``arena.remote``): a hello
there with a database-issued token makes the connection an idle peer of that bot, which the
bot pool then claims for a label.
"""

from __future__ import annotations

import logging
import secrets
import time
from dataclasses import dataclass
from typing import Any, NamedTuple

import zmq

from arena.remote import RemoteConfig, RemoteListener
from protocol import PROTOCOL_VERSION
from protocol.codec import MAX_BOT_MESSAGE, decode
from protocol.errors import ProtocolError
from protocol.messages import ErrorCode, error, validate_from_bot
from protocol.transport import RouterSocket

#: Refused hellos logged as warnings; later ones are logged at debug level only.
WARN_REFUSALS = 5

log = logging.getLogger(__name__)


@dataclass
class Peer:
    """A connected bot process (mutable: request counters and liveness change).

    ``peer_id`` is unique within the hub; ``route`` is the ZeroMQ routing id on ``router``.
    ``remote`` names the registered bot of a remote connection.
    """

    peer_id: bytes
    label: str
    name: str
    max_games: int = 1
    last_request: int = 0      # request ids sent to one peer are 1, 2, 3, ...
    closed: bool = False
    router: RouterSocket | None = None
    route: bytes = b""
    remote: str | None = None


class Incoming(NamedTuple):
    """One message from a peer: either a valid map, or the protocol error it caused.

    A NamedTuple (immutable, and cheaper to build than a frozen dataclass: one per message).
    """

    peer: Peer
    message: dict[str, Any] | None
    problem: ProtocolError | None
    at: float


class Hub:
    """The ROUTER socket plus token and peer bookkeeping."""

    def __init__(self, endpoint: str | None = None, *,
                 max_message_bytes: int = MAX_BOT_MESSAGE,
                 remote: RemoteConfig | None = None) -> None:
        self.router = RouterSocket(endpoint, max_message_bytes=max_message_bytes)
        self.endpoint = self.router.endpoint
        self.max_message_bytes = max_message_bytes
        self._tokens: dict[str, str] = {}           # unused token -> label
        self._token_of: dict[str, str] = {}         # label -> its unused token
        self.peers: dict[bytes, Peer] = {}
        self.by_label: dict[str, Peer] = {}
        self.dropped = 0
        self.refused = 0
        self._rejected: dict[str, str] = {}
        self.remote: RemoteListener | None = None
        self._idle: dict[str, list[Peer]] = {}      # remote bot name -> unclaimed peers
        self._poller: zmq.Poller | None = None
        self._turn = False
        if remote is not None:
            try:
                self.remote = RemoteListener(remote, max_message_bytes=max_message_bytes)
            except BaseException:
                self.router.close()
                raise
            self._poller = zmq.Poller()
            self._poller.register(self.router.socket, zmq.POLLIN)
            self._poller.register(self.remote.router.socket, zmq.POLLIN)

    def issue_token(self, label: str) -> str:
        """A fresh secret token for the process that will run ``label``."""
        self._forget_token(label)
        token = secrets.token_hex(16)
        self._tokens[token] = label
        self._token_of[label] = token
        self._rejected.pop(label, None)
        return token

    def _forget_token(self, label: str) -> None:
        token = self._token_of.pop(label, None)
        if token is not None:
            self._tokens.pop(token, None)

    def revoke(self, label: str) -> None:
        """Forget the peer for ``label`` (its process ended); later messages from it drop."""
        self._forget_token(label)
        peer = self.by_label.pop(label, None)
        if peer is not None:
            peer.closed = True
            self.peers.pop(peer.peer_id, None)

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
        peer.router.send(peer.route, message)

    def _ready(self, timeout_ms: float) -> RouterSocket | None:
        if self._poller is None:
            return self.router if self.router.poll(timeout_ms) else None
        events = self._poller.poll(max(0, int(timeout_ms)))
        if not events:
            return None
        self._turn = not self._turn     # both ready: take turns, so neither starves the other
        socket = events[-1 if self._turn else 0][0]
        return self.router if socket is self.router.socket else self.remote.router

    def receive(self, timeout_ms: float) -> Incoming | None:
        """Wait up to ``timeout_ms`` for one message from a peer.

        Hellos are handled here (answered with ``welcome`` or ``error``); messages from
        unknown senders are dropped. Returns None when the time is up.
        """
        deadline = time.monotonic() + timeout_ms / 1000.0
        local = self.router
        while True:
            remaining = (deadline - time.monotonic()) * 1000.0
            user = None
            if self._poller is None:        # one socket: a single blocking receive
                got = local.recv_within(remaining if remaining > 0 else 0)
                if got is None:
                    return None
                router = local
                peer_id, frames = got
                route = peer_id
            elif (router := self._ready(remaining if remaining > 0 else 0)) is None:
                return None
            elif router is local:
                peer_id, frames = router.recv()
                route = peer_id
            else:
                route, frames, user = router.recv_with_user()
                peer_id = b"R" + route
            now = time.monotonic()
            peer = self.peers.get(peer_id)
            if peer is None:
                self._from_stranger(router, peer_id, route, frames, user)
                if remaining <= 0:
                    return None
                continue
            if len(frames) != 1:
                return Incoming(peer, None, ProtocolError(
                    f"a message is one frame, got {len(frames)}"), now)
            try:
                message = decode(frames[0], max_bytes=self.max_message_bytes)
                kind = validate_from_bot(message)
            except ProtocolError as exc:
                return Incoming(peer, None, exc, now)
            if kind == "hello":
                return Incoming(peer, None, ProtocolError("hello sent twice"), now)
            return Incoming(peer, message, None, now)

    def _refuse(self, router: RouterSocket, route: bytes, code: ErrorCode, text: str) -> None:
        router.send(route, error(code, text))
        self.refused += 1
        level = logging.WARNING if self.refused <= WARN_REFUSALS else logging.DEBUG
        log.log(level, "refused a hello: %s", text)

    def _from_stranger(self, router: RouterSocket, peer_id: bytes, route: bytes,
                       frames: list[bytes], user: str | None) -> None:
        if len(frames) != 1:
            self.dropped += 1
            return
        try:
            message = decode(frames[0], max_bytes=self.max_message_bytes)
            kind = validate_from_bot(message)
        except ProtocolError:
            self.dropped += 1
            log.debug("dropped a malformed message from an unknown peer")
            return
        if kind != "hello":
            self.dropped += 1
            log.debug("dropped a %s from an unknown peer", kind)
            return
        remote = router is not self.router
        if remote:
            label, bot = None, self.remote.claim(message["token"], user)
            known = bot is not None
        else:
            label, bot = self._tokens.get(message["token"]), None
            known = label is not None
        if not known:
            self._refuse(router, route, ErrorCode.BAD_TOKEN, "unknown or used token")
            return
        if label is not None:
            self._forget_token(label)       # single use: a token is gone once presented
        if message["protocol"] != PROTOCOL_VERSION:
            self._refuse(router, route, ErrorCode.BAD_PROTOCOL,
                         f"protocol {message['protocol']} is not supported; this arena "
                         f"speaks {PROTOCOL_VERSION}")
            if label is not None:
                self._rejected[label] = f"wrong protocol version {message['protocol']}"
            return
        peer = Peer(peer_id=peer_id, label=label or f"remote:{bot}", name=message["name"],
                    max_games=message.get("max_games", 1), router=router, route=route,
                    remote=bot)
        self.peers[peer_id] = peer
        if remote:
            self._idle.setdefault(bot, []).append(peer)
            log.info("remote bot %s connected", bot)
        else:
            self.by_label[label] = peer
        router.send(route, {"type": "welcome", "protocol": PROTOCOL_VERSION})

    def rejection(self, label: str) -> str | None:
        """Why the hello for ``label`` was refused, if it was."""
        return self._rejected.get(label)

    def close(self) -> None:
        self.router.close()
        if self.remote is not None:
            self.remote.close()
