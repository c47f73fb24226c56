"""Waiting on several ROUTER sockets in one system call, looking only into the ones that need it.

``zmq_poll`` over several sockets asks each socket's ZMQ_EVENTS (a ``poll`` and a ``getpid`` in
libzmq each) before it sleeps and again after it wakes. ``Wakeups.wait`` sleeps in one ``poll``
on the sockets' ZMQ_FD file descriptors instead, and looks (ZMQ_EVENTS) only into a socket
that woke, or that was **touched** since its last look.

The trap it avoids: a socket's ZMQ_FD is readable while the socket has commands to process
(one says "a message arrived" when a pipe that was empty gets one), and ANY operation on the
socket (a send, a receive, a ZMQ_EVENTS look) processes them and clears it, even when a message
is then left waiting. A socket touched since its last look may hold a message behind a silent
file descriptor; sleeping on it would lose that wake-up (a seat judged late that answered in
time). So every operation of ``RouterSocket`` sets its ``touched``; only a look that found no
message clears it, and a socket is slept on without a look only while it is not touched: then
ZeroMQ signals its descriptor when a message comes (the same rule pyzmq's own event-loop
integration follows, with a look after each send and receive).
"""

from __future__ import annotations

import select
import time
from collections.abc import Iterable

import zmq

from protocol.transport import RouterSocket

_EVENTS = int(zmq.EVENTS)
_POLLIN = int(zmq.POLLIN)
_READABLE = select.POLLIN


class Wakeups:
    """One ``poll`` object over the descriptors of the sockets last waited on."""

    def __init__(self) -> None:
        self._poller = select.poll()
        self._watched: dict[int, RouterSocket] = {}

    def wait(self, routers: Iterable[RouterSocket], timeout_ms: float) -> list[RouterSocket]:
        """The ``routers`` that hold a message, waiting up to ``timeout_ms`` for one (at once
        when one already does). Each one returned has been looked into and stays touched."""
        ready: list[RouterSocket] = []
        watched: dict[int, RouterSocket] = {}
        for router in routers:
            if router.touched:
                if router.socket.getsockopt(_EVENTS) & _POLLIN:
                    ready.append(router)
                else:
                    router.touched = False  # its descriptor now signals the next message
            watched[router.fd] = router
        self._watch(watched)
        timeout = 0.0 if ready else max(0.0, timeout_ms)
        deadline = time.monotonic() + timeout / 1000.0
        while True:
            # ``ready`` ones are read anyway; the poll (no wait then) adds the others woken
            for fd, _ in self._poller.poll(timeout):
                router = watched[fd]
                if router.touched:
                    continue  # looked into above: it holds a message
                if router.socket.getsockopt(_EVENTS) & _POLLIN:
                    router.touched = True
                    ready.append(router)
                # else woken by another command (nothing to read): the look cleared it
            if ready or timeout <= 0.0:
                return ready
            timeout = max(0.0, (deadline - time.monotonic()) * 1000.0)

    def _watch(self, watched: dict[int, RouterSocket]) -> None:
        """Make the poll object watch exactly these descriptors (a closed socket's number
        may be reused: the registrations follow each wait's sockets)."""
        old = self._watched
        if watched == old:
            return
        poller = self._poller
        for fd in old.keys() - watched.keys():
            poller.unregister(fd)
        for fd in watched.keys() - old.keys():
            poller.register(fd, _READABLE)
        self._watched = watched
