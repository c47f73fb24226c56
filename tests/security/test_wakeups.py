"""No lost wake-up: a wait on several doors sees every answer that arrived (real sockets).

A ZeroMQ socket's descriptor (ZMQ_FD) signals only commands not yet processed, and any
operation on the socket (a send, a read, a look at ZMQ_EVENTS) processes them, even when a
message is then left waiting. A wait that slept on the doors' descriptors without first looking
into every door it had touched would lose such a message (a seat judged late that answered in
time). Each test here makes that happen and then waits, with a long timeout, for what is
already there; they guard any change to how the hub waits on several doors.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import msgpack
import pytest
import zmq

from arena.games import get_game
from arena.procs.botproc import BotSpec
from arena.procs.doors import STRANGER_MESSAGES
from arena.procs.hub import Hub, Peer
from arena.procs.limits import Limits
from arena.referee import driver
from arena.referee.game import GameSetup
from arena.referee.session import Session
from tests.arena.conftest import ROGUES, bundled
from tests.security.conftest import dealer, hello, replies
from tests.security.test_hub import accepted, welcome

#: Long enough that a working hub never misses it; a lost wake-up always does.
WAIT_MS = 3000
#: Longer than the command throttle of a ZeroMQ send (about a millisecond): the send after it
#: processes the socket's pending commands, as a send in a busy referee may.
SETTLE_S = 0.2


def action(request: int) -> bytes:
    return msgpack.packb({"type": "action", "game_id": 1, "request": request, "action": "x"})


def requests(batch) -> list[tuple[str, int]]:
    return sorted((item.peer.label, item.message["request"]) for item in batch)


@pytest.fixture
def two(hub: Hub) -> Iterator[tuple[zmq.Socket, Peer, zmq.Socket, Peer]]:
    """Bots a and b, welcomed, their doors looked into and found empty (untouched since)."""
    (sock_a, a), (sock_b, b) = welcome(hub, "a"), welcome(hub, "b")
    try:
        assert hub.receive_batch(0, [a, b]) == []
        yield sock_a, a, sock_b, b
    finally:
        sock_a.close(0)
        sock_b.close(0)


def test_an_answer_that_came_before_a_send_on_its_door_is_read(hub: Hub, two) -> None:
    sock_a, a, _, b = two
    sock_a.send(action(1))
    time.sleep(SETTLE_S)  # in the arena; a's descriptor signals it
    hub.send(a, {"type": "turn", "game_id": 2, "request": 1})  # may silence it
    assert requests(hub.receive_batch(WAIT_MS, [a, b])) == [("a", 1)]


def test_a_second_answer_queued_behind_the_one_read_is_read_next(hub: Hub, two) -> None:
    sock_a, a, _, b = two
    sock_a.send(action(1))
    sock_a.send(action(2))
    time.sleep(SETTLE_S)  # both in the arena, behind one signal
    assert requests(hub.receive_batch(WAIT_MS, [a, b], most=1)) == [("a", 1)]
    assert requests(hub.receive_batch(WAIT_MS, [a, b], most=1)) == [("a", 2)]


def test_a_message_left_by_a_wait_on_its_door_alone_is_read_by_a_wait_on_several(
    hub: Hub, two
) -> None:
    """Awaited alone, a door is read by one blocking receive (no look at its descriptor):
    what is queued behind that message must still be found by a wait on several doors."""
    sock_a, a, _, b = two
    sock_a.send(action(1))
    sock_a.send(action(2))
    time.sleep(SETTLE_S)
    assert requests(hub.receive_batch(WAIT_MS, [a], most=1)) == [("a", 1)]
    assert requests(hub.receive_batch(WAIT_MS, [a, b], most=1)) == [("a", 2)]


def test_a_door_not_awaited_neither_wakes_the_wait_nor_loses_its_message(hub: Hub, two) -> None:
    """A wait sleeps on every door it has seen: one not awaited now that signals (a stale
    answer) must not end the wait early, again and again (a busy loop), and its message is
    read once that door is awaited."""
    sock_a, a, _, b = two
    sock_c, c = welcome(hub, "c")
    try:
        assert hub.receive_batch(0, [b, c]) == []
        sock_a.send(action(1))
        time.sleep(SETTLE_S)
        for _ in range(2):
            started = time.monotonic()
            assert hub.receive_batch(300, [b, c]) == []
            assert time.monotonic() - started >= 0.25, "the wait ended early"
        assert requests(hub.receive_batch(WAIT_MS, [a, b])) == [("a", 1)]
    finally:
        sock_c.close(0)


def test_a_door_seen_ready_while_admitting_is_read_after(hub: Hub, two) -> None:
    """``admit`` reads one message of the doors that are ready; the others were looked into
    (their signal spent) and must still be read by the next wait."""
    sock_a, a, sock_b, b = two
    sock_a.send(action(1))
    sock_b.send(action(1))
    time.sleep(SETTLE_S)
    hub.admit(WAIT_MS)  # keeps one of them for the next receive_batch
    got = hub.receive_batch(WAIT_MS, [a, b])
    if len(got) == 1:  # the held one came alone: the other must come next
        got += hub.receive_batch(WAIT_MS, [a, b])
    assert requests(got) == [("a", 1), ("b", 1)]


def test_answers_sent_while_the_referee_sends_the_next_turns_are_all_read(hub: Hub) -> None:
    """Bots in another thread answer each turn at once while the hub sends the next ones to
    other doors and waits on all: every answer of every round is read, none left behind."""
    labels = [f"s{n}" for n in range(6)]
    pairs = [welcome(hub, label) for label in labels]
    peers = [peer for _, peer in pairs]
    stop = threading.Event()

    def bots() -> None:
        poller = zmq.Poller()
        for sock, _ in pairs:
            poller.register(sock, zmq.POLLIN)
        while not stop.is_set():
            for sock, _ in poller.poll(50):
                turn = msgpack.unpackb(sock.recv())
                sock.send(action(turn["request"]))

    thread = threading.Thread(target=bots, daemon=True)
    thread.start()
    try:
        for request in range(1, 41):
            hub.defer()
            for peer in peers:
                hub.send(peer, {"type": "turn", "game_id": 1, "request": request})
                if peer is peers[2]:
                    hub.flush()  # the first answers come while the others are sent
                    hub.defer()
            hub.flush()
            got: list = []
            while len(got) < len(peers):
                batch = hub.receive_batch(WAIT_MS, peers)
                assert batch, f"round {request}: answers of {len(got)} seats of {len(peers)}"
                got += batch
            assert requests(got) == [(label, request) for label in labels]
    finally:
        stop.set()
        thread.join(5)
        for sock, _ in pairs:
            sock.close(0)


def test_a_door_cut_mid_wait_leaves_the_others_answers_to_be_read(hub: Hub) -> None:
    """A stranger connected to a's door before its welcome floods it while the hub waits on
    a and b: a's door is cut, and b's answer, sent after the flood, is still read."""
    token = hub.issue_token("a")
    stranger, sock_a = dealer(hub.endpoint_of("a")), dealer(hub.endpoint_of("a"))
    sock_b, b = welcome(hub, "b")
    try:
        assert accepted(hub, "a", 2)
        sock_a.send(hello(token))
        assert [m["type"] for m in replies(hub, sock_a)] == ["welcome"]
        a = hub.by_label["a"]
        assert hub.receive_batch(0, [a, b]) == []

        def meanwhile() -> None:
            time.sleep(SETTLE_S)  # the hub sleeps on both doors by now
            for _ in range(STRANGER_MESSAGES + 1):
                stranger.send(b"x")
            time.sleep(SETTLE_S)
            sock_b.send(action(1))

        thread = threading.Thread(target=meanwhile)
        thread.start()
        got: list = []
        deadline = time.monotonic() + 2 * WAIT_MS / 1000
        while not (got and a.closed) and time.monotonic() < deadline:
            got += hub.receive_batch(100, [a, b])  # until b's answer is read and a's door cut
        thread.join()
        assert requests(got) == [("b", 1)]
        assert a.closed and "more than" in a.cut
        sock_b.send(action(2))
        assert requests(hub.receive_batch(WAIT_MS, [a, b])) == [("b", 2)]
    finally:
        for sock in (stranger, sock_a, sock_b):
            sock.close(0)


def memo() -> BotSpec:
    """A raw-protocol bot that plays legally, up to 8 games at once."""
    return BotSpec(name="memo", argv=(sys.executable, str(ROGUES / "memo.py")))


@pytest.mark.parametrize(("games", "at_once"), [(4, 1), (12, 6)])
def test_many_seats_answering_at_once_are_never_judged_late(
    tmp_path: Path, games: int, at_once: int
) -> None:
    """Real processes: every Skull round starts with all seats acting at once; with games at
    once, each process serves several. Deadlines a working hub never misses: a lost wake-up
    would record a timeout."""
    limits = Limits(move_ms=3000, startup_ms=10_000)
    entries = [("m1", memo()), ("m2", memo()), ("r1", bundled("random")), ("r2", bundled("first"))]
    rules = get_game("skull")
    with Session(limits, log_dir=tmp_path) as session:
        tables = (
            GameSetup(rules, session.seats(entries), seed=900 + i, game_id=i + 1)
            for i in range(games)
        )
        played = list(driver.play_many(tables, at_once, limits))
    assert [p.error for p in played] == [None] * games
    assert [p.record.faults for p in played] == [()] * games
