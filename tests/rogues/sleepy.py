"""Answers every turn correctly after ARENA_BOT_DELAY_MS (default 300) milliseconds."""
import time

from _wire import env, reply, serve

DELAY = float(env("DELAY_MS", "300")) / 1000


def on_turn(sock, turn, n):
    time.sleep(DELAY)
    reply(sock, turn, turn["legal"][0])


serve(on_turn)
