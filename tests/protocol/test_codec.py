"""Unit tests of the protocol layer: the limited msgpack codec and message validation."""

from __future__ import annotations

import msgpack
import pytest

from protocol.codec import decode, encode
from protocol.errors import DecodeError, InvalidMessage, MessageTooLarge, ProtocolError
from protocol.messages import action, hello, validate_from_arena, validate_from_bot


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
