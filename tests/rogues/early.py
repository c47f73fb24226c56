"""Marks when its code first runs: the file ``ran`` in its ``TMPDIR`` (its pid and the wall
clock), and a ``ran PID`` line in its log; then answers every turn with the first legal action,
and says ``exits PID`` when it exits (an exit handler).

Run as a module (``python -m early`` in this folder) it can be made ready ahead of its turn
(``arena.procs.warm``): a test then sees whether any of its code ran before it was released.
"""

import atexit
import os
import time

from _wire import reply, say, serve

with open(os.path.join(os.environ["TMPDIR"], "ran"), "w") as marker:
    marker.write(f"{os.getpid()} {time.time()}")
say("ran", os.getpid())
atexit.register(say, "exits", os.getpid())


def on_turn(sock, turn, n):
    reply(sock, turn, turn["legal"][0])


if __name__ == "__main__":
    serve(on_turn)
