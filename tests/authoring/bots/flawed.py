"""A bot with one flaw, chosen by ``ARENA_BOT_FLAW`` (the arena passes ARENA_BOT_* on), and
otherwise correct: it plays the first legal action of each turn, one game at a time, and exits
on bye. Its flaws are those a bot author makes:

- ``crash-at-6``, ``illegal-at-6``, ``slow-at-6``: only at tables of six players, it exits,
  answers ``flower`` (never offered), or answers after ``ARENA_BOT_DELAY_MS``;
- ``hello-protocol-text``, ``hello-no-name``, ``hello-extra-key``, ``hello-json``,
  ``hello-token``: a malformed hello (``protocol: "1"``, no ``name``, an extra key, JSON, a
  wrong token), then it waits for the answer, prints it and exits;
- ``no-game-id``: its answers lack ``game_id``;
- ``slow``: every answer after ``ARENA_BOT_DELAY_MS``;
- ``now-and-then``: every ``ARENA_BOT_EVERY``-th answer (default 25th) after
  ``ARENA_BOT_DELAY_MS``, the others at once;
- ``crash-first``: at its first turn it prints ``ARENA_BOT_SAYS`` and exits;
- ``late-once``: its first answer after ``ARENA_BOT_DELAY_MS`` (a stale reply), then on time;
- ``twice``: it answers every turn twice (the second answer is stale: dropped) and says it
  serves 4 games at once (it keeps nothing per game, so it may).
"""

import json
import os
import sys
import time

import msgpack
import zmq

FLAW = os.environ.get("ARENA_BOT_FLAW", "")
DELAY = float(os.environ.get("ARENA_BOT_DELAY_MS", "1500")) / 1000
EVERY = int(os.environ.get("ARENA_BOT_EVERY", "25"))

sock = zmq.Context.instance().socket(zmq.DEALER)
sock.setsockopt(zmq.LINGER, 1000)
sock.connect(os.environ["ARENA_ENDPOINT"])
hello = {"type": "hello", "protocol": 1, "token": os.environ["ARENA_TOKEN"], "name": "flawed"}
if FLAW.startswith("hello-"):
    if FLAW == "hello-protocol-text":
        hello["protocol"] = "1"
    elif FLAW == "hello-no-name":
        del hello["name"]
    elif FLAW == "hello-extra-key":
        hello["version"] = "2.0"
    elif FLAW == "hello-token":
        hello["token"] = "f" * 32
    data = json.dumps(hello).encode() if FLAW == "hello-json" else msgpack.packb(hello)
    sock.send(data)
    if sock.poll(5000):
        print("the arena said:", msgpack.unpackb(sock.recv()), flush=True)
    sys.exit(3)
if FLAW == "twice":
    hello["max_games"] = 4
sock.send(msgpack.packb(hello))
players = 0
answered = 0
while True:
    message = msgpack.unpackb(sock.recv())
    kind = message.get("type")
    if kind == "bye":
        break
    if kind == "start":
        players = message["players"]
        print(f"start of game {message['game_id']} at {players} players", flush=True)
    if kind != "turn":
        continue
    six = players == 6
    if FLAW == "crash-first":
        print(os.environ.get("ARENA_BOT_SAYS", "crashing"), flush=True)
        sys.exit(5)
    action = message["legal"][0]
    if FLAW == "crash-at-6" and six:
        print("crashing at six players", flush=True)
        sys.exit(4)
    if FLAW == "illegal-at-6" and six:
        action = "flower"
    slow = FLAW == "slow" or (FLAW == "slow-at-6" and six)
    slow = slow or (FLAW == "now-and-then" and answered % EVERY == EVERY - 1)
    if slow or (FLAW == "late-once" and not answered):
        time.sleep(DELAY)
    answer = {"type": "action", "game_id": message["game_id"], "request": message["request"]}
    if FLAW == "no-game-id":
        del answer["game_id"]
    print(f"turn {message['request']}: {action}", flush=True)
    sock.send(msgpack.packb({**answer, "action": action}))
    if FLAW == "twice":
        sock.send(msgpack.packb({**answer, "action": action}))
    answered += 1
