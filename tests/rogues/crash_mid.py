"""Plays two turns, then dies with an error."""

import sys

from _wire import reply, serve


def on_turn(sock, turn, n):
    if n >= 2:
        sys.exit(3)
    reply(sock, turn, turn["legal"][0])


serve(on_turn)
