"""Answers its first turn after the deadline; the late answer must not count for the next turn.

The late answer is ``legal[-1]``; later answers are ``legal[0]`` on time.
"""

import time

from _wire import env, reply, serve

DELAY = float(env("DELAY_MS", "300")) / 1000


def on_turn(sock, turn, n):
    if n == 0:
        time.sleep(DELAY)
        reply(sock, turn, turn["legal"][-1])
    else:
        reply(sock, turn, turn["legal"][0])


serve(on_turn)
