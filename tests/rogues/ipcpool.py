"""Rogue: the pooling rogue (``pooler.py``: it names its opponents' Skull King cards from what
its other processes saw of the deal) with channels that outlive every process and every uid
by the kernel's IPC objects, for bots run unsandboxed as root (each process a uid of its own,
whose leftovers the arena removes by that uid).

The channel (``ARENA_BOT_POOL_CHANNEL``; ``ARENA_BOT_POOL_TAG`` keeps runs apart):

- ``sysv``: a System V shared memory segment of a key every process computes from the tag.
  The process that creates it gives it away at once (``shmctl(IPC_SET)`` to uid and gid 65534,
  mode 0666: its creator needs no privilege for that), so that no bot uid owns it. Each process
  claims a region of its own in it and appends its records there; it reads everyone's.
- ``mqueue``: a POSIX message queue named from the tag (mode 0666), holding every record known:
  a process drains it, adds what it knows, and sends the union back. Its files are visible only
  where an ``mqueue`` file system is mounted (``/dev/mqueue``), which it need not be.

Both outlive the processes that made them; nothing any bot uid owns holds them. The log lines
are ``pooler.py``'s (``pool-start``, ``pool``, ``pool-error``).
"""

from __future__ import annotations

import ctypes
import errno
import os
import random
import struct
import sys
import zlib

import pooler
from _wire import say, serve

libc = ctypes.CDLL(None, use_errno=True)
IPC_CREAT, IPC_EXCL, IPC_SET, IPC_STAT = 0o1000, 0o2000, 1, 2
#: Whom the segment is given to: another uid than any bot's (nobody).
GIVEN_TO = 65534
RECORD = struct.Struct("<IBBQ")  # token, round, kind, bits


def _check(result: int, what: str) -> int:
    if result == -1:
        code = ctypes.get_errno()
        raise OSError(code, f"{what}: {os.strerror(code)}")
    return result


def _key() -> int:
    """The segment's key: the same in every process of the run, never IPC_PRIVATE (0)."""
    return ctypes.c_int32(zlib.crc32(b"arena-pool-" + pooler.TAG.encode()) | 1).value


