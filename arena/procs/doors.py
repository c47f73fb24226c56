"""Each bot process's own way into the hub: a private ipc:// endpoint that closes behind it.

A **door** is one ROUTER socket bound at ``ipc://HUB/bot-XXXX/bot.sock``, in a folder of its own
(mode 0700) that the sandbox binds into that bot's namespace and nothing else: no bot can reach
another bot's door. Everything that arrives through a door is that bot's doing.

- Once the bot has said hello (or was refused), the socket file is made unusable
  (``chmod 000``, which holds for any hard link too) and removed: no new connection is possible,
  while the bot's own connection stays.
- A ``ConnectionWatch`` thread counts the connections ZeroMQ accepts on the door (a socket
  monitor). Beyond ``MAX_CONNECTIONS`` it removes the socket file at once, from its own thread,
  and asks the hub to **cut** the door (unbind it: every connection through it is closed).
- A connection that is not the bot's welcomed one is a **stranger**: its first message is read
  as a hello (decoded only if it fits in ``MAX_HELLO_BYTES``; ``read_hello`` says what is wrong
  with a bad one, for the hub's one ``error`` answer); later ones are dropped unread; a
  stranger that sends more than ``STRANGER_MESSAGES`` gets the door cut.

Cutting a door is only ever that bot's loss. ``raise_fd_limit`` lifts this process's soft limit
of open files to its hard limit (ZeroMQ aborts the process when accepting a connection fails
with EMFILE, so the limit must never be reached).
"""

from __future__ import annotations

import logging
import os
import resource
import shutil
import struct
import tempfile
import threading
from collections.abc import Callable
from typing import Any

import zmq

from protocol.codec import decode
from protocol.errors import ProtocolError
from protocol.messages import MAX_NAME, MAX_TOKEN, validate_from_bot
from protocol.transport import RouterSocket

log = logging.getLogger(__name__)

#: Name of the socket file in a door's folder.
BOT_SOCKET = "bot.sock"
#: Connections a door accepts over its life; one more and it is cut. A bot needs one.
MAX_CONNECTIONS = 3
#: Connections waiting to be accepted on a door (the kernel's listen backlog).
DOOR_BACKLOG = 4
#: Messages one connection may have waiting in the arena before ZeroMQ stops reading it.
DOOR_HWM = 8
#: Messages read from one stranger connection; one more and the door is cut.
STRANGER_MESSAGES = 8


def max_hello_bytes() -> int:
    """The longest encoding of a valid hello, whatever msgpack headers its sender picks.

    A map32 header; each key and string value a str32 (5-byte header) with 4 UTF-8 bytes per
    character at its length bound (``MAX_TOKEN``, ``MAX_NAME``); each integer 9 bytes, the
    boolean one.
    """
    keys = ("type", "protocol", "token", "name", "max_games", "batch")
    strings = (len("hello"), 4 * MAX_TOKEN, 4 * MAX_NAME)
    integers = 2  # protocol, max_games
    booleans = 1  # batch
    return (
        5
        + sum(5 + len(key) for key in keys)
        + sum(5 + n for n in strings)
        + 9 * integers
        + booleans
    )


#: Frames from strangers longer than this are dropped without being decoded.
MAX_HELLO_BYTES = max_hello_bytes()


def read_hello(frames: list[bytes]) -> dict[str, Any] | str:
    """The valid hello in a stranger's first message, or what is wrong with it, in the
    protocol's words (the ``message`` of a ``bad-hello`` error). A message that is not one
    frame of at most ``MAX_HELLO_BYTES`` is not even decoded."""
    if len(frames) != 1:
        return f"a hello is one frame, not {len(frames)}"
    data = frames[0]
    if len(data) > MAX_HELLO_BYTES:
        return f"a hello is at most {MAX_HELLO_BYTES} bytes, not {len(data)}"
    try:
        message = decode(data, max_bytes=MAX_HELLO_BYTES)
        kind = validate_from_bot(message)
    except ProtocolError as exc:
        if data[:1] in (b"{", b"[") or data[:1].isspace():
            return f"{exc}: it looks like JSON; messages are msgpack maps"
        return str(exc)
    if kind != "hello":
        return f"the first message must be a hello, not {kind!r}"
    return message


