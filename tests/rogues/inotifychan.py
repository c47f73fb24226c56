"""Rogue: passes a secret to its other processes through ``inotify``, one bit per file.

Every process watches the files ``bit00`` ... ``bit15`` of its own folder (which it may only
read) for opens and reads; seat 0 reads file ``bitI`` for each bit I of the secret; another
seat reads its watch's events: the files someone else opened are the bits that are set. Each
process forgets its own reads' events. See ``_channel.py`` for the log lines.
"""

from __future__ import annotations

import ctypes
import os
import struct

from _channel import Channel, carriers, decode, run

IN_ACCESS, IN_OPEN, IN_NONBLOCK = 0x1, 0x20, 0o4000
EVENT = "iIII"  # wd, mask, cookie, len (then len bytes of name)


class Notices(Channel):
    def __init__(self) -> None:
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.fd = self.libc.inotify_init1(IN_NONBLOCK)
        self.watches: dict[int, int] = {}
        self.problem = ctypes.get_errno() if self.fd < 0 else 0
        if self.fd >= 0:
            for i, path in enumerate(carriers()):
                wd = self.libc.inotify_add_watch(self.fd, os.fsencode(path), IN_OPEN | IN_ACCESS)
                if wd < 0:
                    self.problem = ctypes.get_errno()
                    break
                self.watches[wd] = i

    def events(self) -> list[int]:
        """The bits of the files touched since the last call (an error if it cannot watch)."""
        if self.problem:
            raise OSError(self.problem, os.strerror(self.problem))
        touched = []
        while True:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                return touched
            at = 0
            while at < len(data):
                wd, _, _, size = struct.unpack_from(EVENT, data, at)
                at += struct.calcsize(EVENT) + size
                if wd in self.watches:
                    touched.append(self.watches[wd])

    def send(self, game: int, secret: int) -> None:
        for i, path in enumerate(carriers()):
            if secret >> i & 1:
                with open(path, "rb") as handle:
                    handle.read(1)
        if not self.problem:
            self.events()  # its own reads

    def begin(self, game: int) -> None:
        if not self.problem:
            self.events()

    def listen(self, game: int) -> int | None:
        touched = set(self.events())
        return decode([i in touched for i in range(16)])


if __name__ == "__main__":
    run(Notices)
