"""Logs every message it receives, tries to read the arena's secrets, plays legal[0].

Each message is one ``spy-msg: {json}`` line of its log. ARENA_BOT_SECRETS lists files
(``:``-separated) it tries to read; it logs ``spy-read: PATH BYTES`` (or the error) for each.
"""

import json

import msgpack
from _wire import connect, env, reply, say


def attempt(path):
    try:
        with open(path, "rb") as handle:
            return str(len(handle.read()))
    except OSError as exc:
        return exc.__class__.__name__


for path in filter(None, env("SECRETS").split(":")):
    say("spy-read:", path, attempt(path))
sock = connect()
while True:
    message = msgpack.unpackb(sock.recv())
    say("spy-msg:", json.dumps(message, default=repr))
    if message.get("type") == "bye":
        break
    if message.get("type") == "turn":
        reply(sock, message, message["legal"][0])
