"""Tries to fill every place it can write to, logs what happened, then plays legal[0].

In each of its TMPDIR, /tmp, /var/tmp and /dev/shm it writes one file as big as it can (up to
ARENA_BOT_MB, default 200) and ARENA_BOT_FILES (default 2000) empty files, all named after
ARENA_BOT_MARKER and its pid (an entrant runs one process per seat rotation). Logs ``filler:
PLACE=MB/FILES ...`` (MB written to the big file and files made,
or the exception's class name where nothing could be written), then ``ipc=ID`` of a System V
shared memory segment of ARENA_BOT_MB MB it makes and fills (or the errno name).
"""

import ctypes
import errno
import os
import tempfile

from _wire import env, reply, say, serve

marker = f"{env('MARKER', 'filler')}-{os.getpid()}"
mb, files = int(env("MB", "200")), int(env("FILES", "2000"))
chunk = b"x" * (1 << 20)


def fill(place):
    written = made = 0
    try:
        with open(os.path.join(place, f"{marker}-big"), "wb") as handle:
            for _ in range(mb):
                handle.write(chunk)
                handle.flush()
                written += 1
    except OSError as exc:
        if not written:
            return exc.__class__.__name__
    try:
        folder = os.path.join(place, f"{marker}-many")
        os.mkdir(folder)
        for n in range(files):
            open(os.path.join(folder, str(n)), "w").close()
            made += 1
    except OSError:
        pass
    return f"{written}/{made}"


def shared_memory():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmat.restype = ctypes.c_void_p
    ident = libc.shmget(0, max(mb, 1) << 20, 0o1600)  # IPC_PRIVATE, IPC_CREAT | 0600
    if ident < 0:
        return errno.errorcode[ctypes.get_errno()]
    address = libc.shmat(ident, None, 0)
    if address not in (None, ctypes.c_void_p(-1).value):
        ctypes.memset(address, 1, max(mb, 1) << 20)
        libc.shmdt(ctypes.c_void_p(address))
    return str(ident)


places = {"tmpdir": tempfile.gettempdir(), "tmp": "/tmp", "var_tmp": "/var/tmp", "shm": "/dev/shm"}
found = {key: fill(path) for key, path in places.items()}
found["ipc"] = shared_memory()
say("filler:", " ".join(f"{key}={value}" for key, value in found.items()))
serve(lambda sock, turn, n: reply(sock, turn, turn["legal"][0]))
