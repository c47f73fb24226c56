"""Python bot SDK: a bot is one function ``act(view, legal) -> action``.

    from protocol.sdk import run_bot

    def act(view, legal):
        return legal[0]

    if __name__ == "__main__":
        run_bot(act, name="first")

``run_bot`` reads ``ARENA_ENDPOINT`` and ``ARENA_TOKEN`` (and, for an encrypted connection to
a remote arena, ``ARENA_SERVER_KEY``, ``ARENA_PUBLIC_KEY`` and ``ARENA_SECRET_KEY``: ZeroMQ
CURVE keys as Z85 text, from ``arena bot token NAME --curve``), says hello, and serves games
until ``bye``: several at once (up to ``max_games``, said in the hello), their turns
interleaved. A plain function is stateless per call, so every game shares it. A bot that wants
hooks subclasses ``Bot`` and overrides ``act`` and optionally ``start`` and ``end``; given the
class, the SDK makes one instance per game (at ``start``, dropped at ``end``); given an
instance, it serves one game at a time with that object.

Randomness is per game: at each ``start`` the SDK seeds Python's global ``random`` module and
the bot's ``self.random`` with the seed the arena sends, and when consecutive calls belong to
different games it saves one game's ``random`` state and restores the other's, so a bot that
uses ``random`` plays the same actions whatever the interleaving of its games.
"""

from __future__ import annotations

import logging
import os
import random
import sys
import time
from collections.abc import Callable
from typing import Any

from protocol import PROTOCOL_VERSION
from protocol.codec import encode
from protocol.errors import ConnectionClosed, ProtocolError
from protocol.messages import batch, hello, validate_from_arena
from protocol.transport import DealerSocket, fast_send

log = logging.getLogger("protocol.sdk")

ActFunction = Callable[[dict[str, Any], list[str]], str]

#: Games a function bot or a ``Bot`` subclass serves at once unless told otherwise (the arena
#: caps what a bot declares at a limit of its own).
SDK_MAX_GAMES = 64


class Bot:
    """Base class for bots with hooks. Override ``act``; ``start`` and ``end`` are optional.

    Pass the class to ``run_bot`` for one instance per game (per-game state in ``self`` is then
    safe with several games at once), or an instance to serve one game at a time with it.
    """

    name = "bot"
    #: Whether the SDK seeds and, between games, swaps the global ``random`` module for this
    #: bot. A bot that draws only from ``self.random`` may set it False and save that work.
    global_random = True
    #: Whether the bot reads its views. A bot that never does may set it False: the SDK then
    #: skips the views it receives without building them (``act`` gets None for the view, as
    #: do ``turn`` and ``end`` in their message's ``view``), most of such a bot's CPU a turn.
    reads_view = True

    def __init__(self) -> None:
        self.random = random.Random(0)

    def start(self, info: dict[str, Any]) -> None:
        """Called at the start of each game with the ``start`` message."""

    def act(self, view: dict[str, Any], legal: list[str]) -> str:
        raise NotImplementedError

    def turn(self, message: dict[str, Any]) -> str:
        """Called with each whole ``turn`` message (``deadline_ms`` included); answers
        ``act(view, legal)`` unless overridden."""
        return self.act(message["view"], message["legal"])

    def end(self, info: dict[str, Any]) -> None:
        """Called at the end of each game with the ``end`` message."""


class _FunctionBot(Bot):
    def __init__(self, function: ActFunction, name: str) -> None:
        super().__init__()
        self.function = function
        self.name = name

    def act(self, view: dict[str, Any], legal: list[str]) -> str:
        return self.function(view, legal)


BotSpec = ActFunction | Bot | type[Bot]


class _Game:
    """One open game: its bot object and, while another game is live, its saved random states."""

    __slots__ = ("bot", "global_state", "own_state")

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.global_state: tuple[Any, ...] | None = None
        self.own_state: tuple[Any, ...] | None = None


