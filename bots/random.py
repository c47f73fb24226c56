"""Uniformly random bot for any game: picks one of the legal actions at random.

Deterministic per game: it draws from ``self.random``, which the SDK seeds from the seed in the
arena's ``start`` (so it makes the same choices as ``random.choice`` on the global module seeded
likewise). The SDK makes one instance per game; as the bot never touches the global ``random``
module, the SDK need not keep that module's state per game (``global_random = False``), which
saves a few microseconds a turn when its games interleave; as it never reads its views, the SDK
need not build them (``reads_view = False``): skipping a view is a fifth of decoding it.
"""

from typing import Any

from protocol.sdk import Bot, run_bot

GAMES = ("*",)


class RandomBot(Bot):
    name = "random"
    global_random = False
    reads_view = False

    def act(self, view: dict[str, Any], legal: list[str]) -> str:
        return self.random.choice(legal)


if __name__ == "__main__":
    run_bot(RandomBot)
