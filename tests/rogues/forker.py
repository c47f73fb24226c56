"""Starts children that try to outlive it, then plays legal[0].

One child stays in the bot's process group; another calls setsid and double-forks, so its
grandchild is in no group of the bot's and is not its descendant. They just sleep (a test
finds survivors by the ARENA_BOT_MARKER variable they inherit).
"""

import os
import time

from _wire import reply, serve


def sleep_forever():
    time.sleep(600)
    os._exit(0)


if os.fork() == 0:
    sleep_forever()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        sleep_forever()
    os._exit(0)
serve(lambda sock, turn, n: reply(sock, turn, turn["legal"][0]))
