"""Answers with msgpack that is deeply nested, or huge but valid, all under 64 KiB.

Turn by turn: an action map holding 30000 nested arrays; a map with 4000 extra keys; an
action string of 50000 characters.
"""

import msgpack

from _wire import serve


def on_turn(sock, turn, n):
    fields = {"type": "action", "game_id": turn["game_id"], "request": turn["request"]}
    kind = n % 3
    if kind == 0:
        head = msgpack.packb({**fields, "action": turn["legal"][0]})
        body = b"\x85" + head[1:] + msgpack.packb("x") + b"\x91" * 30000 + b"\xc0"
    elif kind == 1:
        body = msgpack.packb(
            {**fields, "action": turn["legal"][0], **{f"k{i}": i for i in range(4000)}}
        )
    else:
        body = msgpack.packb({**fields, "action": "a" * 50000})
    sock.send(body)


serve(on_turn)
