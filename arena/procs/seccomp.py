"""A system-call filter (seccomp) closing the channels between bot processes that need no
write access.

Two processes that may read one file can talk through it without writing it: a lock on a byte
range (its offset is a number), a ``flock`` per file (one bit), ``inotify`` or ``dnotify``
events when the other opens or reads it, or which of its pages are in the page cache (evicted
with ``posix_fadvise``, tested with ``preadv2(RWF_NOWAIT)``). Keyrings inherited from the
arena, other processes' memory (``ptrace``, ``process_vm_readv``) and the like are channels
too. Every bot process gets a filter (``DENIED``) that makes these calls fail with an errno
(as on a kernel built without the feature), never kills the bot, and allows everything else.

The filter is a classic BPF program built here (no library needed), for x86_64 and aarch64
only: it checks the calling convention first (a 32-bit or x32 call gets ENOSYS, so a process
cannot go around it), then the system call and, for some, one argument. The child installs
it as its last step before ``exec`` (``arena.procs.limits.child_setup``), after ``no_new_privs``;
bubblewrap, when the bot is sandboxed, runs under it too. ``problem()`` says why it cannot be
used here (another architecture, a kernel without seccomp filters), tested once per process
by a child that installs it.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import functools
import logging
import os
import platform
import struct
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass

from arena.procs.lifetime import no_new_privileges
from arena.procs.probe import run_true

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Denial:
    """Calls of ``syscall`` fail with ``errno`` (0: do nothing and return 0): all of them, or
    those whose argument number ``arg`` is one of ``values`` or has a bit of ``mask``."""

    syscall: str
    errno: int
    arg: int | None = None
    values: tuple[int, ...] = ()
    mask: int = 0


# fcntl commands (the same numbers on every 64-bit architecture)
F_GETLK, F_SETLK, F_SETLKW = 5, 6, 7
F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW = 36, 37, 38
F_SETLEASE, F_GETLEASE, F_NOTIFY = 1024, 1025, 1026
POSIX_FADV_DONTNEED = 4
MADV_COLD, MADV_PAGEOUT = 20, 21
RWF_NOWAIT = 0x8

#: What every bot process is denied. Locks and leases fail with ENOLCK ("no locks
#: available"); notifications, keyrings, page-cache residency and asynchronous I/O with ENOSYS
#: (as without the feature: programs fall back); reaching another process with EPERM; a read
#: that only tells whether pages are cached (RWF_NOWAIT) with EOPNOTSUPP; advice that would
#: evict pages from the page cache is ignored (returns 0).
DENIED: tuple[Denial, ...] = (
    Denial(
        "fcntl",
        errno.ENOLCK,
        arg=1,
        values=(
            F_GETLK,
            F_SETLK,
            F_SETLKW,
            F_OFD_GETLK,
            F_OFD_SETLK,
            F_OFD_SETLKW,
            F_SETLEASE,
            F_GETLEASE,
        ),
    ),
    Denial("fcntl", errno.EINVAL, arg=1, values=(F_NOTIFY,)),
    Denial("flock", errno.ENOLCK),
    *(
        Denial(name, errno.ENOSYS)
        for name in (
            "inotify_init",
            "inotify_init1",
            "inotify_add_watch",
            "inotify_rm_watch",
            "fanotify_init",
            "fanotify_mark",
            "add_key",
            "request_key",
            "keyctl",
            "mincore",
            "cachestat",
            "io_setup",
            "io_uring_setup",
            "io_uring_enter",
            "io_uring_register",
        )
    ),
    *(
        Denial(name, errno.EPERM)
        for name in (
            "ptrace",
            "process_vm_readv",
            "process_vm_writev",
            "process_madvise",
            "kcmp",
            "pidfd_getfd",
            "perf_event_open",
        )
    ),
    Denial("preadv2", errno.EOPNOTSUPP, arg=5, mask=RWF_NOWAIT),
    Denial("fadvise64", 0, arg=3, values=(POSIX_FADV_DONTNEED,)),
    Denial("madvise", 0, arg=2, values=(MADV_COLD, MADV_PAGEOUT)),
)


@dataclass(frozen=True)
class Arch:
    """An architecture's audit number, its system-call numbers and the number of
    ``seccomp`` itself; ``x32`` marks x86_64, whose x32 calls set bit 30 of the number."""

    name: str
    audit: int
    numbers: dict[str, int]
    seccomp: int
    x32: bool = False


_COMMON = {"pidfd_getfd": 438, "io_uring_setup": 425, "io_uring_enter": 426}
ARCHES = {
    "x86_64": Arch(
        "x86_64",
        audit=0xC000003E,
        seccomp=317,
        x32=True,
        numbers={
            **_COMMON,
            "io_uring_register": 427,
            "cachestat": 451,
            "process_madvise": 440,
            "fcntl": 72,
            "flock": 73,
            "inotify_init": 253,
            "inotify_add_watch": 254,
            "inotify_rm_watch": 255,
            "inotify_init1": 294,
            "fanotify_init": 300,
            "fanotify_mark": 301,
            "add_key": 248,
            "request_key": 249,
            "keyctl": 250,
            "mincore": 27,
            "io_setup": 206,
            "ptrace": 101,
            "process_vm_readv": 310,
            "process_vm_writev": 311,
            "kcmp": 312,
            "perf_event_open": 298,
            "preadv2": 327,
            "fadvise64": 221,
            "madvise": 28,
        },
    ),
    "aarch64": Arch(
        "aarch64",
        audit=0xC00000B7,
        seccomp=277,
        numbers={
            **_COMMON,
            "io_uring_register": 427,
            "cachestat": 451,
            "process_madvise": 440,
            "fcntl": 25,
            "flock": 32,
            "inotify_init1": 26,  # no inotify_init on aarch64
            "inotify_add_watch": 27,
            "inotify_rm_watch": 28,
            "fanotify_init": 262,
            "fanotify_mark": 263,
            "add_key": 217,
            "request_key": 218,
            "keyctl": 219,
            "mincore": 232,
            "io_setup": 0,
            "ptrace": 117,
            "process_vm_readv": 270,
            "process_vm_writev": 271,
            "kcmp": 272,
            "perf_event_open": 241,
            "preadv2": 286,
            "fadvise64": 223,
            "madvise": 233,
        },
    ),
}

# classic BPF, as seccomp runs it
_LD_W_ABS, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06
_RET_ALLOW, _RET_ERRNO = 0x7FFF0000, 0x00050000
_NR, _ARCH, _ARGS = 0, 4, 16  # offsets in struct seccomp_data (little-endian: low word first)
_X32_BIT = 0x40000000


def _insn(code: int, k: int = 0, jt: int = 0, jf: int = 0) -> tuple[int, int, int, int]:
    return code, jt, jf, k


def program(arch: Arch, denied: tuple[Denial, ...] = DENIED) -> bytes:
    """The filter for ``arch`` as an array of ``struct sock_filter`` (8 bytes each).

    Layout: a foreign calling convention (and x32) -> ENOSYS; then, per denied system call,
    ``nr == N ? (its checks) : next``; at the end, allow. A check loads the argument's low 32
    bits (every checked argument is a C int) and returns the errno on a match.
    """
    insns: list[tuple[int, int, int, int]] = [
        _insn(_LD_W_ABS, _ARCH),
        _insn(_JEQ, arch.audit, jt=1),
        _insn(_RET, _RET_ERRNO | errno.ENOSYS),
        _insn(_LD_W_ABS, _NR),
    ]
    if arch.x32:
        insns += [_insn(_JGE, _X32_BIT, jf=1), _insn(_RET, _RET_ERRNO | errno.ENOSYS)]
    by_call: dict[int, list[Denial]] = {}
    for denial in denied:
        number = arch.numbers.get(denial.syscall)
        if number is not None:
            by_call.setdefault(number, []).append(denial)
    for number, denials in by_call.items():
        body = _checks(denials)
        if len(body) > 255:
            raise ValueError(f"too many checks for system call {number}")
        insns += [_insn(_JEQ, number, jf=len(body)), *body]
    insns.append(_insn(_RET, _RET_ALLOW))
    return b"".join(struct.pack("<HBBI", *insn) for insn in insns)


def _checks(denials: list[Denial]) -> list[tuple[int, int, int, int]]:
    """The body run for one denied system call (the syscall number is in the accumulator):
    return an errno, or allow."""
    unconditional = [d for d in denials if d.arg is None]
    if unconditional:
        return [_insn(_RET, _RET_ERRNO | unconditional[0].errno)]
    tests: list[tuple[int, int, int]] = []  # (argument, opcode, constant) -> errno after it
    errnos: list[int] = []
    for denial in denials:
        assert denial.arg is not None
        for value in denial.values:
            tests.append((denial.arg, _JEQ, value))
            errnos.append(denial.errno)
        if denial.mask:
            tests.append((denial.arg, _JSET, denial.mask))
            errnos.append(denial.errno)
    body: list[tuple[int, int, int, int]] = []
    loaded = None
    for index, (arg, opcode, constant) in enumerate(tests):
        if arg != loaded:
            body.append(_insn(_LD_W_ABS, _ARGS + 8 * arg))
            loaded = arg
        body.append((opcode, index, 0, constant))  # jt patched below: to its return
    body.append(_insn(_RET, _RET_ALLOW))
    returns_at = len(body)
    body += [_insn(_RET, _RET_ERRNO | code) for code in errnos]
    jumps = [i for i, insn in enumerate(body) if insn[0] in (_JEQ, _JSET)]
    for position, index in zip(jumps, range(len(tests)), strict=True):
        code, _, _, k = body[position]
        body[position] = (code, returns_at + index - position - 1, 0, k)
    return body


def host_arch() -> Arch | None:
    """The architecture of this process, if the filter knows it (a 64-bit little-endian
    x86_64 or aarch64 process on Linux), else None."""
    if not sys.platform.startswith("linux") or struct.calcsize("P") != 8:
        return None
    if sys.byteorder != "little":
        return None
    machine = platform.machine().lower()
    return ARCHES.get({"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine))


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


_SECCOMP_SET_MODE_FILTER = 1
_SECCOMP_FILTER_FLAG_SPEC_ALLOW = 1 << 2  # keep the process's speculation settings


class Filter:
    """A built filter, ready to install in a child between fork and exec: everything is
    allocated here, in the parent, so the child only makes system calls."""

    def __init__(self, arch: Arch, code: bytes) -> None:
        self.arch = arch
        self._code = ctypes.create_string_buffer(code, len(code))
        self._prog = _SockFprog(len(code) // 8, ctypes.addressof(self._code))
        self._libc = ctypes.CDLL(None, use_errno=True)
        self._syscall = self._libc.syscall
        self._syscall.restype = ctypes.c_long
        self._args = [
            ctypes.c_long(arch.seccomp),
            ctypes.c_long(_SECCOMP_SET_MODE_FILTER),
            ctypes.c_void_p(ctypes.addressof(self._prog)),
        ]
        self._flags = (
            ctypes.c_long(_SECCOMP_FILTER_FLAG_SPEC_ALLOW),
            ctypes.c_long(0),
        )

    def install(self) -> None:
        """Install the filter on this process (and everything it will run); raises OSError.

        Sets ``no_new_privs`` first (seccomp requires it of an unprivileged process)."""
        no_new_privileges()
        number, mode, prog = self._args
        for flags in self._flags:  # SPEC_ALLOW is unknown before Linux 4.17
            if self._syscall(number, mode, flags, prog) == 0:
                return
            code = ctypes.get_errno()
            if code != errno.EINVAL:
                break
        raise OSError(code, f"cannot install the system-call filter: {os.strerror(code)}")


class _NotDenied(Exception):
    """The filter was installed, yet a lock was allowed (``problem``'s check)."""


def _install_and_check(built: Filter) -> Callable[[], None]:
    """What ``problem``'s child does before it runs ``true``: install the filter, then make
    sure a lock query (``F_GETLK`` on its standard input) is refused with ENOLCK."""
    query = struct.pack("hhqqi4x", fcntl.F_WRLCK, 0, 0, 0, 0)

    def check() -> None:
        built.install()
        try:
            fcntl.fcntl(0, fcntl.F_GETLK, query)
        except OSError as exc:
            if exc.errno == errno.ENOLCK:
                return
        raise _NotDenied

    return check


@functools.cache
def problem() -> str | None:
    """None if bot processes get the filter here, else why not (one line). Tested once per
    process: a child installs the filter, checks that a lock query is refused, and runs
    ``true`` under it."""
    arch = host_arch()
    if arch is None:
        return (
            f"the system-call filter supports x86_64 and aarch64 (64-bit) only, "
            f"not {platform.machine() or 'this machine'} ({struct.calcsize('P') * 8}-bit)"
        )
    built = Filter(arch, program(arch))
    try:
        status = run_true(_install_and_check(built))
    except subprocess.SubprocessError:
        return (
            "the system-call filter does not work here (the kernel refused it, "
            "or it let a lock through)"
        )
    except OSError as exc:
        return f"the system-call filter could not be tested here: {exc}"
    if status != 0:
        return f"the system-call filter does not work here (true exited {status})"
    return None


@functools.cache
def bot_filter() -> Filter | None:
    """The filter every bot process gets, or None where it cannot be used (``problem``)."""
    why = problem()
    if why is not None:
        log.info("bots run without the system-call filter: %s", why)
        return None
    arch = host_arch()
    assert arch is not None
    return Filter(arch, program(arch))
