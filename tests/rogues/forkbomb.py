"""Says hello, forks sleeping children until forking fails (or 300), logs how many, then plays."""
import os
import sys

import msgpack

from _wire import connect, env, reply, say, serve

MARKER = env("MARKER", "rogue-forkbomb")
sock = connect()                        # ZeroMQ's own threads exist before the bomb
assert msgpack.unpackb(sock.recv())["type"] == "welcome"
children, error = 0, "none"
for _ in range(300):
    try:
        pid = os.fork()
    except OSError as exc:
        error = exc.__class__.__name__
        break
    if pid == 0:
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)", MARKER])
    children += 1
say(f"forkbomb: forked {children} children, then {error}")
serve(lambda sock, turn, n: reply(sock, turn, turn["legal"][0]), sock=sock)
