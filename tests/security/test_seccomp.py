"""The system-call filter of bot processes (``arena.procs.seccomp``), call by call.

A child process installs the filter (as a bot's child does, last before ``exec``) and runs a
probe of every denied call and of ordinary work; Python, node, shell and Rust programs start
under it. The programs for x86_64 and aarch64 are also run through a small BPF interpreter,
so the aarch64 one is checked on any machine, and their numbers against the kernel headers.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.errors import SandboxError
from arena.procs import sandbox as sandboxing
from arena.procs import seccomp
from tests.security.conftest import needs_bwrap

FILTER = seccomp.bot_filter()
needs_filter = pytest.mark.skipif(
    FILTER is None, reason=f"no system-call filter: {seccomp.problem()}"
)

PROBES = r"""
import ctypes, errno, fcntl, json, mmap, os, signal, socket, sqlite3, struct, subprocess, sys
import threading
signal.signal(signal.SIGIO, signal.SIG_IGN)  # what dnotify and leases send, where they work
numbers = json.loads(sys.argv[1])
folder = sys.argv[2]
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
found = {}

def probe(name, call):
    try:
        result = call()
        found[name] = "ok"
    except OSError as exc:
        found[name] = errno.errorcode.get(exc.errno, str(exc.errno))

def c(result):
    if result == -1:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))
    return result

def sys_(name, *args):
    return c(libc.syscall(ctypes.c_long(numbers[name]), *[ctypes.c_long(a) for a in args]))

path = os.path.join(folder, "data")
fd = os.open(path, os.O_RDONLY)
lock = struct.pack("hhqqi4x", fcntl.F_RDLCK, 0, 0, 1, 0)
for name, cmd in [("F_GETLK", 5), ("F_SETLK", 6), ("F_SETLKW", 7), ("F_OFD_GETLK", 36),
                  ("F_OFD_SETLK", 37), ("F_OFD_SETLKW", 38)]:
    probe(name, lambda cmd=cmd: fcntl.fcntl(fd, cmd, lock))
probe("F_SETLEASE", lambda: fcntl.fcntl(fd, 1024, fcntl.F_RDLCK))
probe("F_GETLEASE", lambda: fcntl.fcntl(fd, 1025))
probe("F_NOTIFY", lambda: fcntl.fcntl(os.open(folder, os.O_RDONLY), 1026, 1))
probe("lockf", lambda: fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB))
probe("flock", lambda: fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB))
probe("inotify_init1", lambda: c(libc.inotify_init1(0)))
probe("inotify_add_watch", lambda: c(libc.inotify_add_watch(-1, path.encode(), 1)))
probe("inotify_rm_watch", lambda: c(libc.inotify_rm_watch(-1, 1)))
if "inotify_init" in numbers:
    probe("inotify_init", lambda: sys_("inotify_init"))
probe("fanotify_init", lambda: c(libc.fanotify_init(0, 0)))
probe("fanotify_mark", lambda: sys_("fanotify_mark", -1, 0, 0, 0, 0))
for name in ("add_key", "request_key", "keyctl", "kcmp", "pidfd_getfd", "perf_event_open",
             "io_setup", "io_uring_setup", "io_uring_enter", "io_uring_register",
             "process_madvise", "cachestat"):
    probe(name, lambda name=name: sys_(name, 0, 0, 0, 0, 0))
# its own child: attaching stops only it; its output is not the probe's (a sleeper that
# outlived a kill would hold the caller's pipe for a minute)
sleeper = subprocess.Popen(["sleep", "60"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
probe("ptrace", lambda: c(libc.ptrace(16, sleeper.pid, 0, 0)))  # PTRACE_ATTACH
sleeper.kill()
sleeper.wait()
buffer = ctypes.create_string_buffer(8)
vec = (ctypes.c_void_p * 2)(ctypes.addressof(buffer), 8)
probe("process_vm_readv", lambda: c(libc.process_vm_readv(os.getpid(), vec, 1, vec, 1, 0)))
probe("process_vm_writev", lambda: c(libc.process_vm_writev(os.getpid(), vec, 1, vec, 1, 0)))
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                      ctypes.c_long]
mapped = libc.mmap(None, 4096, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
vector = ctypes.create_string_buffer(1)
probe("mincore", lambda: c(libc.mincore(ctypes.c_void_p(mapped), 4096, vector)))
probe("preadv2_nowait", lambda: os.preadv(fd, [bytearray(1)], 0, os.RWF_NOWAIT))
probe("fadvise_dontneed", lambda: os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED))
probe("madvise_pageout", lambda: c(libc.madvise(ctypes.c_void_p(mapped), 4096, 21)))
probe("madvise_cold", lambda: c(libc.madvise(ctypes.c_void_p(mapped), 4096, 20)))
# ordinary work
probe("read", lambda: os.pread(fd, 4, 0))
probe("preadv2", lambda: os.preadv(fd, [bytearray(1)], 0, 0))
probe("F_GETFL", lambda: fcntl.fcntl(fd, fcntl.F_GETFL))
probe("F_SETFD", lambda: fcntl.fcntl(fd, fcntl.F_SETFD, fcntl.FD_CLOEXEC))
probe("F_DUPFD_CLOEXEC", lambda: os.close(fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 0)))
probe("fadvise_random", lambda: os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM))
probe("madvise_dontneed", lambda: c(libc.madvise(ctypes.c_void_p(mapped), 4096, 4)))
probe("mmap", lambda: mmap.mmap(-1, 1 << 20).close())
probe("thread", lambda: (t := threading.Thread(target=len, args=("",)), t.start(), t.join()))
probe("subprocess", lambda: subprocess.run(["true"], check=True))
probe("socketpair", lambda: [s.close() for s in socket.socketpair()])
probe("sqlite_immutable", lambda: sqlite3.connect(
    f"file:{folder}/db.sqlite?immutable=1", uri=True).execute("SELECT n FROM t").fetchall())
