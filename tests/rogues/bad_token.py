"""Says hello with a token the arena never issued, logs the reply, and gives up."""

import sys

import msgpack

from _wire import connect, say

sock = connect(token="0" * 32)
say("reply:", msgpack.unpackb(sock.recv()))
sys.exit(2)