def raise_fd_limit() -> int:
    """Raise this process's soft limit of open files to its hard limit; return the soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError) as exc:
            log.debug("could not raise the open-file limit to %s: %s", hard, exc)
    return soft


def monitor_event(frames: list[bytes]) -> int:
    """The event of a ZeroMQ socket monitor's message: its first frame is a 16-bit event id
    and a 32-bit value (read here, as ``zmq.utils.monitor`` does, without importing that
    module: it brings asyncio, tens of milliseconds at every start of an arena process)."""
    if len(frames) != 2 or len(frames[0]) != 6:
        raise zmq.ZMQError(msg=f"not a socket monitor's message: {len(frames)} frame(s)")
    return struct.unpack("=hi", frames[0])[0]


class ConnectionWatch:
    """A thread counting the connections accepted on one socket (a ZeroMQ socket monitor).

    ``on_limit(count)`` runs once, in the watch thread, when the count goes over ``limit``.
    """

    EVENTS = zmq.EVENT_ACCEPTED | zmq.EVENT_MONITOR_STOPPED

    def __init__(self, socket: zmq.Socket, *, limit: int, on_limit: Callable[[int], None]) -> None:
        self.accepted = 0
        self._socket = socket
        self._limit = limit
        self._on_limit = on_limit
        self._monitor = socket.get_monitor_socket(self.EVENTS)
        self._thread = threading.Thread(target=self._run, name="arena-door-watch", daemon=True)
        try:
            self._thread.start()
        except RuntimeError:
            self._monitor.close(linger=0)
            socket.disable_monitor()
            raise

    def _run(self) -> None:
        monitor = self._monitor
        try:
            while True:
                event = monitor_event(monitor.recv_multipart())
                if event == zmq.EVENT_MONITOR_STOPPED:
                    return
                if event == zmq.EVENT_ACCEPTED:
                    self.accepted += 1
                    if self.accepted == self._limit + 1:
                        self._on_limit(self.accepted)
        except zmq.ZMQError:
            return
        finally:
            monitor.close(linger=0)

    def stop(self) -> None:
        """Stop the monitor (the thread then ends); call before closing the socket."""
        try:
            self._socket.disable_monitor()
        except zmq.ZMQError:
            pass
        self._thread.join(timeout=2.0)


class Door:
    """One bot process's private endpoint: its socket, its token, its peer and its strangers.

    ``reason`` says why the door was cut (set by the watch thread or by ``stranger``); the hub
    then calls ``cut``. ``on_cut`` is called (from any thread) when a cut is wanted.
    """

    def __init__(
        self,
        *,
        key: bytes,
        label: str,
        token: str,
        parent: str,
        max_message_bytes: int,
        on_cut: Callable[[], None],
        context: zmq.Context | None = None,
    ) -> None:
        """``key`` is unique in the hub: it prefixes the peer ids of this door."""
        self.key = key
        self.label = label
        self.token = token
        self.folder = tempfile.mkdtemp(prefix="bot-", dir=parent)
        self.path = os.path.join(self.folder, BOT_SOCKET)
        self.peer: Any = None  # the hub's Peer, once welcomed
        self.strangers: dict[bytes, int] = {}
        self.reason: str | None = None
        self.unbound = False
        self._on_cut = on_cut
        self._shut = False
        try:
            self.router = RouterSocket(
                f"ipc://{self.path}",
                max_message_bytes=max_message_bytes,
                receive_hwm=DOOR_HWM,
                backlog=DOOR_BACKLOG,
                context=context,
            )
        except BaseException:
            self._remove()
            raise
        try:
            os.chmod(self.path, 0o666)  # reachable only through its private folder
            self.watch = ConnectionWatch(
                self.router.socket, limit=MAX_CONNECTIONS, on_limit=self._too_many
            )
        except BaseException:
            self.router.close()
            self._remove()
            raise
        self.endpoint = self.router.endpoint

    def _too_many(self, count: int) -> None:
        """(watch thread) Over the connection limit: no more connections, then a cut."""
        self.shut()
        if self.reason is None:
            self.reason = f"opened more than {MAX_CONNECTIONS} connections to the arena"
        self._on_cut()

    def shut(self) -> None:
        """No new connection: the socket file (and any hard link to it) becomes unusable."""
        if self._shut:
            return
        self._shut = True
        for step in (lambda: os.chmod(self.path, 0), lambda: os.unlink(self.path)):
            try:
                step()
            except OSError:
                pass

    def stranger(self, route: bytes, frames: list[bytes]) -> dict[str, Any] | str | None:
        """A message from a connection that is not the peer: the hello in it, what is wrong
        with it (``read_hello``), or None (dropped unread).

        Only a connection's first message is read as a hello, and it is decoded only if it is
        one frame no longer than a hello can be; later ones are dropped unread. Over the
        budget of
        ``STRANGER_MESSAGES`` per connection the door's ``reason`` is set (the hub cuts it).
        """
        seen = self.strangers.get(route, 0) + 1
        if seen > STRANGER_MESSAGES:
            self.reason = self.reason or (
                f"a connection without a welcome sent more than {STRANGER_MESSAGES} messages"
            )
            return None
        if len(self.strangers) > 2 * MAX_CONNECTIONS:  # the watch thread is behind
            self.reason = self.reason or (
                f"opened more than {MAX_CONNECTIONS} connections to the arena"
            )
            return None
        self.strangers[route] = seen
        return read_hello(frames) if seen == 1 else None

    def cut(self) -> None:
        """Close the door on the bot: no new connection, and every connection closed."""
        self.shut()
        if not self.unbound:
            self.unbound = True
            self.router.unbind()

    def _remove(self) -> None:
        """Remove the socket file and the folder (no file descriptor needed: out of them,
        this still works)."""
        for remove in (lambda: os.unlink(self.path), lambda: os.rmdir(self.folder)):
            try:
                remove()
            except OSError:
                pass
        if os.path.exists(self.folder):  # the bot put something there (unsandboxed)
            shutil.rmtree(self.folder, ignore_errors=True)

    def close(self) -> None:
        """Release everything: the watch thread, the socket and the folder."""
        self.shut()
        self.unbound = True
        self.watch.stop()
        self.router.close()
        self._remove()