try:
    sqlite3.connect(f"{folder}/db.sqlite").execute("SELECT n FROM t").fetchall()
    found["sqlite_plain"] = "ok"
except sqlite3.OperationalError as exc:
    found["sqlite_plain"] = str(exc)
print(json.dumps(found))
"""

DENIED = {
    **dict.fromkeys(
        [
            "F_GETLK",
            "F_SETLK",
            "F_SETLKW",
            "F_OFD_GETLK",
            "F_OFD_SETLK",
            "F_OFD_SETLKW",
            "F_SETLEASE",
            "F_GETLEASE",
            "lockf",
            "flock",
        ],
        "ENOLCK",
    ),
    "F_NOTIFY": "EINVAL",
    **dict.fromkeys(
        [
            "inotify_init1",
            "inotify_add_watch",
            "inotify_rm_watch",
            "fanotify_init",
            "fanotify_mark",
            "add_key",
            "request_key",
            "keyctl",
            "io_setup",
            "io_uring_setup",
            "io_uring_enter",
            "io_uring_register",
            "cachestat",
            "mincore",
        ],
        "ENOSYS",
    ),
    **dict.fromkeys(
        [
            "ptrace",
            "process_vm_readv",
            "process_vm_writev",
            "kcmp",
            "pidfd_getfd",
            "perf_event_open",
            "process_madvise",
        ],
        "EPERM",
    ),
    "preadv2_nowait": errno.errorcode[errno.EOPNOTSUPP],
    "sqlite_plain": "database is locked",  # a bot reads its SQLite files with immutable=1
}
#: Ignored advice: the call returns 0 and does nothing.
IGNORED = ("fadvise_dontneed", "madvise_pageout", "madvise_cold")
ORDINARY = (
    "read",
    "preadv2",
    "F_GETFL",
    "F_SETFD",
    "F_DUPFD_CLOEXEC",
    "fadvise_random",
    "madvise_dontneed",
    "mmap",
    "thread",
    "subprocess",
    "socketpair",
    "sqlite_immutable",
)


def folder_with_data(tmp_path: Path) -> Path:
    import sqlite3

    folder = tmp_path / "files"
    folder.mkdir()
    with open(folder / "data", "wb") as handle:
        handle.write(os.urandom(1 << 16))
        handle.flush()
        os.fsync(handle.fileno())
    with sqlite3.connect(folder / "db.sqlite") as db:
        db.execute("CREATE TABLE t (n)")
        db.execute("INSERT INTO t VALUES (1)")
    return folder


def run_filtered(argv: list[str], **kwargs) -> subprocess.CompletedProcess:
    assert FILTER is not None
    return subprocess.run(
        argv, preexec_fn=FILTER.install, capture_output=True, text=True, timeout=120, **kwargs
    )


def cached(path: Path) -> bool:
    fd = os.open(path, os.O_RDONLY)
    try:
        return os.preadv(fd, [bytearray(1)], 0, os.RWF_NOWAIT) == 1
    except BlockingIOError:
        return False
    finally:
        os.close(fd)


@needs_filter
def test_the_filter_denies_each_channel_and_allows_ordinary_work(tmp_path) -> None:
    folder = folder_with_data(tmp_path)
    assert FILTER is not None
    os.pread(os.open(folder / "data", os.O_RDONLY), 1, 0)  # in the page cache
    numbers = json.dumps(FILTER.arch.numbers)
    result = run_filtered([sys.executable, "-c", PROBES, numbers, str(folder)])
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    assert {name: found.get(name) for name in DENIED} == DENIED
    assert {name: found.get(name) for name in IGNORED + ORDINARY} == dict.fromkeys(
        IGNORED + ORDINARY, "ok"
    )
    assert cached(folder / "data"), "the ignored DONTNEED evicted nothing"


@needs_filter
def test_without_the_filter_the_probes_work(tmp_path) -> None:
    """The probe itself can fail: unfiltered, the locks and notifications it asks for work."""
    folder = folder_with_data(tmp_path)
    assert FILTER is not None
    result = subprocess.run(
        [sys.executable, "-c", PROBES, json.dumps(FILTER.arch.numbers), str(folder)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    found = json.loads(result.stdout)
    works = (
        "F_GETLK",
        "F_SETLK",
        "F_OFD_GETLK",
        "lockf",
        "flock",
        "inotify_init1",
        "mincore",
        "ptrace",
        "process_vm_readv",
        "preadv2_nowait",
        "sqlite_plain",
    )
    assert {name: found[name] for name in works} == dict.fromkeys(works, "ok")


@needs_filter
@pytest.mark.parametrize(
    "argv",
    [
        pytest.param(
            ["sh", "-c", "ls / >/dev/null && cat /proc/self/status | grep -q Seccomp"], id="sh"
        ),
        pytest.param(
            [
                "node",
                "-e",
                "const fs=require('fs');const cp=require('child_process');"
                "fs.readFileSync('/proc/self/status','utf8');"
                "cp.execFileSync('true');"
                "new Promise(r=>setTimeout(r,10)).then(()=>console.log('node ok'))",
            ],
            id="node",
        ),
        pytest.param(["rustc", "--version"], id="rust"),
    ],
)
def test_programs_start_and_run_under_the_filter(argv) -> None:
    if shutil.which(argv[0]) is None:
        pytest.skip(f"{argv[0]} is not installed")
    result = run_filtered(argv)
    assert result.returncode == 0, result.stderr
    status = run_filtered(["grep", "Seccomp:", "/proc/self/status"]).stdout
    assert status.split() == ["Seccomp:", "2"], "the program did run filtered"


X86_INT80_GETPID = b"\xb8\x14\x00\x00\x00\xcd\x80\xc3"  # mov eax, 20; int 0x80; ret
FOREIGN = r"""
import ctypes, mmap, sys
page = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
page.write(bytes.fromhex(sys.argv[1]))
call = ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(page)))
libc = ctypes.CDLL(None, use_errno=True)
x32 = libc.syscall(0x40000000 + 39)  # x32 getpid
print(call(), x32, ctypes.get_errno())
"""


@needs_filter
def test_a_32_bit_or_x32_call_cannot_go_around_the_filter() -> None:
    if seccomp.host_arch() is not seccomp.ARCHES["x86_64"]:
        pytest.skip("x86_64 only")
    plain = subprocess.run(
        [sys.executable, "-c", FOREIGN, X86_INT80_GETPID.hex()], capture_output=True, text=True
    )
    if plain.returncode != 0:
        pytest.skip("this kernel runs no 32-bit calls (no IA-32 emulation)")
    filtered = run_filtered([sys.executable, "-c", FOREIGN, X86_INT80_GETPID.hex()])
    assert filtered.returncode == 0, filtered.stderr
    via_int80, via_x32, code = (int(x) for x in filtered.stdout.split())
    assert via_int80 == -errno.ENOSYS, "a 32-bit getpid is refused, not run"
    assert (via_x32, code) == (-1, errno.ENOSYS)


def interpret(code: bytes, nr: int, arch: int, args: tuple[int, ...] = ()) -> int:
    """Run a seccomp BPF program (the subset ``arena.procs.seccomp`` emits) on one call."""
    words = [struct.unpack_from("<HBBI", code, at) for at in range(0, len(code), 8)]
    data = struct.pack("<IIQ6Q", nr, arch, 0, *(list(args) + [0] * 6)[:6])
    pc, acc = 0, 0
    while True:
        op, jt, jf, k = words[pc]
        if op == 0x20:
            acc = struct.unpack_from("<I", data, k)[0]
            pc += 1
        elif op in (0x15, 0x35, 0x45):
            hit = {0x15: acc == k, 0x35: acc >= k, 0x45: bool(acc & k)}[op]
            pc += 1 + (jt if hit else jf)
        elif op == 0x06:
            return k
        else:
            raise AssertionError(f"unexpected opcode {op:#x}")


def errno_of(action: int) -> int | None:
    """The errno a filter's action returns, or None for 'allow'."""
    if action == 0x7FFF0000:
        return None
    assert action & 0xFFFF0000 == 0x00050000, hex(action)
    return action & 0xFFFF


