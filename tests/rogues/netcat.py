"""Tries to open a TCP connection to 127.0.0.1:ARENA_BOT_PORT, logs the result, plays legal[0]."""

import socket

from _wire import env, reply, say, serve

try:
    socket.create_connection(("127.0.0.1", int(env("PORT", "9"))), timeout=2).close()
    say("net: connected")
except OSError as exc:
    say("net: failed", exc.__class__.__name__)
serve(lambda sock, turn, n: reply(sock, turn, turn["legal"][0]))
