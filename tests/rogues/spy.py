"""Logs every message it receives, tries to read the arena's secrets, plays legal[0].

Each message is one ``spy-msg: {json}`` line of its log (each message of a ``batch`` on its own
line, after a ``spy-batch: N`` line: it says ``batch: true`` in its hello, so the spy is also a
bot that takes batches).
ARENA_BOT_SECRETS lists files (``:``-separated) it tries to read; it logs ``spy-read: PATH
BYTES`` (or the error) for each.
"""

import json

import msgpack
from _wire import connect, env, say


def attempt(path):
    try:
        with open(path, "rb") as handle:
            return str(len(handle.read()))
    except OSError as exc:
        return exc.__class__.__name__


for path in filter(None, env("SECRETS").split(":")):
    say("spy-read:", path, attempt(path))
sock = connect(batch=True)
while True:
    message = msgpack.unpackb(sock.recv())
    inner = message["messages"] if message.get("type") == "batch" else [message]
    if message.get("type") == "batch":
        say("spy-batch:", len(inner))
    answers = []
    for one in inner:
        say("spy-msg:", json.dumps(one, default=repr))
        if one.get("type") == "turn":
            answers.append(
                {
                    "type": "action",
                    "game_id": one["game_id"],
                    "request": one["request"],
                    "action": one["legal"][0],
                }
            )
    if any(one.get("type") == "bye" for one in inner):
        break
    if answers:
        sock.send(msgpack.packb({"type": "batch", "messages": answers}))
