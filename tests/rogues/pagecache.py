"""Rogue: passes a secret to its other processes through the page cache of a file it may only
read.

The file ``pages`` of its own folder (17 places of 256 KiB: reading a byte of one never brings
another in) is evicted from the page cache by seat 0 (``posix_fadvise`` ``DONTNEED``), which
then reads place I for each bit I of the secret; another seat, when the game ends, asks of each
place whether it is cached without reading it from disk (``preadv2`` with ``RWF_NOWAIT``): the
cached places are the bits that are set. The 17th place, which seat 0 never reads, must be
uncached, or what it saw is noise. Asking brings a place in (and maybe the next ones): places
are asked from the last to the first, once. See ``_channel.py`` for the log lines.
"""

from __future__ import annotations

import os

from _channel import BITS, Channel, decode, run

PLACE = 256 << 10


class Pages(Channel):
    listen_at = "end"  # a probe brings the page in: one look only

    def __init__(self) -> None:
        self.fd = os.open("pages", os.O_RDONLY)
        os.posix_fadvise(self.fd, 0, 0, os.POSIX_FADV_RANDOM)  # no read-ahead

    def cached(self, offset: int) -> bool:
        try:
            return os.preadv(self.fd, [bytearray(1)], offset, os.RWF_NOWAIT) == 1
        except BlockingIOError:
            return False

    def send(self, game: int, secret: int) -> None:
        os.posix_fadvise(self.fd, 0, 0, os.POSIX_FADV_DONTNEED)
        for i in range(BITS):
            if secret >> i & 1:
                os.pread(self.fd, 1, i * PLACE)

    def listen(self, game: int) -> int | None:
        if self.cached(BITS * PLACE):
            return None
        bits = [self.cached(i * PLACE) for i in reversed(range(BITS))]
        return decode(bits[::-1])


if __name__ == "__main__":
    run(Pages)
