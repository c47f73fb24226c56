"""Answers every turn correctly, then floods the arena with stale copies of the answer."""

import msgpack
import zmq

from _wire import env, reply, say, serve

COPIES = int(env("COPIES", "2000"))
sent = 0


def on_turn(sock, turn, n):
    global sent
    reply(sock, turn, turn["legal"][0])
    stale = msgpack.packb(
        {
            "type": "action",
            "game_id": turn["game_id"],
            "request": turn["request"],
            "action": turn["legal"][0],
        }
    )
    for _ in range(COPIES):
        try:
            sock.send(stale, zmq.NOBLOCK)
            sent += 1
        except zmq.Again:
            break


serve(on_turn)
say("flood: sent", sent, "stale copies")
