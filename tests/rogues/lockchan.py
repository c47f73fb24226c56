"""Rogue: passes a secret to its other processes through the position of a file lock.

Seat 0 puts a POSIX read lock (``fcntl`` ``F_SETLK``) on the byte at offset SECRET of a file of
its own folder, which it may only read; another seat asks ``F_GETLK`` whether a write lock on
the whole file would conflict, and the answer says where the other process's lock is. See
``_channel.py`` for the log lines.
"""

from __future__ import annotations

import fcntl
import os
import struct

from _channel import MARK, Channel, carriers, run

FLOCK = "hhqqi4x"  # struct flock: type, whence, start, len, pid


class Locks(Channel):
    def __init__(self) -> None:
        self.fd = os.open(carriers()[0], os.O_RDONLY)

    def send(self, game: int, secret: int) -> None:
        fcntl.fcntl(self.fd, fcntl.F_SETLK, struct.pack(FLOCK, fcntl.F_RDLCK, 0, secret, 1, 0))

    def listen(self, game: int) -> int | None:
        asked = struct.pack(FLOCK, fcntl.F_WRLCK, 0, 0, 0, 0)
        kind, _, start, _, _ = struct.unpack(FLOCK, fcntl.fcntl(self.fd, fcntl.F_GETLK, asked))
        return start if kind != fcntl.F_UNLCK and start & MARK else None

    def stop(self, game: int) -> None:
        try:
            fcntl.fcntl(self.fd, fcntl.F_SETLK, struct.pack(FLOCK, fcntl.F_UNLCK, 0, 0, 0, 0))
        except OSError:
            pass


if __name__ == "__main__":
    run(Locks)
