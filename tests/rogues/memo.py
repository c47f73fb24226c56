"""Rogue: remembers everything it is sent, to recognise a deal it has played before.

It logs one line per game: ``memo PROCESS GAME_ID FINGERPRINT``, where PROCESS is a random id
of this process (pids are not unique across sandboxes) and FINGERPRINT hashes what the seat
saw at its first turn. A process that saw a deal twice could use what it learned the first
time; the test checks from these lines that no process is ever given the same deal twice.
It plays legally (the first legal action), so it never faults. It serves up to 8 games at
once (hello's ``max_games``), so the check holds with many games in flight on one process.
"""

from __future__ import annotations

import hashlib
import uuid

import msgpack

from _wire import reply, say, serve

PROCESS = uuid.uuid4().hex[:12]
seen: dict[int, bool] = {}
memory: list[bytes] = []  # everything it was ever sent


def on_start(sock, start: dict) -> None:
    memory.append(msgpack.packb(start))


def on_turn(sock, turn: dict, n: int) -> None:
    memory.append(msgpack.packb(turn))
    game_id = turn["game_id"]
    if game_id not in seen:
        seen[game_id] = True
        fingerprint = hashlib.sha256(msgpack.packb(turn.get("view"))).hexdigest()[:16]
        say("memo", PROCESS, game_id, fingerprint)
    reply(sock, turn, turn["legal"][0])


if __name__ == "__main__":
    serve(on_turn, on_start, max_games=8)
