"""Rogue serving several games at once, misbehaving by ``MODE`` (its first argument):

- ``reverse``: max_games 4; holds its turns until two are pending (or 30 ms pass), then answers
  them newest first (allowed: answers may come in any order); logs ``batch N`` per answer run;
- ``swap``: like ``reverse``, but first answers the newest pending turn with the game id of the
  oldest one (a WRONG_ID fault of its own), then answers properly;
- ``never``: answers each turn first with a request id never sent, then properly;
- ``flood``: sends 40 bogus messages (stale and unsent request ids, garbage) per turn, then the
  answer;
- ``huge``: declares max_games 10**9 and logs ``open N`` (games started and not ended) at every
  start, answering each turn at once;
- ``crash``: answers nothing, and exits (status 3) once three turns are pending or none has
  come for 300 ms: it dies serving several games.
"""

from __future__ import annotations

import os
import random
import sys

import msgpack
import zmq

from _wire import connect, reply, say

MODE = sys.argv[1]
MAX_GAMES = 10**9 if MODE == "huge" else 4


def answer_held(sock: zmq.Socket, held: list[dict]) -> None:
    say("batch", len(held))
    if MODE == "swap" and len(held) >= 2 and held[0]["game_id"] != held[-1]["game_id"]:
        reply(sock, held[-1], held[-1]["legal"][0], game_id=held[0]["game_id"])
    for turn in reversed(held):
        reply(sock, turn, turn["legal"][0])
    held.clear()


def on_turn(sock: zmq.Socket, turn: dict, held: list[dict]) -> None:
    if MODE == "crash":
        held.append(turn)
        return
    if MODE in ("reverse", "swap"):
        held.append(turn)
        if len(held) >= 2:
            answer_held(sock, held)
        return
    if MODE == "never":
        reply(sock, turn, turn["legal"][0], request=turn["request"] + 1_000_000)
    if MODE == "flood":
        for _ in range(40):
            if random.random() < 0.2:
                sock.send(b"\xc1 not msgpack")
            else:
                request = random.choice([1, turn["request"] + random.randrange(1, 10**6)])
                reply(sock, turn, turn["legal"][0], request=request)
    reply(sock, turn, turn["legal"][0])


def main() -> None:
    sock = connect(max_games=MAX_GAMES)
    if msgpack.unpackb(sock.recv()).get("type") != "welcome":
        sys.exit(2)
    held: list[dict] = []
    open_games: set[int] = set()
    while True:
        if MODE == "crash" and held and (len(held) >= 3 or not sock.poll(300)):
            say("crash", len(held))
            os._exit(3)
        if held and not sock.poll(30):
            answer_held(sock, held)
            continue
        msg = msgpack.unpackb(sock.recv())
        kind = msg.get("type")
        if kind == "bye":
            return
        if kind == "start":
            open_games.add(msg["game_id"])
            if MODE == "huge":
                say("open", len(open_games))
        elif kind == "end":
            open_games.discard(msg["game_id"])
        elif kind == "turn":
            on_turn(sock, msg, held)


if __name__ == "__main__":
    main()
