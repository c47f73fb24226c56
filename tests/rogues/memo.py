"""Rogue: remembers everything it is sent, to recognise a deal it has played before.

It logs one line per game: ``memo PROCESS SEED SEAT GAME_ID``, where PROCESS is a random id of
this process (pids are not unique across sandboxes), SEED and SEAT are the ``start`` message's
(the test, which has the tournament's key, finds the deal from them: the game id a bot gets is
opaque) and GAME_ID is the id it was given. A process that saw a deal twice could use what it
learned the first time; the test checks from these lines that no process is ever given the
same deal twice.
It plays legally (the first legal action), so it never faults. It serves up to 8 games at
once (hello's ``max_games``), so the check holds with many games in flight on one process.
"""

from __future__ import annotations

import uuid

import msgpack

from _wire import reply, say, serve

PROCESS = uuid.uuid4().hex[:12]
memory: list[bytes] = []  # everything it was ever sent


def on_start(sock, start: dict) -> None:
    memory.append(msgpack.packb(start))
    say("memo", PROCESS, start["seed"], start["seat"], start["game_id"])


def on_turn(sock, turn: dict, n: int) -> None:
    memory.append(msgpack.packb(turn))
    reply(sock, turn, turn["legal"][0])


if __name__ == "__main__":
    serve(on_turn, on_start, max_games=8)
