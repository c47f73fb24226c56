"""Python bot SDK: a bot is one function ``act(view, legal) -> action``.

    from protocol.sdk import run_bot

    def act(view, legal):
        return legal[0]

    if __name__ == "__main__":
        run_bot(act, name="first")

``run_bot`` reads ``ARENA_ENDPOINT`` and ``ARENA_TOKEN`` (and, for an encrypted connection to
a remote arena, ``ARENA_SERVER_KEY``, ``ARENA_PUBLIC_KEY`` and ``ARENA_SECRET_KEY``: ZeroMQ
CURVE keys as Z85 text, from ``arena bot token NAME --curve``), says hello, and serves game after
game. At each ``start`` it seeds Python's global ``random`` module with the seed the arena sends,
so a bot that uses ``random`` is deterministic per game. A bot that wants hooks subclasses
``Bot`` and overrides ``act`` and optionally ``start`` and ``end``; ``self.random`` is a
``random.Random`` seeded the same way.
"""

from __future__ import annotations

import logging
import os
import random
import sys
from collections.abc import Callable
from typing import Any

from protocol import PROTOCOL_VERSION
from protocol.errors import ConnectionClosed, ProtocolError
from protocol.messages import hello, validate_from_arena
from protocol.transport import DealerSocket

log = logging.getLogger("protocol.sdk")

ActFunction = Callable[[dict[str, Any], list[str]], str]


class Bot:
    """Base class for bots with hooks. Override ``act``; ``start`` and ``end`` are optional."""

    name = "bot"

    def __init__(self) -> None:
        self.random = random.Random(0)

    def start(self, info: dict[str, Any]) -> None:
        """Called at the start of each game with the ``start`` message."""

    def act(self, view: dict[str, Any], legal: list[str]) -> str:
        raise NotImplementedError

    def turn(self, message: dict[str, Any]) -> str:
        """Called with each whole ``turn`` message (``deadline_ms`` included); answers
        ``act(view, legal)`` unless overridden."""
        return self.act(message["view"], message["legal"])

    def end(self, info: dict[str, Any]) -> None:
        """Called at the end of each game with the ``end`` message."""


class _FunctionBot(Bot):
    def __init__(self, function: ActFunction, name: str) -> None:
        super().__init__()
        self.function = function
        self.name = name

    def act(self, view: dict[str, Any], legal: list[str]) -> str:
        return self.function(view, legal)


#: Environment variables holding the CURVE keys: the arena's public key, then the bot's pair.
CURVE_ENV = ("ARENA_SERVER_KEY", "ARENA_PUBLIC_KEY", "ARENA_SECRET_KEY")


def curve_from_env(environ: dict[str, str] | None = None) -> tuple[str, str, str] | None:
    """The CURVE keys from the environment: all three, or None if none is set.

    Raises ProtocolError if only some are set.
    """
    environ = os.environ if environ is None else environ
    keys = [environ.get(name, "") for name in CURVE_ENV]
    if not any(keys):
        return None
    if not all(keys):
        missing = [name for name, key in zip(CURVE_ENV, keys) if not key]
        raise ProtocolError(
            f"CURVE needs all of {', '.join(CURVE_ENV)}; missing {', '.join(missing)}"
        )
    return keys[0], keys[1], keys[2]


def serve(
    bot: Bot,
    *,
    endpoint: str,
    token: str,
    idle_timeout_ms: int | None = None,
    curve: tuple[str, str, str] | None = None,
) -> int:
    """Connect, say hello and answer the arena until ``bye``. Returns an exit status.

    ``curve`` is ``(server public key, own public key, own secret key)`` for CURVE.
    """
    sock = DealerSocket(endpoint, curve=curve)
    try:
        sock.send(hello(token=token, name=bot.name[:64], protocol=PROTOCOL_VERSION))
        reply = sock.recv(idle_timeout_ms)
        if reply is None:
            raise ConnectionClosed("no answer to hello")
        if reply.get("type") == "error":
            log.error("arena refused the bot: %s %s", reply.get("code"), reply.get("message"))
            return 2
        send = sock.socket.send
        from protocol.codec import encode

        while True:
            msg = sock.recv(idle_timeout_ms)
            if msg is None:
                raise ConnectionClosed("the arena went quiet")
            kind = msg.get("type")
            if kind == "turn":
                choice = bot.turn(msg)
                send(
                    encode(
                        {
                            "type": "action",
                            "game_id": msg["game_id"],
                            "request": msg["request"],
                            "action": choice,
                        }
                    )
                )
            elif kind == "start":
                validate_from_arena(msg)
                seed = msg["seed"]
                random.seed(seed)
                bot.random.seed(seed)
                bot.start(msg)
            elif kind == "end":
                bot.end(msg)
            elif kind == "bye":
                return 0
            else:
                validate_from_arena(msg)
    finally:
        sock.close()


def run_bot(bot: ActFunction | Bot, *, name: str | None = None) -> None:
    """Run a bot (a function or a Bot instance) as this process's main loop, then exit."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(name)s: %(message)s")
    if not isinstance(bot, Bot):
        bot = _FunctionBot(bot, name or getattr(bot, "__name__", "bot"))
    elif name:
        bot.name = name
    endpoint = os.environ.get("ARENA_ENDPOINT")
    token = os.environ.get("ARENA_TOKEN")
    if not endpoint or not token:
        log.error("ARENA_ENDPOINT and ARENA_TOKEN must be set (the arena sets them)")
        raise SystemExit(2)
    try:
        status = serve(bot, endpoint=endpoint, token=token, curve=curve_from_env())
    except ProtocolError as exc:
        log.error("protocol error: %s", exc)
        status = 3
    except KeyboardInterrupt:
        status = 130
    raise SystemExit(status)


__all__ = ["Bot", "run_bot", "serve"]
