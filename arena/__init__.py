"""The arena: referee, bot processes, games and replays for bot tournaments."""

__version__ = "0.1.0"
