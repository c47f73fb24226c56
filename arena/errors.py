"""Typed errors of the arena. Every error a user can cause derives from ArenaError."""

from __future__ import annotations


class ArenaError(Exception):
    """Base of every error the arena raises on purpose (shown to users as one line)."""


class GameError(ArenaError):
    """A problem with a game's rules or its use."""


class UnknownGame(GameError):
    """No game is registered under that name."""


class OptionError(GameError):
    """A game option is unknown or has a bad value."""


class PlayerCountError(GameError):
    """The game cannot be played with that many players."""


class IllegalAction(GameError):
    """An action that is not legal in the current state (the state is left unchanged).

    ``seat`` names the seat whose action was illegal, when there is one."""

    def __init__(self, message: str, seat: int | None = None) -> None:
        super().__init__(message)
        self.seat = seat


class NotYourTurn(IllegalAction):
    """An action for a seat that is not to act, or a missing action for a seat that is."""


class GameOver(IllegalAction):
    """An action was applied to a finished game."""


class BotError(ArenaError):
    """A bot could not be started or spoke the protocol wrongly during set-up."""


class BotStartError(BotError):
    """A bot process did not start or did not say hello in time (``label``: whose, if known)."""

    def __init__(self, message: str, *, label: str | None = None) -> None:
        super().__init__(message)
        self.label = label


class BotRefused(BotStartError):
    """The arena refused a bot process's hello (its protocol version, its token, its hello):
    the bot is not what the arena speaks to, whatever it does next."""


class SandboxError(ArenaError):
    """The bot sandbox was required but cannot be used here."""


class RemoteError(ArenaError):
    """A remote bot cannot be set up or reached (no listening endpoint, bad keys...)."""


class KeyFileError(ArenaError):
    """A secret key file cannot be read or written (corrupt, wrong permissions...)."""


class MissingKey(KeyFileError):
    """A tournament's secret key is not in its key file (the file was deleted or moved)."""