class Player:
    """Turns the arena's ``start``/``turn``/``end`` messages into calls on the bot.

    Keeps the open games by ``game_id``. The random states of one game at a time are loaded
    (the live game's); a call for another game first saves the live game's states and loads
    its own. Only what the bot can draw from is swapped: the global ``random`` module (unless
    ``Bot.global_random`` is False) and, for a bot object shared by all games, ``self.random``.
    """

    def __init__(self, bot: BotSpec, *, name: str | None = None) -> None:
        if isinstance(bot, type):
            if not issubclass(bot, Bot):
                raise TypeError(f"a bot class must subclass protocol.sdk.Bot: {bot.__name__}")
            self._make: Callable[[], Bot] = bot
            self.name = name or bot.name
            self.max_games = SDK_MAX_GAMES
            kind: type[Bot] = bot
            self._shared_random = False  # each game's instance has a random of its own
        else:
            if not isinstance(bot, Bot):
                if not callable(bot):
                    raise TypeError(f"a bot is a function, a Bot subclass or a Bot: {bot!r}")
                bot = _FunctionBot(bot, name or getattr(bot, "__name__", "bot"))
                self.max_games = SDK_MAX_GAMES
                self._shared_random = False  # a function cannot reach the wrapper's random
            else:
                self.max_games = 1
                self._shared_random = True
            shared = bot
            self._make = lambda: shared
            self.name = name or bot.name
            kind = type(bot)
        self._global_random = bool(bot.global_random)  # the class's, or the instance's own
        self.reads_view = bool(bot.reads_view)
        self._end_hook = kind.end is not Bot.end
        self.games: dict[int, _Game] = {}
        self._live: _Game | None = None

    def start(self, msg: dict[str, Any]) -> None:
        """A new game: make (or take) its bot, seed its randomness, call ``start``."""
        game = _Game(self._make())
        old = self.games.pop(msg["game_id"], None)
        if old is not None and old is self._live:
            self._live = None
        self._save_live()
        self._live = game
        self.games[msg["game_id"]] = game
        seed = msg["seed"]
        if self._global_random:
            random.seed(seed)
        game.bot.random.seed(seed)
        game.bot.start(msg)

    def action(self, msg: dict[str, Any]) -> dict[str, Any]:
        """The ``action`` answering one ``turn``: the bot's choice, with the turn's ids."""
        game_id = msg["game_id"]
        game = self.games.get(game_id)
        if game is None:
            game = self._orphan(game_id)
        elif game is not self._live:
            self._switch(game)
        choice = game.bot.turn(msg)
        return {"type": "action", "game_id": game_id, "request": msg["request"], "action": choice}

    def answer(self, msg: dict[str, Any]) -> bytes:
        """The encoded ``action`` answering one ``turn``."""
        return encode(self.action(msg))

    def end(self, msg: dict[str, Any]) -> None:
        """A game is over: call ``end`` (in that game's randomness) and forget the game."""
        game = self.games.pop(msg.get("game_id"), None)  # type: ignore[arg-type]
        if game is None:
            return
        if self._end_hook:
            if game is not self._live:
                self._switch(game)
            game.bot.end(msg)
        if game is self._live:
            self._live = None

    def _orphan(self, game_id: int) -> _Game:
        """A turn of a game that never started (not sent by a correct arena): play it with
        the randomness as it stands."""
        log.warning("turn for game %d, which never started", game_id)
        self._save_live()
        game = self._live = self.games[game_id] = _Game(self._make())
        return game

    def _save_live(self) -> None:
        live = self._live
        if live is None:
            return
        if self._global_random:
            live.global_state = random.getstate()
        if self._shared_random:
            live.own_state = live.bot.random.getstate()

    def _switch(self, game: _Game) -> None:
        self._save_live()
        if game.global_state is not None:
            random.setstate(game.global_state)
        if game.own_state is not None:
            game.bot.random.setstate(game.own_state)
        self._live = game


#: Environment variables holding the CURVE keys: the arena's public key, then the bot's pair.
CURVE_ENV = ("ARENA_SERVER_KEY", "ARENA_PUBLIC_KEY", "ARENA_SECRET_KEY")


def curve_from_env(environ: dict[str, str] | None = None) -> tuple[str, str, str] | None:
    """The CURVE keys from the environment: all three, or None if none is set.

    Raises ProtocolError if only some are set.
    """
    environ = os.environ if environ is None else environ
    keys = [environ.get(name, "") for name in CURVE_ENV]
    if not any(keys):
        return None
    if not all(keys):
        missing = [name for name, key in zip(CURVE_ENV, keys) if not key]
        raise ProtocolError(
            f"CURVE needs all of {', '.join(CURVE_ENV)}; missing {', '.join(missing)}"
        )
    return keys[0], keys[1], keys[2]


def serve(
    bot: BotSpec,
    *,
    endpoint: str,
    token: str,
    idle_timeout_ms: int | None = None,
    curve: tuple[str, str, str] | None = None,
    name: str | None = None,
    max_games: int | None = None,
    batch: bool = True,
) -> int:
    """Connect, say hello and answer the arena until ``bye``. Returns an exit status.

    ``bot`` is a function, a ``Bot`` subclass or a ``Bot`` instance (see the module's text);
    ``max_games`` overrides the games it declares it serves at once; ``batch`` (the default)
    declares that it takes several messages in one, and answers a batch's turns in one
    message. ``curve`` is ``(server public key, own public key, own secret key)`` for CURVE.
    """
    player = Player(bot, name=name)
    games = player.max_games if max_games is None else max_games
    if type(games) is not int or games < 1:
        raise ValueError(f"max_games must be a positive integer, not {games!r}")
    sock = DealerSocket(endpoint, curve=curve)
    try:
        sock.send(
            hello(
                token=token,
                name=player.name[:64],
                protocol=PROTOCOL_VERSION,
                max_games=games,
                batch=batch,
            )
        )
        reply = sock.recv(idle_timeout_ms)
        if reply is None:
            raise ConnectionClosed("no answer to hello")
        if reply.get("type") == "error":
            log.error("arena refused the bot: %s %s", reply.get("code"), reply.get("message"))
            return 2
        return _answer(sock, player, idle_timeout_ms)
    finally:
        sock.close()


