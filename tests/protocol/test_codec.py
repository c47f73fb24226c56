"""Unit tests of the protocol layer: the limited msgpack codec and message validation."""

from __future__ import annotations

import enum
import random
import subprocess
import sys
from typing import NamedTuple

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena import games
from protocol.codec import decode, decode_without_views, encode, pack_fast
from protocol.errors import DecodeError, InvalidMessage, MessageTooLarge, ProtocolError
from protocol.messages import (
    action,
    batch,
    end,
    hello,
    turn,
    validate_from_arena,
    validate_from_bot,
)

#: The arena's side packs with ormsgpack (its sockets load it): these tests check its bytes.
assert pack_fast(), "ormsgpack is one of the arena's dependencies"


def test_a_bot_process_never_loads_ormsgpack() -> None:
    """A bot's answers are small: loading ormsgpack would cost every bot process's start
    about 7 ms for nothing; the arena's socket loads it."""
    code = (
        "import sys, protocol.sdk, protocol.transport as t\n"
        "d = t.DealerSocket('tcp://127.0.0.1:9'); d.send({'type': 'hello'}); d.close()\n"
        "assert 'ormsgpack' not in sys.modules, 'a bot loaded ormsgpack'\n"
        "r = t.RouterSocket(); r.close()\n"
        "assert 'ormsgpack' in sys.modules, 'the arena did not load it'\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr[-2000:]


def test_round_trip_of_every_bot_message() -> None:
    for message in (
        hello(token="t" * 32, name="bot", protocol=1),
        action(game_id=3, request=9, action="bid:2"),
    ):
        assert decode(encode(message)) == message
        assert validate_from_bot(decode(encode(message))) == message["type"]


def test_oversized_input_is_refused_before_unpacking() -> None:
    with pytest.raises(MessageTooLarge):
        decode(b"\x00" * 70_000, max_bytes=65_536)


@pytest.mark.parametrize(
    "data, error",
    [
        (b"\xc1", DecodeError),  # never-used msgpack byte
        (msgpack.packb([1, 2, 3]), InvalidMessage),  # not a map
        (msgpack.packb({1: "x"}), DecodeError),  # non-string key
        (msgpack.packb({"a": 1}) + b"\x00", DecodeError),  # trailing bytes
        (b"\x91" * 5000 + b"\x00", DecodeError),  # nesting deeper than msgpack allows
    ],
)
def test_bad_bytes_raise_typed_protocol_errors(data: bytes, error: type) -> None:
    with pytest.raises(error):
        decode(data)
    with pytest.raises(error):
        decode_without_views(data)


VIEW = {"seat": 1, "log": ["0:place", "1:bid:2"], "seats": [{"owned": 4}, {"owned": 3}]}
TURN = {
    "type": "turn",
    "game_id": 7,
    "request": 3,
    "view": VIEW,
    "legal": ["pass"],
    "deadline_ms": 9,
}
START = {"type": "start", "game_id": 7, "game": "skull", "seat": 1, "players": 4, "seed": 5}
END = {"type": "end", "game_id": 7, "result": {"places": [1, 2]}, "view": VIEW}


def without_views(message: dict) -> dict:
    """``message`` with its view, and its batch entries' views, as None."""
    out = {key: None if key == "view" else value for key, value in message.items()}
    if isinstance(message.get("messages"), list):
        out["messages"] = [without_views(entry) for entry in message["messages"]]
    return out


@pytest.mark.parametrize(
    "message",
    [
        TURN,
        START,
        END,
        {"type": "batch", "messages": [END, START, TURN, dict(TURN, game_id=8, request=4)]},
        {"type": "bye"},
        {"type": "turn", "nested": {"view": VIEW}, "view": 5},  # only a message's own view
    ],
)
def test_a_bot_that_reads_no_view_decodes_everything_but_the_views(message: dict) -> None:
    assert decode_without_views(encode(message)) == without_views(message)


@pytest.mark.parametrize(
    "message",
    [
        {"type": "batch", "messages": [TURN, 3, TURN]},  # an entry that is no map
        {"type": "batch", "messages": {"view": VIEW}},  # messages that are no list
        {"type": "batch", "messages": [{"view": VIEW, 1: 2}]},  # a key that is no string
    ],
)
def test_what_is_no_well_formed_message_is_decoded_as_it_is(message: dict) -> None:
    data = msgpack.packb(message, strict_types=False)
    if any(isinstance(entry, dict) and 1 in entry for entry in message["messages"]):
        with pytest.raises(DecodeError):
            decode_without_views(data)
        return
    assert decode_without_views(data) == decode(data)


@pytest.mark.parametrize(
    "message, text",
    [
        ({"type": "action", "game_id": 1, "request": "2", "action": "x"}, "request"),
        ({"type": "action", "game_id": 1, "request": 2}, "action"),
        ({"type": "action", "game_id": 1, "request": 2, "action": "x", "extra": 1}, "fields"),
        ({"type": "action", "game_id": 1, "request": 2, "action": "x" * 300}, "longer"),
        ({"type": "action", "game_id": True, "request": 2, "action": "x"}, "game_id"),
        ({"type": "hello", "protocol": 1, "token": "t", "name": "n", "colour": "red"}, "unknown"),
        ({"type": "turn"}, "may not send"),
        ({"kind": "action"}, "type"),
    ],
)
def test_invalid_bot_messages_name_the_problem(message: dict, text: str) -> None:
    with pytest.raises(InvalidMessage, match=text):
        validate_from_bot(message)


def test_protocol_errors_carry_stable_codes() -> None:
    assert {MessageTooLarge.code, DecodeError.code, InvalidMessage.code} == {
        "too-large",
        "not-msgpack",
        "invalid",
    }
    assert issubclass(MessageTooLarge, ProtocolError)


def test_sdk_side_validates_arena_messages() -> None:
    assert (
        validate_from_arena(
            {
                "type": "turn",
                "game_id": 1,
                "request": 1,
                "deadline_ms": 5,
                "view": {},
                "legal": ["a"],
            }
        )
        == "turn"
    )
    with pytest.raises(InvalidMessage):
        validate_from_arena(
            {
                "type": "turn",
                "game_id": 1,
                "request": 1,
                "deadline_ms": 5,
                "view": [],
                "legal": ["a"],
            }
        )


# -- encode: msgpack's bytes, whichever packer makes them -----------------------------------

_PACKER = msgpack.Packer(use_bin_type=True)


class _Phase(enum.StrEnum):
    BID = "bid"


class _Pair(NamedTuple):
    a: int
    b: str


def _packed_or_error(value: object) -> bytes | type:
    """msgpack's own bytes for ``value``, or the type of the error it raises."""
    try:
        return _PACKER.pack(value)
    except Exception as exc:  # noqa: BLE001 - the error's type is what is compared
        return type(exc)


def _encoded_or_error(value: object) -> bytes | type:
    try:
        return encode(value)  # type: ignore[arg-type]
    except Exception as exc:  # noqa: BLE001
        return type(exc)


_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**64), max_value=2**65)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=300)
    | st.binary(max_size=300)
    | st.sampled_from([_Phase.BID, _Pair(1, "x"), (1, "a"), "a\udc80", 2**64 - 1, -(2**63)])
)
_KEYS = st.text(max_size=40) | st.integers(-3, 3) | st.just(_Phase.BID)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=20)
        | st.tuples(inner, inner)
        | st.dictionaries(_KEYS, inner, max_size=20)
    ),
    max_leaves=60,
)


