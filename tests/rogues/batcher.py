"""Rogue that takes batches (``batch: true``, max_games 4) and answers each batch's turns in
one batch, misbehaving in one game only by ``MODE`` (its first argument): the **victim** is
the first game it is started in, and only the victim's first turn is misanswered.

- ``honest``: every turn answered with ``legal[0]``, a batch's in one batch;
- ``missing``: the victim's first turn gets no answer (its other turns do);
- ``duplicate``: every entry twice, the copy with an action never offered;
- ``unknown``: the victim's first turn is answered first with a request id never sent;
- ``late``: the victim's first turn is answered only after its deadline has passed;
- ``malformed``: the victim's first entry has an integer for its action (then nothing);
- ``unnamed``: the victim's first turn is answered with a bare string, not a map;
- ``crossed``: in a batch of two turns or more, the first two entries swap their game ids
  (every game is fine alone: only answering batches goes wrong).

It logs ``batch N`` (turns in a message it got) and ``victim-turn`` once.
"""

from __future__ import annotations

import sys
import time

import msgpack

from _wire import connect, say

MODE = sys.argv[1]


def entry(turn: dict, **override: object) -> dict:
    found = {"type": "action", "game_id": turn["game_id"], "request": turn["request"]}
    found["action"] = turn["legal"][0]
    found.update(override)
    return found


def answers(turns: list[dict], victim: int | None, state: dict) -> list:
    if MODE == "crossed":
        out = [entry(turn) for turn in turns]
        if len(out) >= 2:
            out[0]["game_id"], out[1]["game_id"] = out[1]["game_id"], out[0]["game_id"]
        return out
    out: list = []
    for turn in turns:
        first = turn["game_id"] == victim and not state.get("seen")
        if first:
            state["seen"] = True
            say("victim-turn")
        if not first or MODE in ("honest", "duplicate"):
            out.append(entry(turn))
            if MODE == "duplicate":
                out.append(entry(turn, action="never-offered"))
        elif MODE == "unknown":
            out += [entry(turn, request=turn["request"] + 1_000_000), entry(turn)]
        elif MODE == "late":
            state["late"] = (time.monotonic() + turn["deadline_ms"] / 1000 + 0.2, entry(turn))
        elif MODE == "malformed":
            out.append(entry(turn, action=7))
        elif MODE == "unnamed":
            out.append("place:flower")
    late = state.get("late")
    if late is not None and time.monotonic() > late[0]:
        out.append(late[1])
        del state["late"]
    return out


def main() -> None:
    sock = connect(max_games=4, batch=True)
    if msgpack.unpackb(sock.recv()).get("type") != "welcome":
        sys.exit(2)
    victim: int | None = None
    state: dict = {}
    while True:
        if not sock.poll(50):
            if "late" in state and time.monotonic() > state["late"][0]:
                sock.send(msgpack.packb({"type": "batch", "messages": [state.pop("late")[1]]}))
            continue
        msg = msgpack.unpackb(sock.recv())
        messages = msg["messages"] if msg.get("type") == "batch" else [msg]
        turns = []
        for one in messages:
            kind = one.get("type")
            if kind == "bye":
                return
            if kind == "start" and victim is None:
                victim = one["game_id"]
            if kind == "turn":
                turns.append(one)
        if turns:
            say("batch", len(turns))
            out = answers(turns, victim, state)
            if out:
                sock.send(msgpack.packb({"type": "batch", "messages": out}))


if __name__ == "__main__":
    main()
