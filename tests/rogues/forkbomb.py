"""Says hello, forks sleeping children until forking fails (or ARENA_BOT_FORKS, default 300),
logs how many, then plays legal[0]."""

import os
import time

import msgpack

from _wire import connect, env, reply, say, serve

sock = connect()  # ZeroMQ's own threads exist before the bomb
assert msgpack.unpackb(sock.recv())["type"] == "welcome"
children, error = 0, "none"
for _ in range(int(env("FORKS", "300"))):
    try:
        pid = os.fork()
    except OSError as exc:
        error = exc.__class__.__name__
        break
    if pid == 0:
        time.sleep(600)
        os._exit(0)
    children += 1
say(f"forkbomb: forked {children} children, then {error}")
serve(lambda sock, turn, n: reply(sock, turn, turn["legal"][0]), sock=sock)