class SysvChannel:
    """Regions of a shared memory segment: a header (owner, count), then records."""

    REGIONS, REGION = 256, 4096
    HEADER = struct.Struct("<QI4x")

    def __init__(self) -> None:
        libc.shmat.restype = ctypes.c_void_p
        libc.shmat.argtypes = (ctypes.c_int, ctypes.c_void_p, ctypes.c_int)
        size = self.REGIONS * self.REGION
        ident = libc.shmget(_key(), ctypes.c_size_t(size), IPC_CREAT | IPC_EXCL | 0o666)
        if ident >= 0:
            self._give_away(ident)
        elif ctypes.get_errno() == errno.EEXIST:
            ident = _check(libc.shmget(_key(), ctypes.c_size_t(0), 0), "shmget")
        else:
            _check(ident, "shmget")
        address = libc.shmat(ident, None, 0)
        if address in (None, ctypes.c_void_p(-1).value):
            _check(-1, "shmat")
        self.address, self.size = address, size
        self.me = random.getrandbits(63) | 1
        self.region: int | None = None

    def _give_away(self, ident: int) -> None:
        """Owner uid and gid 65534, mode 0666: the segment is no longer this uid's."""
        info = ctypes.create_string_buffer(512)  # struct shmid_ds, with room to spare
        _check(libc.shmctl(ident, IPC_STAT, info), "shmctl(IPC_STAT)")
        struct.pack_into("<II", info, 4, GIVEN_TO, GIVEN_TO)  # ipc_perm: key, uid, gid, ...
        struct.pack_into("<H", info, 20, 0o666)  # ... cuid, cgid, mode
        _check(libc.shmctl(ident, IPC_SET, info), "shmctl(IPC_SET)")

    def _claim(self) -> int:
        """The first region no process holds, now this one's."""
        for region in range(self.REGIONS):
            at = self.address + region * self.REGION
            owner, _ = self.HEADER.unpack(ctypes.string_at(at, self.HEADER.size))
            if owner == 0:
                ctypes.memmove(at, self.HEADER.pack(self.me, 0), self.HEADER.size)
                return region
        raise OSError(errno.ENOSPC, "every region is taken")

    def publish(self, token: int, round_: int, kind: int, bits: int) -> None:
        if self.region is None:
            self.region = self._claim()
        at = self.address + self.region * self.REGION
        _, count = self.HEADER.unpack(ctypes.string_at(at, self.HEADER.size))
        place = at + self.HEADER.size + count * RECORD.size
        if place + RECORD.size > at + self.REGION:
            return  # full: what it holds stays readable
        ctypes.memmove(place, RECORD.pack(token, round_, kind, bits), RECORD.size)
        ctypes.memmove(at, self.HEADER.pack(self.me, count + 1), self.HEADER.size)

    def read(self) -> list[tuple[int, int, int, int]]:
        data = ctypes.string_at(self.address, self.size)
        records = []
        for region in range(self.REGIONS):
            at = region * self.REGION
            owner, count = self.HEADER.unpack_from(data, at)
            if owner in (0, self.me):
                continue
            count = min(count, (self.REGION - self.HEADER.size) // RECORD.size)
            for n in range(count):
                records.append(RECORD.unpack_from(data, at + self.HEADER.size + n * RECORD.size))
        return records


class MqAttr(ctypes.Structure):
    _fields_ = [(name, ctypes.c_long) for name in ("flags", "maxmsg", "msgsize", "curmsgs")] + [
        ("pad", ctypes.c_long * 4)
    ]


class QueueChannel:
    """One POSIX message queue holding every record known (drained and sent back whole)."""

    MSGSIZE, MAXMSG = 8192, 10

    def __init__(self) -> None:
        libc.mq_open.restype = ctypes.c_int
        attr = MqAttr(0, self.MAXMSG, self.MSGSIZE, 0)
        name = f"/arena-pool-{pooler.TAG}".encode()
        flags = os.O_RDWR | os.O_CREAT | os.O_NONBLOCK
        self.queue = _check(
            libc.mq_open(name, flags, ctypes.c_uint(0o666), ctypes.byref(attr)), "mq_open"
        )
        try:
            os.fchmod(self.queue, 0o666)  # every bot uid may use it (its creator's umask aside)
        except OSError:
            pass  # made by another process: its creator did it
        self.known: set[tuple[int, int, int, int]] = set()
        self.buffer = ctypes.create_string_buffer(self.MSGSIZE)

    def _sync(self) -> None:
        """Take every message in the queue, then send back one holding all that is known."""
        while True:
            size = libc.mq_receive(self.queue, self.buffer, self.MSGSIZE, None)
            if size < 0:
                if ctypes.get_errno() == errno.EAGAIN:
                    break
                _check(-1, "mq_receive")
            data = self.buffer.raw[:size]
            self.known.update(RECORD.iter_unpack(data[: len(data) // RECORD.size * RECORD.size]))
        data = b"".join(RECORD.pack(*record) for record in sorted(self.known))
        per = self.MSGSIZE // RECORD.size * RECORD.size
        for start in range(0, len(data), per):
            if libc.mq_send(
                self.queue, data[start : start + per], len(data[start : start + per]), 0
            ):
                if ctypes.get_errno() != errno.EAGAIN:
                    _check(-1, "mq_send")

    def publish(self, token: int, round_: int, kind: int, bits: int) -> None:
        self.known.add((token, round_, kind, bits))
        self._sync()

    def read(self) -> list[tuple[int, int, int, int]]:
        self._sync()
        return list(self.known)


if __name__ == "__main__":
    with open("/proc/self/cmdline", "rb") as own:
        say("pool-start", pooler.PROCESS, own.read().rstrip(b"\0").replace(b"\0", b" ").decode())
    try:
        pooler.channel = {"sysv": SysvChannel, "mqueue": QueueChannel}[pooler.CHANNEL]()
    except OSError as exc:
        say("pool-error", pooler.PROCESS, type(exc).__name__, exc)
        sys.exit(3)
    serve(pooler.on_turn, pooler.on_start)
