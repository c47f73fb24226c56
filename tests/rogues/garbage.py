"""Answers every turn with bytes that are not msgpack."""

from _wire import serve

serve(lambda sock, turn, n: sock.send(b"\xc1\xc1\xc1 not msgpack"))
