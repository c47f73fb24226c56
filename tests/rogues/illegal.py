"""Answers every turn with an action it was not offered."""

from _wire import reply, serve

serve(lambda sock, turn, n: reply(sock, turn, "not-an-action"))
