"""Plays legal[0] while a thread writes to stdout and stderr as fast as it can, forever."""

import os
import threading

from _wire import reply, serve

CHUNK = b"spam " * 200_000


def spam():
    while True:
        os.write(1, CHUNK)
        os.write(2, CHUNK)


threading.Thread(target=spam, daemon=True).start()
serve(lambda sock, turn, n: reply(sock, turn, turn["legal"][0]))
