"""Answers its first turn with one 100 MB message (the arena refuses it at the transport)."""

from _wire import reply, serve

SIZE = 100 * 1024 * 1024


def on_turn(sock, turn, n):
    if n == 0:
        message = bytearray(SIZE + 5)
        message[:5] = b"\xdb" + SIZE.to_bytes(4, "big")  # a str32 header, then the string
        sock.send(message)
    else:
        reply(sock, turn, turn["legal"][0])


serve(on_turn)
