"""Opens ARENA_BOT_CONNECTIONS (default 300) connections that never say hello, each sending
32 KiB frames for ARENA_BOT_SECONDS (default 1), then says hello and plays legal[0]."""

import os
import sys
import time

import msgpack
import zmq

from _wire import connect, env, reply, say, serve

junk = os.urandom(32 * 1024)
context = zmq.Context.instance()
strangers = []
for _ in range(int(env("CONNECTIONS", "300"))):
    stranger = context.socket(zmq.DEALER)
    stranger.setsockopt(zmq.LINGER, 0)
    stranger.connect(os.environ["ARENA_ENDPOINT"])
    strangers.append(stranger)
sent = 0
deadline = time.monotonic() + float(env("SECONDS", "1"))
while time.monotonic() < deadline:
    for stranger in strangers:
        try:
            stranger.send(junk, zmq.NOBLOCK)
            sent += 1
        except zmq.Again:
            pass
    time.sleep(0.001)
say(f"junk_flood: sent {sent} frames of 32 KiB")
sock = connect()
if not sock.poll(3000):
    say("junk_flood: no welcome")
    sys.exit(2)
assert msgpack.unpackb(sock.recv())["type"] == "welcome"
serve(lambda sock, turn, n: reply(sock, turn, turn["legal"][0]), sock=sock)
