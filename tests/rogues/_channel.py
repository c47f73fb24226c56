"""The loop of the channel rogues: two processes at one table try to pass a secret.

Every game, the process at seat 0 sends a 16-bit secret (bit 15 always set, the rest from its
own ``start.seed``, which the other seats cannot know) through a channel; a process at another
seat listens for it. The channel's files are in the bot's own folder (its working folder), which
every process of the bot can read and none can write. Log lines, one each:

- ``chan-sent GAME SECRET STATUS``: seat 0 tried to send (STATUS ``ok``, or the errno name);
- ``chan-heard GAME SECRET``: another seat decoded a secret (the test expects none);
- ``chan-listened GAME STATUS``: at the end of a game, how listening went (``nothing``, or
  the errno names that stopped it).

It plays the first legal action, so it never faults.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable

import msgpack

from _wire import connect, reply, say

#: Bit 15 marks a secret as sent (a decoded word without it is noise).
MARK = 0x8000
BITS = 16


def secret_of(seed: int) -> int:
    return MARK | (seed & (MARK - 1))


def decode(bits: list[int]) -> int | None:
    """The secret from the bits heard (bit i set if the channel's i-th place was touched)."""
    value = sum(1 << i for i, bit in enumerate(bits) if bit)
    return value if value & MARK else None


def failure(exc: OSError) -> str:
    return errno.errorcode.get(exc.errno or 0, str(exc.errno))


class Channel:
    """One way to pass a number between processes. ``listen_at`` is ``turn`` (at every turn
    of a listening seat) or ``end`` (once, at the game's end: for a probe that destroys what
    it reads)."""

    listen_at = "turn"

    def send(self, game: int, secret: int) -> None:
        raise NotImplementedError

    def listen(self, game: int) -> int | None:
        raise NotImplementedError

    def begin(self, game: int) -> None:
        """A listening seat's game starts (forget what came before)."""

    def stop(self, game: int) -> None:
        """Seat 0's game ended: take back what it sent (locks are held until then)."""


def carriers(folder: str = ".") -> list[str]:
    """The channel's files: ``bit00`` ... ``bit15`` in the bot's folder."""
    return [os.path.join(folder, f"bit{i:02d}") for i in range(BITS)]


def run(make: Callable[[], Channel]) -> None:
    channel = make()
    sock = connect()
    if msgpack.unpackb(sock.recv()).get("type") != "welcome":
        raise SystemExit(2)
    seats: dict[int, int] = {}
    heard: dict[int, int] = {}
    trouble: dict[int, set[str]] = {}

    def listen(game: int) -> None:
        if game in heard:
            return
        try:
            got = channel.listen(game)
        except OSError as exc:
            trouble.setdefault(game, set()).add(failure(exc))
            return
        if got is not None:
            heard[game] = got
            say("chan-heard", game, got)

    while True:
        message = msgpack.unpackb(sock.recv())
        kind = message.get("type")
        if kind == "bye":
            return
        game = message.get("game_id")
        if kind == "start":
            seats[game] = message["seat"]
            if message["seat"] == 0:
                secret = secret_of(message["seed"])
                try:
                    channel.send(game, secret)
                    status = "ok"
                except OSError as exc:
                    status = failure(exc)
                say("chan-sent", game, secret, status)
            else:
                try:
                    channel.begin(game)
                except OSError as exc:
                    trouble.setdefault(game, set()).add(failure(exc))
        elif kind == "turn":
            if seats.get(game, 0) != 0 and channel.listen_at == "turn":
                listen(game)
            reply(sock, message, message["legal"][0])
        elif kind == "end":
            if seats.get(game, 0) == 0:
                channel.stop(game)
            else:
                listen(game)
                status = ",".join(sorted(trouble.get(game, ()))) or "nothing"
                say("chan-listened", game, "heard" if game in heard else status)
