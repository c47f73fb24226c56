"""The arena's end of the wire: one ROUTER socket, tokens, and the peers that said hello.

Each bot process gets a secret single-use token. A ``hello`` with a known, unused token and the
right protocol version makes its sender a peer; a bad hello gets an ``error`` reply and nothing
else. Every other message from a sender that is not a peer is dropped without a reply.
"""

from __future__ import annotations

import logging
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

from protocol import PROTOCOL_VERSION
from protocol.codec import MAX_BOT_MESSAGE, decode
from protocol.errors import ProtocolError
from protocol.messages import ErrorCode, error, validate_from_bot
from protocol.transport import RouterSocket

log = logging.getLogger(__name__)


@dataclass
class Peer:
    """A connected bot process (mutable: request counters and liveness change)."""

    peer_id: bytes
    label: str
    name: str
    max_games: int = 1
    last_request: int = 0      # request ids sent to one peer are 1, 2, 3, ...
    closed: bool = False


@dataclass(frozen=True)
class Incoming:
    """One message from a peer: either a valid map, or the protocol error it caused."""

    peer: Peer
    message: dict[str, Any] | None
    problem: ProtocolError | None
    at: float


@dataclass
class _Token:
    label: str
    used: bool = False


class Hub:
    """The ROUTER socket plus token and peer bookkeeping."""

    def __init__(self, endpoint: str | None = None, *,
                 max_message_bytes: int = MAX_BOT_MESSAGE) -> None:
        self.router = RouterSocket(endpoint, max_message_bytes=max_message_bytes)
        self.endpoint = self.router.endpoint
        self.max_message_bytes = max_message_bytes
        self._tokens: dict[str, _Token] = {}
        self.peers: dict[bytes, Peer] = {}
        self.by_label: dict[str, Peer] = {}
        self.dropped = 0
        self._rejected: dict[str, str] = {}

    def issue_token(self, label: str) -> str:
        """A fresh secret token for the process that will run ``label``."""
        token = secrets.token_hex(16)
        self._tokens[token] = _Token(label)
        return token

    def revoke(self, label: str) -> None:
        """Forget the peer for ``label`` (its process ended); later messages from it drop."""
        peer = self.by_label.pop(label, None)
        if peer is not None:
            peer.closed = True
            self.peers.pop(peer.peer_id, None)

    def send(self, peer: Peer, message: dict[str, Any]) -> None:
        self.router.send(peer.peer_id, message)

    def receive(self, timeout_ms: float) -> Incoming | None:
        """Wait up to ``timeout_ms`` for one message from a peer.

        Hellos are handled here (answered with ``welcome`` or ``error``); messages from
        unknown senders are dropped. Returns None when the time is up.
        """
        deadline = time.monotonic() + timeout_ms / 1000.0
        router = self.router
        while True:
            remaining = (deadline - time.monotonic()) * 1000.0
            if not router.poll(remaining if remaining > 0 else 0):
                return None
            peer_id, frames = router.recv()
            now = time.monotonic()
            peer = self.peers.get(peer_id)
            if peer is None:
                self._from_stranger(peer_id, frames)
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

    def _from_stranger(self, peer_id: bytes, frames: list[bytes]) -> None:
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
        token = self._tokens.get(message["token"])
        if token is None or token.used:
            self.router.send(peer_id, error(ErrorCode.BAD_TOKEN, "unknown or used token"))
            log.warning("refused a hello with an unknown or used token")
            return
        if message["protocol"] != PROTOCOL_VERSION:
            self.router.send(peer_id, error(
                ErrorCode.BAD_PROTOCOL,
                f"protocol {message['protocol']} is not supported; this arena speaks "
                f"{PROTOCOL_VERSION}"))
            token.used = True
            self._rejected[token.label] = f"wrong protocol version {message['protocol']}"
            return
        token.used = True
        peer = Peer(peer_id=peer_id, label=token.label, name=message["name"],
                    max_games=message.get("max_games", 1))
        self.peers[peer_id] = peer
        self.by_label[token.label] = peer
        self.router.send(peer_id, {"type": "welcome", "protocol": PROTOCOL_VERSION})

    def rejection(self, label: str) -> str | None:
        """Why the hello for ``label`` was refused, if it was."""
        return self._rejected.get(label)

    def close(self) -> None:
        self.router.close()
