"""Answers its first turn after the deadline; the late answer must not count for the next turn.

The first answer comes at 1.5 deadlines, ``legal[-1]``: late by half a deadline, and the next
turn (sent when the first one timed out) is answered at once, with half a deadline to spare:
both margins grow with the deadline, so a test on a loaded machine gives a long one. Later
answers are ``legal[0]`` on time.
"""

import time

from _wire import reply, serve


def on_turn(sock, turn, n):
    if n == 0:
        time.sleep(1.5 * turn["deadline_ms"] / 1000)
        reply(sock, turn, turn["legal"][-1])
    else:
        reply(sock, turn, turn["legal"][0])


serve(on_turn)
