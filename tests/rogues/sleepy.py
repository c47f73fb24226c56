"""Answers every turn correctly after ROGUE_DELAY_MS (default 300) milliseconds."""
import os
import time

from _wire import reply, serve

DELAY = float(os.environ.get("ROGUE_DELAY_MS", "300")) / 1000


def on_turn(sock, turn, n):
    time.sleep(DELAY)
    reply(sock, turn, turn["legal"][0])


serve(on_turn)
