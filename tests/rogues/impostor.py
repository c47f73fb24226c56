"""Plays legal[0], while a second socket (no hello, or a guessed token) pretends to be a seat.

For every turn the second socket sends actions with the turn's game id and nearby request ids
(another seat's requests), and once a hello with a guessed token. Logs what it got back.
"""
import msgpack

from _wire import connect, reply, say, serve

other = connect(hello=False)
other.send(msgpack.packb({"type": "hello", "protocol": 1, "token": "f" * 32, "name": "x"}))


def on_turn(sock, turn, n):
    for request in range(max(1, turn["request"] - 2), turn["request"] + 3):
        other.send(msgpack.packb({"type": "action", "game_id": turn["game_id"],
                                  "request": request, "action": turn["legal"][-1]}))
    reply(sock, turn, turn["legal"][0])


serve(on_turn)
got = []
while other.poll(200):
    got.append(msgpack.unpackb(other.recv()))
say("impostor socket got:", got)
other.close(0)
