"""Spins the CPU for 100 ms of CPU time at every turn, then answers legal[0]."""

import time

from _wire import reply, serve


def on_turn(sock, turn, n):
    until = time.process_time() + 0.1
    while time.process_time() < until:
        pass
    reply(sock, turn, turn["legal"][0])


serve(on_turn)
