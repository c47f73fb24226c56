"""Rogue: passes a secret to its other processes through a FIFO in its own folder.

A FIFO is opened for writing even on a read-only file system: seat 0 writes the game and the
secret into the FIFO ``pipe`` of its folder (opened read-write, so that it never blocks, and
kept open until the game ends); another seat opens it too and reads what is there. See
``_channel.py`` for the log lines.
"""

from __future__ import annotations

import os
import struct

from _channel import Channel, run

RECORD = "<qH"


class Fifo(Channel):
    def __init__(self) -> None:
        self.fd: int | None = None
        self.seen: dict[int, int] = {}

    def open(self) -> int:
        if self.fd is None:
            self.fd = os.open("pipe", os.O_RDWR | os.O_NONBLOCK)
        return self.fd

    def send(self, game: int, secret: int) -> None:
        os.write(self.open(), struct.pack(RECORD, game, secret))

    def listen(self, game: int) -> int | None:
        try:
            data = os.read(self.open(), 4096)
        except BlockingIOError:
            data = b""
        size = struct.calcsize(RECORD)
        for at in range(0, len(data) - size + 1, size):
            sent_in, secret = struct.unpack_from(RECORD, data, at)
            self.seen[sent_in] = secret
        return self.seen.get(game)


if __name__ == "__main__":
    run(Fifo)
