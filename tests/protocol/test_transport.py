"""The arena's ROUTER socket over a real ipc:// connection: every frame of a message is read
with it (a message of several frames never leaks into the next one), and maps sent to a peer
arrive whole."""

from __future__ import annotations

import zmq

from protocol.transport import DealerSocket, RouterSocket


def test_a_message_of_several_frames_is_read_whole_and_the_next_one_apart() -> None:
    context = zmq.Context()
    router = RouterSocket(context=context)
    dealer = DealerSocket(router.endpoint, context=context)
    try:
        dealer.socket.send_multipart([b"one", b"two", b"three"])
        dealer.socket.send(b"alone")
        dealer.socket.send_multipart([b"x", b"y"])
        peer, frames = router.recv_within(5000)
        assert frames == [b"one", b"two", b"three"]
        assert router.recv_within(5000) == (peer, [b"alone"])
        assert router.poll(5000)
        assert router.recv() == (peer, [b"x", b"y"])
        assert router.recv_within(0) is None
        router.send(peer, {"type": "bye"})
        assert dealer.recv(5000) == {"type": "bye"}
    finally:
        dealer.socket.close(0)
        router.close()
        context.term()
