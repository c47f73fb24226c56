"""Answers every turn twice (the second answer must be dropped)."""

from _wire import reply, serve


def on_turn(sock, turn, n):
    reply(sock, turn, turn["legal"][0])
    reply(sock, turn, turn["legal"][-1])


serve(on_turn)
