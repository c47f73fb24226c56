"""Protocol v1 between the arena and bots: messages, msgpack codec, ZeroMQ transport, bot SDK.

This package imports nothing from the rest of the project: it is all a bot author needs.
"""

PROTOCOL_VERSION = 1

__all__ = ["PROTOCOL_VERSION"]
