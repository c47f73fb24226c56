"""Answers every turn correctly after ARENA_BOT_DELAY_MS (default 300) milliseconds.

It logs ``turn REQUEST got T answered T`` (monotonic clock, shared by every process of the
machine) so that a test can tell which turns were in flight at the same time.
"""

import time

from _wire import env, reply, say, serve

DELAY = float(env("DELAY_MS", "300")) / 1000


def on_turn(sock, turn, n):
    got = time.monotonic()
    time.sleep(DELAY)
    say("turn", turn["request"], "got", got, "answered", time.monotonic())
    reply(sock, turn, turn["legal"][0])


serve(on_turn)