@pytest.mark.parametrize("name", sorted(seccomp.ARCHES))
def test_each_architectures_program_decides_each_call(name) -> None:
    arch = seccomp.ARCHES[name]
    code = seccomp.program(arch)
    assert len(code) % 8 == 0 and len(code) // 8 < 4096

    def decide(call: str, *args: int) -> int | None:
        return errno_of(interpret(code, arch.numbers[call], arch.audit, args))

    for denial in seccomp.DENIED:
        if denial.syscall not in arch.numbers:
            continue
        if denial.arg is None:
            assert decide(denial.syscall) == denial.errno, denial
        for value in denial.values:
            args = [0] * 6
            args[denial.arg] = value
            assert decide(denial.syscall, *args) == denial.errno, (denial, value)
            args[denial.arg] = value | (1 << 32)  # the kernel reads an int: high bits ignored
            assert decide(denial.syscall, *args) == denial.errno, (denial, value)
        if denial.mask:
            args = [0] * 6
            args[denial.arg] = denial.mask | 0x1
            assert decide(denial.syscall, *args) == denial.errno
    assert decide("fcntl", 0, 1) is None, "F_GETFD is allowed"
    assert decide("fcntl", 0, 1030) is None, "F_DUPFD_CLOEXEC is allowed"
    assert decide("preadv2", 0, 0, 0, 0, 0, 0x1) is None, "RWF_HIPRI is allowed"
    assert decide("fadvise64", 0, 0, 0, 1) is None, "other advice is allowed"
    assert decide("madvise", 0, 0, 4) is None, "MADV_DONTNEED is allowed"
    assert errno_of(interpret(code, 0, arch.audit)) in (None, errno.ENOSYS)  # read / io_setup
    assert errno_of(interpret(code, 39, 0x40000003)) == errno.ENOSYS, "another ABI: refused"
    assert errno_of(interpret(code, 1000, arch.audit)) is None, "unknown calls are allowed"
    if arch.x32:
        assert errno_of(interpret(code, 0x40000000 + 39, arch.audit)) == errno.ENOSYS


