"""ZeroMQ transport: the arena's ROUTER side and a bot's DEALER side.

The arena binds one ROUTER socket; each bot process connects one DEALER socket and sends one
msgpack map per message. ZeroMQ's MAXMSGSIZE makes the ROUTER drop a peer that sends an
oversized frame before it is ever buffered whole.
"""

from __future__ import annotations

import os
import tempfile
import uuid
from typing import Any

import zmq

from protocol.codec import MAX_ARENA_MESSAGE, MAX_BOT_MESSAGE, decode, encode


def default_endpoint() -> str:
    """A fresh local IPC endpoint (a socket file in the temp folder)."""
    folder = tempfile.gettempdir()
    return f"ipc://{os.path.join(folder, 'arena-' + uuid.uuid4().hex[:12] + '.sock')}"


class RouterSocket:
    """The arena's ROUTER socket. Receives ``(peer_id, payload)`` pairs; sends maps to peers."""

    def __init__(self, endpoint: str | None = None, *, max_message_bytes: int = MAX_BOT_MESSAGE,
                 context: zmq.Context | None = None) -> None:
        self.context = context or zmq.Context.instance()
        self.socket = self.context.socket(zmq.ROUTER)
        self.socket.setsockopt(zmq.LINGER, 0)
        self.socket.setsockopt(zmq.MAXMSGSIZE, max_message_bytes)
        self.socket.setsockopt(zmq.ROUTER_MANDATORY, 0)
        self.socket.setsockopt(zmq.RCVHWM, 1000)
        self.socket.setsockopt(zmq.SNDHWM, 1000)
        self.max_message_bytes = max_message_bytes
        requested = endpoint or default_endpoint()
        if requested.startswith("tcp://") and requested.endswith(":0"):
            requested = requested[:-2] + ":*"
        self.socket.bind(requested)
        self.endpoint: str = self.socket.getsockopt_string(zmq.LAST_ENDPOINT)
        self._poller = zmq.Poller()
        self._poller.register(self.socket, zmq.POLLIN)

    def poll(self, timeout_ms: float) -> bool:
        """Wait up to ``timeout_ms`` for a message; True if one is ready."""
        return bool(self.socket.poll(max(0, int(timeout_ms)), zmq.POLLIN))

    def recv(self) -> tuple[bytes, list[bytes]]:
        """One waiting message: the peer id and the remaining frames (non-blocking)."""
        frames = self.socket.recv_multipart(zmq.NOBLOCK, copy=True)
        return frames[0], frames[1:]

    def send(self, peer: bytes, message: dict[str, Any]) -> None:
        """Send one map to a peer; silently dropped if the peer is gone."""
        try:
            self.socket.send_multipart((peer, encode(message)), zmq.NOBLOCK)
        except zmq.Again:
            pass

    def send_raw(self, peer: bytes, payload: bytes) -> None:
        try:
            self.socket.send_multipart((peer, payload), zmq.NOBLOCK)
        except zmq.Again:
            pass

    def close(self) -> None:
        self.socket.close(linger=0)
        if self.endpoint.startswith("ipc://"):
            path = self.endpoint[len("ipc://"):]
            try:
                os.unlink(path)
            except OSError:
                pass


class DealerSocket:
    """A bot's DEALER socket connected to the arena."""

    def __init__(self, endpoint: str, *, max_message_bytes: int = MAX_ARENA_MESSAGE,
                 context: zmq.Context | None = None) -> None:
        self.context = context or zmq.Context.instance()
        self.socket = self.context.socket(zmq.DEALER)
        self.socket.setsockopt(zmq.LINGER, 1000)
        self.socket.setsockopt(zmq.MAXMSGSIZE, max_message_bytes)
        self.max_message_bytes = max_message_bytes
        self.socket.connect(endpoint)

    def send(self, message: dict[str, Any]) -> None:
        self.socket.send(encode(message))

    def recv(self, timeout_ms: int | None = None) -> dict[str, Any] | None:
        """The next message as a map, or None on timeout."""
        if timeout_ms is not None and not self.socket.poll(timeout_ms, zmq.POLLIN):
            return None
        return decode(self.socket.recv(), max_bytes=self.max_message_bytes)

    def close(self) -> None:
        self.socket.close()
