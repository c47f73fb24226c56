"""ZeroMQ transport: the arena's ROUTER side and a bot's DEALER side.

The arena binds one ROUTER socket; each bot process connects one DEALER socket and sends one
msgpack map per message. ZeroMQ's MAXMSGSIZE makes the ROUTER drop a peer that sends an
oversized frame before it is ever buffered whole, and a small receive high-water mark bounds
what a flooding peer can make the arena buffer.

Over TCP the connection may use ZeroMQ CURVE: the ROUTER is then a CURVE server with the
arena's secret key, and a bot's DEALER a CURVE client that knows the server's public key and
has its own key pair (all keys as 40-character Z85 text).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from typing import Any

import zmq

from protocol.codec import (
    MAX_ARENA_MESSAGE,
    MAX_BOT_MESSAGE,
    decode,
    decode_without_views,
    encode,
    pack_fast,
)

#: Messages a peer may have waiting in the arena before ZeroMQ stops reading from it.
RECEIVE_HWM = 100
#: Name of the socket file in a hub's private IPC folder.
IPC_SOCKET = "hub.sock"
#: ZAP domain of the arena's CURVE server socket.
ZAP_DOMAIN = "arena"


#: Plain int flags: pyzmq's IntFlag arithmetic costs more than the send itself here.
_NOBLOCK = int(zmq.NOBLOCK)
_MORE_NOBLOCK = int(zmq.SNDMORE) | int(zmq.NOBLOCK)
#: pyzmq's compiled send, called directly on the hot path: its Python layer over it (for
#: options the protocol never uses) costs more than the send itself. Every socket here is a
#: pyzmq socket, a subclass of this one.
fast_send = zmq.backend.Socket.send
#: pyzmq's compiled option getter, and the plain ints of ZMQ_EVENTS and its POLLIN bit.
fast_get = zmq.backend.Socket.get
_EVENTS = int(zmq.EVENTS)
_POLLIN = int(zmq.POLLIN)


def _rest(socket: zmq.Socket) -> list[bytes]:
    """The frames of a ROUTER message after its peer id (there is always one more). A frame
    says itself whether more follow: reading ZMQ_RCVMORE costs an enum lookup in pyzmq."""
    frame = socket.recv(copy=False)
    frames = [frame.bytes]
    while frame.more:
        frame = socket.recv(copy=False)
        frames.append(frame.bytes)
    return frames


def default_endpoint() -> str:
    """A fresh local IPC endpoint: a socket file in a new private (0700) temp folder."""
    folder = tempfile.mkdtemp(prefix="arena-ipc-")
    return f"ipc://{os.path.join(folder, IPC_SOCKET)}"


def ipc_folder(endpoint: str) -> str | None:
    """The folder of an ``ipc://`` endpoint's socket file (None for other transports)."""
    if not endpoint.startswith("ipc://"):
        return None
    return os.path.dirname(os.path.abspath(endpoint[len("ipc://") :]))


def curve_client(socket: zmq.Socket, *, server_key: str, public_key: str, secret_key: str) -> None:
    """Make ``socket`` a CURVE client (call before ``connect``). Keys are Z85 text."""
    socket.curve_serverkey = server_key.encode("ascii")
    socket.curve_publickey = public_key.encode("ascii")
    socket.curve_secretkey = secret_key.encode("ascii")