HEADERS = {
    "x86_64": Path("/usr/include/x86_64-linux-gnu/asm/unistd_64.h"),
    "aarch64": Path("/usr/include/asm-generic/unistd.h"),
}


@pytest.mark.parametrize("name", sorted(seccomp.ARCHES))
def test_system_call_numbers_match_the_kernel_headers(name) -> None:
    header = HEADERS[name]
    if not header.exists():
        pytest.skip(f"{header} is not installed")
    text = header.read_text()
    known = {m[1]: int(m[2]) for m in re.finditer(r"#define __NR3?2?6?4?_(\w+)\s+(\d+)", text)}
    arch = seccomp.ARCHES[name]
    checked = {call: known[call] for call in arch.numbers if call in known}
    assert checked == {call: arch.numbers[call] for call in checked}
    assert len(checked) >= len(arch.numbers) - 3, "only calls newer than the headers unchecked"
    assert known.get("seccomp") == arch.seccomp


@needs_bwrap
def test_required_refuses_where_the_filter_cannot_be_used(monkeypatch, tmp_path) -> None:
    """On another architecture (or a kernel without seccomp filters) there is no filter:
    ``--sandbox required`` then refuses to run, in one line, rather than run without it."""
    monkeypatch.setattr(seccomp, "host_arch", lambda: None)
    seccomp.problem.cache_clear()
    seccomp.bot_filter.cache_clear()
    try:
        with pytest.raises(SandboxError, match="system-call filter supports x86_64 and aarch64"):
            sandboxing.resolve("required")
        result = CliRunner().invoke(
            main,
            ["play", "skull", *["--bot", "random"] * 3, "--sandbox", "required"],
            env={"ARENA_DB": str(tmp_path / "arena.db")},
        )
        assert result.exit_code == 1
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(
            "arena: error: --sandbox required, but the system-call filter supports"
        ), result.output
    finally:
        seccomp.problem.cache_clear()
        seccomp.bot_filter.cache_clear()


def test_auto_warns_once_without_the_filter(monkeypatch, caplog) -> None:
    monkeypatch.setattr(seccomp, "problem", lambda: "no filter here")
    monkeypatch.setattr(sandboxing, "_warned_filter", False)
    with caplog.at_level(logging.WARNING, logger="arena.procs.sandbox"):
        sandboxing.resolve("auto")
        sandboxing.resolve("auto")
    warnings = [r.getMessage() for r in caplog.records if "SYSTEM-CALL FILTER" in r.getMessage()]
    assert len(warnings) == 1 and "no filter here" in warnings[0]


def test_a_filter_that_lets_a_lock_through_counts_as_not_working(monkeypatch) -> None:
    monkeypatch.setattr(seccomp.Filter, "install", lambda self: None)
    seccomp.problem.cache_clear()
    try:
        assert "does not work here" in (seccomp.problem() or "")
    finally:
        seccomp.problem.cache_clear()
