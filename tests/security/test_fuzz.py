"""Fuzzing: the decoder and validator raise only ProtocolError; the referee, fed random message
sequences by a peer while a game runs, records typed faults only, never raises, never hangs.

The ``ci`` profile (tests/conftest.py) runs a fixed, seeded share of examples; the ``slow``
tests run many more games (``HYPOTHESIS_PROFILE=long python -m pytest -m slow``).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

import msgpack
import pytest
import zmq
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.procs.hub import Hub, Peer
from arena.procs.limits import Limits
from arena.referee import driver
from arena.referee.game import GameSetup
from arena.referee.record import FaultKind
from arena.referee.replay import replay
from arena.referee.seats import ProcessSeat
from protocol.codec import MAX_BOT_MESSAGE, decode
from protocol.errors import ProtocolError
from protocol.messages import validate_from_bot
from tests.arena.conftest import bundled
from tests.security.conftest import dealer, hello

MSGPACK_INT = st.integers(min_value=-(2**63), max_value=2**64 - 1)
SCALARS = (
    st.none()
    | st.booleans()
    | MSGPACK_INT
    | st.floats(allow_nan=True)
    | st.text(max_size=40)
    | st.binary(max_size=40)
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=6)
        | st.dictionaries(st.text(max_size=10) | MSGPACK_INT, inner, max_size=6)
    ),
    max_leaves=12,
)
FIELDS = st.sampled_from(
    ["type", "game_id", "request", "action", "protocol", "token", "name", "max_games", "x"]
)
MESSAGES = st.dictionaries(FIELDS, VALUES, max_size=6) | st.fixed_dictionaries(
    {
        "type": st.sampled_from(["action", "hello", "turn", "bye", ""]),
        "game_id": VALUES,
        "request": VALUES,
        "action": VALUES,
    }
)


def check_bytes(data: bytes) -> None:
    """decode + validate_from_bot: a valid type, or a ProtocolError, nothing else."""
    try:
        message = decode(data, max_bytes=MAX_BOT_MESSAGE)
        assert validate_from_bot(message) in ("action", "hello")
    except ProtocolError:
        pass


@given(st.binary(max_size=4096))
def test_random_bytes_decode_or_raise_protocol_errors(data: bytes) -> None:
    check_bytes(data)


@given(MESSAGES)
def test_random_maps_validate_or_raise_protocol_errors(message: dict) -> None:
    check_bytes(msgpack.packb(message, use_bin_type=True))


@given(VALUES, st.integers(min_value=0, max_value=200), st.binary(max_size=8))
def test_mutated_messages_raise_protocol_errors_only(value: Any, cut: int, noise: bytes) -> None:
    valid = msgpack.packb(
        {"type": "action", "game_id": 1, "request": 2, "action": "n:0", "extra": value},
        use_bin_type=True,
    )
    check_bytes(valid[:cut] + noise + valid[cut:])
    check_bytes(valid[:cut])
    check_bytes(msgpack.packb([value, msgpack.ExtType(1, noise)], use_bin_type=True))


@pytest.mark.parametrize(
    "data",
    [
        b"\x91" * 60_000 + b"\xc0",  # deep nesting
        b"\xdf\xff\xff\xff\xff",  # a map claiming 4 billion entries
        b"\xdd\x7f\xff\xff\xff",  # an array claiming 2 billion items
        b"\xdb\x7f\xff\xff\xff" + b"x" * 100,  # a string claiming 2 GB
        b"\xc7\x05\x01hello",  # an extension type
        msgpack.packb({"type": "action", "game_id": 1, "request": 1, "action": "a" * 300}),
        b"\x80" * (MAX_BOT_MESSAGE + 1),  # over the size bound
    ],
)
def test_hostile_msgpack_is_refused_quickly(data: bytes) -> None:
    started = time.perf_counter()
    with pytest.raises(ProtocolError):
        validate_from_bot(decode(data, max_bytes=MAX_BOT_MESSAGE))
    assert time.perf_counter() - started < 0.5


# -- the referee under a fuzzing peer ---------------------------------------------------------


@dataclass
class FakeProcess:
    """A seat played by the test's own socket (the referee needs only these members)."""

    label: str
    peer: Peer
    output: None = None  # no log: its output is the test's

    def alive(self) -> bool:
        return True

    def exit_summary(self) -> str:
        return "fuzzing peer"


