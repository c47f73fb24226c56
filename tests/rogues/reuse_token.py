"""Says hello, then says hello again on a second socket with the same (now used) token.

Plays legal[0]; at the end logs what the second socket got (an error, and nothing else). It
looks without waiting: any answer came long before the game's end, and after bye the arena
gives a bot only a moment before it ends it.
"""

import msgpack

from _wire import connect, reply, say, serve

first = connect()
assert msgpack.unpackb(first.recv())["type"] == "welcome"
second = connect()  # same token, second connection
serve(lambda sock, turn, n: reply(sock, turn, turn["legal"][0]), sock=first)
replies = []
while second.poll(0):
    replies.append(msgpack.unpackb(second.recv()))
say("second hello got:", replies)
second.close(0)
