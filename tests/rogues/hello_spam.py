"""Says hello with wrong tokens: ARENA_BOT_REPEAT (default 20) times on each of
ARENA_BOT_CONNECTIONS (default 200) connections; logs the replies; then says its real hello and
plays legal[0] if it is welcomed."""

import os
import secrets
import sys
import time

import msgpack
import zmq

from _wire import connect, env, reply, say, serve

context = zmq.Context.instance()
spammers = []
for _ in range(int(env("CONNECTIONS", "200"))):
    spammer = context.socket(zmq.DEALER)
    spammer.setsockopt(zmq.LINGER, 0)
    spammer.connect(os.environ["ARENA_ENDPOINT"])
    spammers.append(spammer)
for _ in range(int(env("REPEAT", "20"))):
    for spammer in spammers:
        hello = {"type": "hello", "protocol": 1, "token": secrets.token_hex(16), "name": "spam"}
        try:
            spammer.send(msgpack.packb(hello), zmq.NOBLOCK)
        except zmq.Again:
            pass
time.sleep(0.5)
codes = []
for spammer in spammers:
    while spammer.poll(0):
        codes.append(msgpack.unpackb(spammer.recv()).get("code"))
say(f"hello_spam: replies {sorted(codes)}")
sock = connect()
if not sock.poll(3000):
    say("hello_spam: no welcome")
    sys.exit(2)
assert msgpack.unpackb(sock.recv())["type"] == "welcome"
serve(lambda sock, turn, n: reply(sock, turn, turn["legal"][0]), sock=sock)
