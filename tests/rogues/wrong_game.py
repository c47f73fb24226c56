"""Answers with the right request id but another game's id."""

from _wire import reply, serve

serve(lambda sock, turn, n: reply(sock, turn, turn["legal"][0], game_id=turn["game_id"] + 77))
