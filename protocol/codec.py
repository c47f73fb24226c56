"""msgpack codec with limits: one msgpack map per message, string keys only.

Decoding refuses oversized input before unpacking and unpacks with bounded string, binary,
array and map lengths (msgpack's C unpacker also bounds nesting depth), so a hostile peer cannot
make the arena allocate without bound.
"""

from __future__ import annotations

from typing import Any

import msgpack

from protocol.errors import DecodeError, InvalidMessage, TooLarge

#: Default bound for a message from a bot (an action is a few dozen bytes).
MAX_BOT_MESSAGE = 64 * 1024
#: Default bound for a message from the arena (views can be a few kilobytes).
MAX_ARENA_MESSAGE = 16 * 1024 * 1024

_packer = msgpack.Packer(use_bin_type=True)


def encode(message: dict[str, Any]) -> bytes:
    """Encode one message map."""
    return _packer.pack(message)


def decode(data: bytes, *, max_bytes: int = MAX_BOT_MESSAGE) -> dict[str, Any]:
    """Decode one message map, refusing anything over ``max_bytes`` or not a string-keyed map.

    Raises TooLarge, DecodeError or InvalidMessage (all ProtocolError).
    """
    if len(data) > max_bytes:
        raise TooLarge(f"message of {len(data)} bytes is over the {max_bytes}-byte bound")
    try:
        value = msgpack.unpackb(
            data,
            raw=False,
            strict_map_key=True,
            use_list=True,
            max_str_len=max_bytes,
            max_bin_len=max_bytes,
            max_array_len=max(16, max_bytes // 2),
            max_map_len=max(16, max_bytes // 4),
            max_ext_len=0,
        )
    except (msgpack.ExtraData, msgpack.FormatError, msgpack.StackError) as exc:
        raise DecodeError(f"not one msgpack value: {exc.__class__.__name__}") from None
    except (ValueError, TypeError, UnicodeDecodeError, RecursionError) as exc:
        raise DecodeError(f"not a valid msgpack message: {exc}") from None
    if not isinstance(value, dict):
        raise InvalidMessage(f"a message is a map, not {type(value).__name__}")
    return value
