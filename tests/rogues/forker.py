"""Starts children that try to outlive it, then plays legal[0].

One child stays in the bot's process group; another calls setsid and double-forks, so its
grandchild is in no group of the bot's and is not its descendant. Each sleeps with
ARENA_BOT_MARKER in its command line so a test can look for survivors.
"""
import os
import sys

from _wire import env, reply, serve

MARKER = env("MARKER", "rogue-forker")


def sleeper():
    os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)", MARKER])


if os.fork() == 0:
    sleeper()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        sleeper()
    os._exit(0)
serve(lambda sock, turn, n: reply(sock, turn, turn["legal"][0]))
