"""msgpack codec with limits: one msgpack map per message, string keys only.

Decoding refuses oversized input before unpacking and unpacks with bounded string, binary,
array and map lengths (msgpack's C unpacker also bounds nesting depth), so a hostile peer cannot
make the arena allocate without bound.
"""

from __future__ import annotations

from typing import Any

import msgpack

from protocol.errors import DecodeError, InvalidMessage, MessageTooLarge

#: Default bound for a message from a bot (an action is a few dozen bytes).
MAX_BOT_MESSAGE = 64 * 1024
#: Default bound for a message from the arena (views can be a few kilobytes).
MAX_ARENA_MESSAGE = 16 * 1024 * 1024

_packer = msgpack.Packer(use_bin_type=True)


def encode(message: dict[str, Any]) -> bytes:
    """Encode one message map."""
    return _packer.pack(message)


#: The unpacker's arguments for each bound used so far (a handful: one per kind of socket).
_LIMITS: dict[int, dict[str, Any]] = {}


def _limits(max_bytes: int) -> dict[str, Any]:
    """The unpacker's arguments for messages of at most ``max_bytes``: no length of a string,
    binary, array or map can exceed what that many bytes could hold."""
    limits = _LIMITS[max_bytes] = {
        "raw": False,
        "strict_map_key": True,
        "use_list": True,
        "max_str_len": max_bytes,
        "max_bin_len": max_bytes,
        "max_array_len": max(16, max_bytes // 2),
        "max_map_len": max(16, max_bytes // 4),
        "max_ext_len": 0,
    }
    return limits


def decode(data: bytes, *, max_bytes: int = MAX_BOT_MESSAGE) -> dict[str, Any]:
    """Decode one message map, refusing anything over ``max_bytes`` or not a string-keyed map.

    Raises MessageTooLarge, DecodeError or InvalidMessage (all ProtocolError).
    """
    if len(data) > max_bytes:
        raise MessageTooLarge(f"message of {len(data)} bytes is over the {max_bytes}-byte bound")
    limits = _LIMITS.get(max_bytes) or _limits(max_bytes)
    try:
        value = msgpack.unpackb(data, **limits)
    except (msgpack.ExtraData, msgpack.FormatError, msgpack.StackError) as exc:
        raise DecodeError(f"not one msgpack value: {exc.__class__.__name__}") from None
    except (ValueError, TypeError, UnicodeDecodeError, RecursionError) as exc:
        raise DecodeError(f"not a valid msgpack message: {exc}") from None
    if not isinstance(value, dict):
        raise InvalidMessage(f"a message is a map, not {type(value).__name__}")
    return value