def _answer(sock: DealerSocket, player: Player, idle_timeout_ms: int | None) -> int:
    """The main loop: handle each message as it comes, until ``bye`` (returns 0). Messages
    already queued are read without sleeping, so one wake-up serves the turns of many games;
    checking for more before each read (a drain) cost ~20 µs a decision and saved nothing. A
    ``batch`` is handled message by message and its turns answered in one ``batch``."""
    socket = sock.socket
    recv = sock.recv
    answer = player.answer
    views = player.reads_view
    while True:
        msg = recv(idle_timeout_ms, views=views)
        if msg is None:
            raise ConnectionClosed("the arena went quiet")
        kind = msg.get("type")
        if kind == "turn":
            fast_send(socket, answer(msg))
        elif kind == "batch":
            validate_from_arena(msg)
            _answer_batch(socket, player, msg["messages"])
        elif kind == "start":
            validate_from_arena(msg)
            player.start(msg)
        elif kind == "end":
            player.end(msg)
        elif kind == "bye":
            return 0
        else:
            validate_from_arena(msg)


#: The share of a turn's deadline after which the answers of a batch computed so far are sent
#: at once, the rest following in another message (a slow bot's last turns are not late for
#: its first ones).
EARLY_SEND_SHARE = 0.25


def _answer_batch(socket: Any, player: Player, messages: list[Any]) -> None:
    """Handle a batch's messages in order; send its answers in one ``batch`` (sooner, in
    parts, if answering takes more than ``EARLY_SEND_SHARE`` of the first turn's deadline)."""
    answers: list[dict[str, Any]] = []
    action = player.action
    received = time.monotonic()
    send_by: float | None = None
    for msg in messages:
        kind = msg.get("type") if type(msg) is dict else None
        if kind == "turn":
            answers.append(action(msg))
            if send_by is None:
                send_by = received + msg["deadline_ms"] * EARLY_SEND_SHARE / 1000.0
            elif time.monotonic() > send_by:
                fast_send(socket, encode(batch(answers)))
                answers = []
                send_by = time.monotonic() + msg["deadline_ms"] * EARLY_SEND_SHARE / 1000.0
        elif kind == "start":
            validate_from_arena(msg)
            player.start(msg)
        elif kind == "end":
            player.end(msg)
        else:
            raise ProtocolError(f"a batch may hold start, turn and end, not {kind!r}")
    if len(answers) == 1:
        fast_send(socket, encode(answers[0]))
    elif answers:
        fast_send(socket, encode(batch(answers)))


#: The environment variable that, set to ``0``, makes ``run_bot`` declare no batches.
BATCH_ENV = "ARENA_BOT_BATCH"


def run_bot(
    bot: BotSpec,
    *,
    name: str | None = None,
    max_games: int | None = None,
    batch: bool | None = None,
) -> None:
    """Run a bot (a function, a Bot subclass or a Bot instance) as this process's main loop,
    then exit. ``max_games`` overrides the games it declares it serves at once (default: 64
    for a function or a Bot subclass, 1 for a Bot instance); ``batch=False`` declares no
    batches (every message alone, as protocol v1 began; default: batches, unless the
    environment says ``ARENA_BOT_BATCH=0``)."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(name)s: %(message)s")
    endpoint = os.environ.get("ARENA_ENDPOINT")
    token = os.environ.get("ARENA_TOKEN")
    if not endpoint or not token:
        log.error("ARENA_ENDPOINT and ARENA_TOKEN must be set (the arena sets them)")
        raise SystemExit(2)
    if batch is None:
        batch = os.environ.get(BATCH_ENV, "1") != "0"
    try:
        status = serve(
            bot,
            endpoint=endpoint,
            token=token,
            curve=curve_from_env(),
            name=name,
            max_games=max_games,
            batch=batch,
        )
    except ProtocolError as exc:
        log.error("protocol error: %s", exc)
        status = 3
    except KeyboardInterrupt:
        status = 130
    raise SystemExit(status)


__all__ = ["SDK_MAX_GAMES", "Bot", "Player", "run_bot", "serve"]
