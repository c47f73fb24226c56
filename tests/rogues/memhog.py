"""At its first turn, allocates memory without bound (64 MB blocks, as fast as it can)."""

from _wire import reply, serve

hoard = []


def on_turn(sock, turn, n):
    while True:
        hoard.append(bytearray(64 << 20))
    reply(sock, turn, turn["legal"][0])


serve(on_turn)
