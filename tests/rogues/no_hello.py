"""Connects but never says hello."""

import time

from _wire import connect

sock = connect(hello=False)
time.sleep(60)
