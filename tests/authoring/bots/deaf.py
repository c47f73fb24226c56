"""Plays the first legal action, but does not exit on bye (it keeps waiting)."""

import os

import msgpack
import zmq

sock = zmq.Context.instance().socket(zmq.DEALER)
sock.setsockopt(zmq.LINGER, 0)
sock.connect(os.environ["ARENA_ENDPOINT"])
sock.send(
    msgpack.packb(
        {"type": "hello", "protocol": 1, "token": os.environ["ARENA_TOKEN"], "name": "deaf"}
    )
)
while True:
    message = msgpack.unpackb(sock.recv())
    if message.get("type") == "turn":
        sock.send(
            msgpack.packb(
                {
                    "type": "action",
                    "game_id": message["game_id"],
                    "request": message["request"],
                    "action": message["legal"][0],
                }
            )
        )
