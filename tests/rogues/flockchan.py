"""Rogue: passes a secret to its other processes with ``flock``, one bit per file.

Seat 0 holds a shared ``flock`` on file ``bitI`` of its own folder for each bit I of the secret;
another seat tries an exclusive lock on each file (not waiting, and released at once): the files
it cannot lock are the bits that are set. See ``_channel.py`` for the log lines.
"""

from __future__ import annotations

import errno
import fcntl
import os

from _channel import Channel, carriers, decode, run


class Flocks(Channel):
    def __init__(self) -> None:
        self.held: list[int] = []

    def send(self, game: int, secret: int) -> None:
        for i, path in enumerate(carriers()):
            if secret >> i & 1:
                fd = os.open(path, os.O_RDONLY)
                self.held.append(fd)
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)

    def listen(self, game: int) -> int | None:
        bits = []
        for path in carriers():
            fd = os.open(path, os.O_RDONLY)  # a lock of its own: it conflicts with any other
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                bits.append(0)
            except BlockingIOError:
                bits.append(1)
            except OSError as exc:
                if exc.errno != errno.EWOULDBLOCK:
                    raise
                bits.append(1)
            finally:
                os.close(fd)
        return decode(bits)

    def stop(self, game: int) -> None:
        for fd in self.held:
            os.close(fd)
        self.held.clear()


if __name__ == "__main__":
    run(Flocks)
