"""Plays legal[0], while a second socket (no hello, or a guessed token) pretends to be a seat.

The second socket says hello once with a guessed token and logs the reply; then, for every
turn, it sends actions with the turn's game id and nearby request ids (another seat's
requests). The arena closes the door of a bot whose stranger connection keeps talking.
"""

import msgpack

from _wire import connect, reply, say, serve

other = connect(hello=False)
other.send(msgpack.packb({"type": "hello", "protocol": 1, "token": "f" * 32, "name": "x"}))
got = [msgpack.unpackb(other.recv())] if other.poll(5000) else []
say("impostor socket got:", got)


def on_turn(sock, turn, n):
    for request in range(max(1, turn["request"] - 2), turn["request"] + 3):
        other.send(
            msgpack.packb(
                {
                    "type": "action",
                    "game_id": turn["game_id"],
                    "request": request,
                    "action": turn["legal"][-1],
                }
            )
        )
    reply(sock, turn, turn["legal"][0])


serve(on_turn)
other.close(0)
