"""Looks for what it should not see, logs what it found, then plays legal[0].

ARENA_BOT_DB: the results database; ARENA_BOT_LOGS: the bot logs folder; ARENA_BOT_OTHER:
another bot's folder. It also tries to write to its working folder and to its scratch TMPDIR,
and counts the processes it can see.
"""

import os
import tempfile

from _wire import env, reply, say, serve


def attempt(action):
    try:
        return action()
    except OSError as exc:
        return exc.__class__.__name__


def read_db():
    with open(env("DB"), "rb") as handle:
        return "read" if handle.read(16).startswith(b"SQLite format 3") else "empty"


def write(folder, keep=False):
    path = os.path.join(folder, f"snoop-{os.getpid()}.txt")
    with open(path, "w") as handle:
        handle.write("x")
    if not keep:  # a kept file shows the test whether the write reached the host
        os.unlink(path)
    return "ok"


found = {
    "db": attempt(read_db),
    "logs": attempt(lambda: len(os.listdir(env("LOGS")))),
    "other": attempt(lambda: len(os.listdir(env("OTHER")))),
    "write_cwd": attempt(lambda: write(os.getcwd(), keep=True)),
    "scratch": attempt(lambda: write(tempfile.gettempdir())),
    "procs": sum(name.isdigit() for name in os.listdir("/proc")),
}
say("snoop:", " ".join(f"{key}={value}" for key, value in found.items()))
serve(lambda sock, turn, n: reply(sock, turn, turn["legal"][0]))
