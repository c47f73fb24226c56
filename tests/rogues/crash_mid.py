"""Plays the first turn of a game, then dies with an error at its second: so it crashes in every
game it plays (a Skull seat always has a second turn), whichever game its process is given."""

import sys
from collections import Counter

from _wire import reply, serve

turns: Counter = Counter()


def on_turn(sock, turn, n):
    turns[turn["game_id"]] += 1
    if turns[turn["game_id"]] >= 2:
        sys.exit(3)
    reply(sock, turn, turn["legal"][0])


serve(on_turn)
