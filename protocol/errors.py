"""Typed protocol errors. Each has a stable ``code`` used in ``error`` messages and fault logs."""

from __future__ import annotations


class ProtocolError(Exception):
    """A message that breaks protocol v1."""

    code = "protocol"


class MessageTooLarge(ProtocolError):
    """A message over the size bound."""

    code = "too-large"


class DecodeError(ProtocolError):
    """Bytes that are not one msgpack value within the unpack limits."""

    code = "not-msgpack"


class InvalidMessage(ProtocolError):
    """A msgpack value that is not a valid message (not a map, unknown type, bad fields)."""

    code = "invalid"


class ConnectionClosed(ProtocolError):
    """The other side went away (used by the SDK)."""

    code = "closed"