@given(st.dictionaries(st.text(max_size=20), _VALUES, max_size=8))
@settings(max_examples=200, deadline=None)
def test_encode_gives_msgpacks_bytes_or_its_error(message: dict) -> None:
    """Whatever a message holds (subclasses of str and int, named tuples, ints past 64 bits,
    keys that are no strings, strings that are no valid Unicode), ``encode`` gives the bytes
    msgpack's packer gives, or fails with msgpack's error."""
    assert _encoded_or_error(message) == _packed_or_error(message)


@pytest.mark.parametrize("depth", [200, 600, 2000])
def test_deep_nesting_is_packed_or_refused_as_msgpack_does(depth: int) -> None:
    """Past ormsgpack's own depth bound, msgpack's packer decides (bytes or its error)."""
    deep: list = []
    inner = deep
    for _ in range(depth):
        inner.append([])
        inner = inner[0]
    assert _encoded_or_error({"v": deep}) == _packed_or_error({"v": deep})


@pytest.mark.parametrize("name", games.names())
def test_every_message_of_a_game_encodes_to_msgpacks_bytes(name: str) -> None:
    """The turns and ends of random games of each game, at each table size, are sent as the
    same bytes as msgpack packs them (bots that do not batch get today's protocol byte for
    byte), alone and in a batch."""
    game = games.get_game(name)
    rng = random.Random(7)
    sent = 0
    for players in range(game.min_players, game.max_players + 1):
        state = game.new(players, 11 + players, None)
        held = []
        while not state.is_over():
            step = {}
            for seat in state.to_act():
                legal = state.legal(seat)
                held.append(
                    turn(
                        game_id=2**53 - 1,
                        request=sent,
                        view=state.view(seat),
                        legal=legal,
                        deadline_ms=2000,
                    )
                )
                step[seat] = rng.choice(legal)
            state.apply(step)
        held.extend(
            end(game_id=5, result={"scores": [1.5] * players}, view=state.view(s))
            for s in range(players)
        )
        for message in [*held, batch(held[-64:])]:
            assert encode(message) == _PACKER.pack(message)
            sent += 1
    assert sent > 10
