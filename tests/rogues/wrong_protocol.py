"""Says hello with protocol version 99."""

import time

from _wire import connect

sock = connect(protocol=99)
time.sleep(60)
