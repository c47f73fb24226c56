"""A raw protocol client for rogue bots: connect, hello, then hand each turn to a callback."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import msgpack  # noqa: E402
import zmq  # noqa: E402

Turn = dict[str, Any]


def connect(
    *,
    hello: bool = True,
    protocol: int = 1,
    token: str | None = None,
    max_games: int | None = None,
    batch: bool = False,
) -> zmq.Socket:
    sock = zmq.Context.instance().socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 2000)
    sock.connect(os.environ["ARENA_ENDPOINT"])
    if hello:
        message = {
            "type": "hello",
            "protocol": protocol,
            "token": token or os.environ["ARENA_TOKEN"],
            "name": "rogue",
        }
        if max_games is not None:
            message["max_games"] = max_games
        if batch:
            message["batch"] = True
        sock.send(msgpack.packb(message))
    return sock


def reply(sock: zmq.Socket, turn: Turn, action: str, **override: Any) -> None:
    message = {
        "type": "action",
        "game_id": turn["game_id"],
        "request": turn["request"],
        "action": action,
    }
    message.update(override)
    sock.send(msgpack.packb(message))


def env(name: str, default: str = "") -> str:
    """A rogue's setting: ``ARENA_BOT_NAME`` (the arena passes ARENA_BOT_* variables on)."""
    return os.environ.get(f"ARENA_BOT_{name}", default)


def say(*parts: Any) -> None:
    """One line to stdout (the bot's log), flushed at once."""
    print(*parts, flush=True)


def serve(
    on_turn: Callable[[zmq.Socket, Turn, int], None],
    on_start: Callable[[zmq.Socket, dict], None] | None = None,
    *,
    sock: zmq.Socket | None = None,
    max_games: int | None = None,
) -> None:
    """Serve until bye; ``on_turn(sock, turn, n)`` gets the n-th turn of this process (0-based).

    ``sock`` is an already welcomed socket (default: connect and say hello now, declaring
    ``max_games`` if given).
    """
    if sock is None:
        sock = connect(max_games=max_games)
        welcome = msgpack.unpackb(sock.recv())
        if welcome.get("type") != "welcome":
            sys.exit(2)
    count = 0
    while True:
        msg = msgpack.unpackb(sock.recv())
        kind = msg.get("type")
        if kind == "bye":
            return
        if kind == "start" and on_start:
            on_start(sock, msg)
        if kind == "turn":
            on_turn(sock, msg, count)
            count += 1