ITEMS = st.one_of(
    st.tuples(st.just("raw"), st.binary(max_size=64)),
    st.tuples(st.just("map"), MESSAGES),
    st.tuples(
        st.just("action"),
        st.integers(-2, 2),
        st.integers(-3, 3),
        st.integers(0, 3) | st.text(max_size=8),
    ),
    st.tuples(st.just("answer")),
    st.tuples(st.just("frames"), st.lists(st.binary(max_size=8), min_size=2, max_size=3)),
)
SCRIPTS = st.lists(st.lists(ITEMS, max_size=5), min_size=1, max_size=4)


def fuzz_peer(sock: zmq.Socket, script: list[list[tuple]], stop: threading.Event) -> None:
    """Answer the n-th turn with ``script[n % len(script)]``, until told to stop."""
    count = 0
    while not stop.is_set():
        if not sock.poll(20):
            continue
        message = msgpack.unpackb(sock.recv())
        if message.get("type") != "turn":
            continue
        for item in script[count % len(script)]:
            send_item(sock, message, item)
        count += 1


def send_item(sock: zmq.Socket, turn: dict, item: tuple) -> None:
    kind = item[0]
    if kind == "raw":
        sock.send(item[1])
    elif kind == "map":
        sock.send(msgpack.packb(item[1], use_bin_type=True))
    elif kind == "frames":
        sock.send_multipart(item[1])
    else:
        legal = turn["legal"]
        game, request, choice = (0, 0, 0) if kind == "answer" else item[1:]
        action = legal[choice % len(legal)] if isinstance(choice, int) else choice
        sock.send(
            msgpack.packb(
                {
                    "type": "action",
                    "game_id": turn["game_id"] + game,
                    "request": turn["request"] + request,
                    "action": action,
                }
            )
        )


@pytest.fixture(scope="module")
def arena_side(tmp_path_factory):
    """One hub, one honest bot, and a game id counter shared by the examples."""
    from arena.procs.pool import BotPool
    from tests.arena.toygame import install

    game = install()
    hub = Hub()
    pool = BotPool(hub, log_dir=tmp_path_factory.mktemp("logs"))
    honest = pool.get([("honest", bundled("first"))])[0]
    yield hub, honest, game, iter(range(1, 1 << 30))
    pool.close()
    hub.close()


def play_against_script(arena_side, script: list[list[tuple]], rounds: int) -> None:
    hub, honest, game, ids = arena_side
    limits = Limits(move_ms=150, max_faults=4)
    token = hub.issue_token("fuzz")
    sock = dealer(hub.endpoint_of("fuzz"))
    sock.send(hello(token))
    deadline = time.monotonic() + 5
    while "fuzz" not in hub.by_label and time.monotonic() < deadline:
        hub.receive(20)
    assert msgpack.unpackb(sock.recv())["type"] == "welcome"
    fake = FakeProcess("fuzz", hub.by_label["fuzz"])
    stop = threading.Event()
    thread = threading.Thread(target=fuzz_peer, args=(sock, script, stop), daemon=True)
    thread.start()
    started = time.monotonic()
    try:
        record = driver.play(
            GameSetup(
                game,
                [ProcessSeat(hub, fake), ProcessSeat(hub, honest)],
                seed=3,
                options={"rounds": rounds},
                game_id=next(ids),
            ),
            limits,
        )
    finally:
        stop.set()
        thread.join()
        sock.close(0)
        hub.revoke("fuzz")
    turns = 2 * rounds  # never a hang: each turn ends by its deadline (plus slack)
    elapsed = time.monotonic() - started
    assert elapsed < turns * (limits.move_ms / 1000 + 0.5) + 3, elapsed
    assert all(isinstance(f.kind, FaultKind) for f in record.faults), record.faults
    # the honest seat may only ever be late (a loaded machine), never anything else
    assert all(f.kind is FaultKind.TIMEOUT for f in record.faults if f.seat == 1)
    final = replay("toy", 2, record.seed, record.options, record.joint_actions())
    assert final.outcome().scores == record.scores
    fuzz_faults = [f for f in record.faults if f.seat == 0]
    assert (0 in record.forfeits) == (len(fuzz_faults) >= limits.max_faults), record.faults


@settings(max_examples=15)
@given(SCRIPTS)
def test_referee_survives_a_fuzzing_peer(arena_side, script) -> None:
    play_against_script(arena_side, script, rounds=1)


@pytest.mark.slow
@given(SCRIPTS)
def test_referee_survives_a_fuzzing_peer_long(arena_side, script) -> None:
    play_against_script(arena_side, script, rounds=3)
