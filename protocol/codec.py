"""msgpack codec with limits: one msgpack map per message, string keys only.

Decoding refuses oversized input before unpacking and unpacks with bounded string, binary,
array and map lengths (msgpack's C unpacker also bounds nesting depth), so a hostile peer cannot
make the arena allocate without bound.

A bot that never reads its views (``protocol.sdk.Bot.reads_view``) decodes the arena's messages
with ``decode_without_views``: a turn's view is most of its bytes, and building it (a map per
seat and per round, a string per logged action, every key interned) is about nine tenths of such
a bot's CPU a turn.
"""

from __future__ import annotations

import functools
from typing import Any

import msgpack

from protocol.errors import DecodeError, InvalidMessage, MessageTooLarge

#: Default bound for a message from a bot (an action is a few dozen bytes).
MAX_BOT_MESSAGE = 64 * 1024
#: Default bound for a message from the arena (views can be a few kilobytes).
MAX_ARENA_MESSAGE = 16 * 1024 * 1024

_packer = msgpack.Packer(use_bin_type=True)

#: ormsgpack's options that make it refuse (TypeError) every value that is not of an exact
#: built-in type it packs as msgpack's packer does: subclasses (enums, named tuples), ints over
#: 64 bits, dataclasses, dates, UUIDs. Those messages are packed by msgpack's packer.
_EXACT_ONLY = (
    "OPT_PASSTHROUGH_BIG_INT",
    "OPT_PASSTHROUGH_DATACLASS",
    "OPT_PASSTHROUGH_DATETIME",
    "OPT_PASSTHROUGH_ENUM",
    "OPT_PASSTHROUGH_SUBCLASS",
    "OPT_PASSTHROUGH_UUID",
)


def _fast_packb() -> Any:
    """ormsgpack's packb restricted to exact built-in types, or None (not installed, or too
    old to be restricted so)."""
    try:
        import ormsgpack
    except ImportError:  # a bot's own environment may have msgpack only
        return None
    if not all(hasattr(ormsgpack, name) for name in _EXACT_ONLY):
        return None
    option = functools.reduce(int.__or__, (getattr(ormsgpack, name) for name in _EXACT_ONLY))
    return functools.partial(ormsgpack.packb, option=option)


#: ormsgpack's packer once ``pack_fast`` has loaded it (None: msgpack's packer alone).
_fast: Any = None


def pack_fast() -> bool:
    """Make ``encode`` pack with ormsgpack from now on (in this process), where it is installed;
    whether it does. The arena's side calls it (its sockets send the views); a bot's process
    sends answers of a few dozen bytes and never loads it: importing ormsgpack (with ``uuid``,
    ``dataclasses`` and ``inspect``) is about 7 ms of CPU, a tenth of a Python bot's start."""
    global _fast
    if _fast is None:
        _fast = _fast_packb() or False
    return bool(_fast)


def encode(message: dict[str, Any]) -> bytes:
    """Encode one message map: the bytes of msgpack's packer (``use_bin_type``), made by
    ormsgpack where it can once ``pack_fast`` has been called (two fifths of the instructions
    for a turn's view: packing the views was a third of the referee's instructions a
    decision); whatever it refuses (a value of another type, a key that is not a string, a
    string that is not valid Unicode, a nesting too deep) is packed, or refused, by msgpack's
    packer as before."""
    if _fast:
        try:
            return _fast(message)
        except TypeError:
            pass
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


def decode_without_views(data: bytes, *, max_bytes: int = MAX_ARENA_MESSAGE) -> dict[str, Any]:
    """Decode one message map as ``decode`` does, except that its ``view``, and that of each
    message of a ``batch``, is skipped unbuilt and given as None. What is not a well-formed
    message is decoded by ``decode``, so the same errors are raised."""
    if len(data) > max_bytes:
        raise MessageTooLarge(f"message of {len(data)} bytes is over the {max_bytes}-byte bound")
    unpacker = msgpack.Unpacker(**(_LIMITS.get(max_bytes) or _limits(max_bytes)))
    unpacker.feed(data)
    try:
        message = _map_without_views(unpacker, nested=True)
    except (ValueError, TypeError, UnicodeDecodeError, RecursionError, msgpack.OutOfData):
        message = None  # msgpack's stream errors are ValueErrors: ``decode`` says which
    if message is None or unpacker.tell() != len(data):
        return decode(data, max_bytes=max_bytes)  # raises, or the message as it is
    return message


def _map_without_views(unpacker: msgpack.Unpacker, *, nested: bool) -> dict[str, Any] | None:
    """The map at the unpacker's position, its ``view`` skipped (and, if ``nested``, the views
    of the maps of its ``messages``); None where it has a key that is not a string."""
    message: dict[str, Any] = {}
    unpack = unpacker.unpack
    for _ in range(unpacker.read_map_header()):
        key = unpack()
        if type(key) is not str:
            return None
        if key == "view":
            unpacker.skip()
            message[key] = None
        elif key == "messages" and nested:
            entries = []
            for _ in range(unpacker.read_array_header()):
                entry = _map_without_views(unpacker, nested=False)
                if entry is None:
                    return None
                entries.append(entry)
            message[key] = entries
        else:
            message[key] = unpack()
    return message
