"""Uniformly random bot for any game: picks one of the legal actions at random.

Deterministic per game: the SDK seeds ``random`` from the seed in the arena's ``start`` and,
serving several games at once, keeps each game's ``random`` state apart.
"""

import random

GAMES = ("*",)


def act(view: dict, legal: list[str]) -> str:
    return random.choice(legal)


if __name__ == "__main__":
    from protocol.sdk import run_bot

    run_bot(act, name="random")