class RouterSocket:
    """The arena's ROUTER socket. Receives ``(peer_id, payload)`` pairs; sends maps to peers."""

    def __init__(
        self,
        endpoint: str | None = None,
        *,
        max_message_bytes: int = MAX_BOT_MESSAGE,
        context: zmq.Context | None = None,
        curve_secret: str | None = None,
        receive_hwm: int = RECEIVE_HWM,
        backlog: int | None = None,
    ) -> None:
        """``backlog`` bounds connections waiting to be accepted (ZeroMQ's default: 100)."""
        pack_fast()  # the arena's socket: it sends the views
        self.context = context or zmq.Context.instance()
        self.socket = self.context.socket(zmq.ROUTER)
        self.socket.setsockopt(zmq.LINGER, 0)
        self.socket.setsockopt(zmq.MAXMSGSIZE, max_message_bytes)
        self.socket.setsockopt(zmq.ROUTER_MANDATORY, 0)
        self.socket.setsockopt(zmq.RCVHWM, receive_hwm)
        self.socket.setsockopt(zmq.SNDHWM, 1000)
        if backlog is not None:
            self.socket.setsockopt(zmq.BACKLOG, backlog)
        if curve_secret is not None:
            self.socket.curve_server = True
            self.socket.curve_secretkey = curve_secret.encode("ascii")
            self.socket.zap_domain = ZAP_DOMAIN.encode()
        self.max_message_bytes = max_message_bytes
        requested = endpoint or default_endpoint()
        if requested.startswith("tcp://") and requested.endswith(":0"):
            requested = requested[:-2] + ":*"
        try:
            self.socket.bind(requested)
        except zmq.ZMQError:
            self.socket.close(linger=0)
            raise
        self.endpoint: str = self.socket.getsockopt_string(zmq.LAST_ENDPOINT)
        self._poller = zmq.Poller()
        self._poller.register(self.socket, zmq.POLLIN)
        self._rcvtimeo = -1

    def poll(self, timeout_ms: float) -> bool:
        """Wait up to ``timeout_ms`` for a message; True if one is ready."""
        # a persistent Poller: Socket.poll would build and register a new one on every call
        return bool(self._poller.poll(max(0, int(timeout_ms))))

    def recv_within(self, timeout_ms: float) -> tuple[bytes, list[bytes]] | None:
        """Wait up to ``timeout_ms`` for one message; None on timeout.

        One blocking receive with a receive timeout: a single libzmq call, where poll and
        then receive would be two (syscalls are the dearest part of a decision here).
        """
        socket = self.socket
        timeout = max(0, int(timeout_ms))
        if timeout != self._rcvtimeo:
            socket.rcvtimeo = timeout
            self._rcvtimeo = timeout
        try:
            peer = socket.recv()
        except zmq.Again:
            return None
        return peer, _rest(socket)

    def recv(self) -> tuple[bytes, list[bytes]]:
        """One waiting message: the peer id and the remaining frames (non-blocking; raises
        zmq.Again if none is waiting). Plain int flags, as in ``recv_within``."""
        socket = self.socket
        peer = socket.recv(_NOBLOCK)
        return peer, _rest(socket)

    def queued(self) -> bool:
        """Whether a message waits to be read (ZMQ_EVENTS: like a read, it processes the
        socket's commands, so its ZMQ_FD signals only what arrives after; where nothing
        waits it costs a third of a read that raises ``zmq.Again``)."""
        return bool(fast_get(self.socket, _EVENTS) & _POLLIN)

    def recv_with_user(self) -> tuple[bytes, list[bytes], str | None]:
        """Like ``recv``, plus the ZAP User-Id of the connection (the CURVE client key)."""
        frames = self.socket.recv_multipart(zmq.NOBLOCK, copy=False)
        try:
            user = frames[-1].get("User-Id") or None
        except (zmq.ZMQError, KeyError):
            user = None
        return frames[0].bytes, [frame.bytes for frame in frames[1:]], user

    def send(self, peer: bytes, message: dict[str, Any]) -> None:
        """Send one map to a peer; silently dropped if the peer is gone."""
        payload = encode(message)
        socket = self.socket
        try:
            fast_send(socket, peer, _MORE_NOBLOCK)
            fast_send(socket, payload, _NOBLOCK)
        except zmq.Again:
            pass

    def unbind(self) -> None:
        """Stop listening: close the endpoint and every connection made through it."""
        try:
            self.socket.unbind(self.endpoint)
        except zmq.ZMQError:
            pass  # already unbound

    def close(self) -> None:
        self.socket.close(linger=0)
        folder = ipc_folder(self.endpoint)
        if folder is not None:
            try:
                os.unlink(self.endpoint[len("ipc://") :])
            except OSError:
                pass
            if os.path.basename(folder).startswith("arena-ipc-"):
                shutil.rmtree(folder, ignore_errors=True)


class DealerSocket:
    """A bot's DEALER socket connected to the arena."""

    def __init__(
        self,
        endpoint: str,
        *,
        max_message_bytes: int = MAX_ARENA_MESSAGE,
        context: zmq.Context | None = None,
        curve: tuple[str, str, str] | None = None,
    ) -> None:
        """``curve`` is ``(server public key, own public key, own secret key)`` (Z85 text)."""
        self.context = context or zmq.Context.instance()
        self.socket = self.context.socket(zmq.DEALER)
        self.socket.setsockopt(zmq.LINGER, 1000)
        self.socket.setsockopt(zmq.MAXMSGSIZE, max_message_bytes)
        self.max_message_bytes = max_message_bytes
        if curve is not None:
            server_key, public_key, secret_key = curve
            curve_client(
                self.socket, server_key=server_key, public_key=public_key, secret_key=secret_key
            )
        self.socket.connect(endpoint)

    def send(self, message: dict[str, Any]) -> None:
        self.socket.send(encode(message))

    def recv(self, timeout_ms: int | None = None, *, views: bool = True) -> dict[str, Any] | None:
        """The next message as a map, or None on timeout; with ``views`` False, its views are
        not decoded (``protocol.codec.decode_without_views``)."""
        if timeout_ms is not None and not self.socket.poll(timeout_ms, zmq.POLLIN):
            return None
        data = self.socket.recv()
        if views:
            return decode(data, max_bytes=self.max_message_bytes)
        return decode_without_views(data, max_bytes=self.max_message_bytes)

    def close(self) -> None:
        self.socket.close()
