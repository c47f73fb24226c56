"""Always plays the first legal action (the same choice as the referee's default policy).

It draws no random numbers, so the SDK need not keep the global ``random`` module's state per
game (``global_random = False``) when its games interleave, and reads no view, so the SDK need
not build them (``reads_view = False``).
"""

from typing import Any

from protocol.sdk import Bot, run_bot

GAMES = ("*",)


class FirstBot(Bot):
    name = "first"
    global_random = False
    reads_view = False

    def act(self, view: dict[str, Any], legal: list[str]) -> str:
        return legal[0]


if __name__ == "__main__":
    run_bot(FirstBot)
