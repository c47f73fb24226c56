"""Tries to reach what is private to the arena, logs what happened, then plays legal[0].

ARENA_BOT_DB: the results database; ARENA_BOT_KEYS: the secret keys file beside it;
ARENA_BOT_LOGS: the logs folder; ARENA_BOT_REFEREE: the referee's pid. It also reads the
environment of every process it can see and signals (signal 0: a permission check only) every
process of another user it can see.

Logs one line: ``escape: db_read=.. db_write=.. keys=.. logs=.. log_read=.. referee=..
environ=N signalled=N`` (an outcome, or the exception's class name).
"""

import glob
import os

from _wire import env, reply, say, serve


def attempt(action):
    try:
        return action()
    except OSError as exc:
        return exc.__class__.__name__


def read(path):
    with open(path, "rb") as handle:
        return "read" if handle.read(16) else "empty"


def append(path):
    with open(path, "ab") as handle:
        handle.write(b"x")
    return "written"


def log_read():
    files = glob.glob(os.path.join(env("LOGS"), "*", "*.log"))
    read_files = [f for f in files if attempt(lambda: read(f)) == "read"]
    return f"{len(read_files)}/{len(files)}"


def others():
    """(environments of others read, others signalled) over every process we can see."""
    environ = signalled = 0
    me = os.getuid()
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            uid = os.stat(f"/proc/{name}").st_uid
            if uid == me:
                continue
            with open(f"/proc/{name}/environ", "rb") as handle:
                environ += b"ARENA_TOKEN" in handle.read()
        except OSError:
            pass
        try:
            os.kill(int(name), 0)
            signalled += 1
        except OSError:
            pass
    return environ, signalled


environ, signalled = others()
found = {
    "db_read": attempt(lambda: read(env("DB"))),
    "db_write": attempt(lambda: append(env("DB"))),
    "keys": attempt(lambda: read(env("KEYS"))),
    "logs": attempt(lambda: len(os.listdir(env("LOGS")))),
    "log_read": log_read(),
    "referee": attempt(lambda: os.kill(int(env("REFEREE")), 0) or "signalled"),
    "environ": environ,
    "signalled": signalled,
}
say("escape:", " ".join(f"{key}={value}" for key, value in found.items()))
serve(lambda sock, turn, n: reply(sock, turn, turn["legal"][0]))
