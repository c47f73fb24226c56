"""Protocol v1 messages: the one place each is built, and their validation.

Every message is a msgpack map with a string ``type`` field. ``validate_from_bot`` checks a
decoded map from a bot field by field and raises InvalidMessage on anything unexpected; the
arena treats that as a fault of the bot, never as an exception of its own.

A bot whose hello says ``batch: true`` may be sent a ``batch``: several messages in one, in
the order they would have come alone; it may answer with a ``batch`` of ``action`` messages
(or with ``action`` messages alone). Each entry of a bot's batch is checked on its own
(``entry_problem``), so that a bad entry is a fault of its own game only.
"""

from __future__ import annotations

import enum
from typing import Any

from protocol.errors import InvalidMessage

MAX_NAME = 64
MAX_TOKEN = 128
MAX_ACTION = 256
#: The most entries in a bot's ``batch``: one answer per open game, and the arena gives one
#: process at most this many games at once (``arena.procs.hub.MAX_GAMES_PER_PROCESS``).
MAX_BATCH = 64


class ErrorCode(enum.StrEnum):
    """Codes of ``error`` messages the arena sends."""

    BAD_TOKEN = "bad-token"  # unknown or already used token
    BAD_PROTOCOL = "bad-protocol"  # protocol version not supported
    BAD_HELLO = "bad-hello"  # a first message that is no valid hello (the message says why)


#: The fields of each message a bot may send (``max_games`` and ``batch`` are optional in a
#: hello; a ``batch`` only from a bot whose hello said ``batch: true``).
BOT_FIELDS = {
    "action": ("game_id", "request", "action"),
    "hello": ("protocol", "token", "name", "max_games", "batch"),
    "batch": ("messages",),
}
#: msgpack's names for the types of values, as a bot's author sees them.
_WIRE_TYPES = {
    bool: "a boolean",
    int: "an integer",
    float: "a float",
    str: "a string",
    bytes: "bin (bytes)",
    list: "an array",
    dict: "a map",
    type(None): "nil",
}


def _wire_type(value: Any) -> str:
    return _WIRE_TYPES.get(type(value), type(value).__name__)


def _field(msg: dict[str, Any], key: str, wanted: type, name: str) -> Any:
    if key not in msg:
        raise InvalidMessage(f"{msg.get('type')}: field {key!r} is missing")
    value = msg[key]
    if type(value) is not wanted:
        shown = f" ({value!r:.40})" if isinstance(value, (str, int, float)) else ""
        raise InvalidMessage(
            f"{msg.get('type')}: field {key!r} must be {name}, not {_wire_type(value)}{shown}"
        )
    return value


def _int(msg: dict[str, Any], key: str) -> int:
    return _field(msg, key, int, "an integer")


def _str(msg: dict[str, Any], key: str, limit: int) -> str:
    value = _field(msg, key, str, "a string")
    if len(value) > limit:
        raise InvalidMessage(f"{msg.get('type')}: field {key!r} is longer than {limit}")
    return value


def _no_others(msg: dict[str, Any], kind: str) -> None:
    unknown = set(msg) - {"type", *BOT_FIELDS[kind]}
    if unknown:
        listed = ", ".join(repr(key)[:40] for key in sorted(unknown, key=str)[:5])
        raise InvalidMessage(
            f"{kind}: unknown field(s) {listed} (its fields are {', '.join(BOT_FIELDS[kind])})"
        )


def validate_from_bot(msg: dict[str, Any]) -> str:
    """Check a decoded message from a bot; return its type. Raises InvalidMessage saying,
    in the protocol's words, the first thing wrong: a missing field, a field of the wrong
    type (and which type it had), an unknown field. A ``batch`` is checked as a list of at
    most ``MAX_BATCH`` entries; each entry is checked by ``entry_problem``."""
    kind = msg.get("type")
    if kind == "action":
        action_ = msg.get("action")
        if (  # the hot path: a well-formed action, checked without a call
            len(msg) == 4
            and type(msg.get("game_id")) is int
            and type(msg.get("request")) is int
            and type(action_) is str
            and len(action_) <= MAX_ACTION
        ):
            return kind
        _no_others(msg, kind)
        _int(msg, "game_id")
        _int(msg, "request")
        _str(msg, "action", MAX_ACTION)
        return kind
    if kind == "batch":
        entries = msg.get("messages")
        if len(msg) == 2 and type(entries) is list and len(entries) <= MAX_BATCH:
            return kind
        _no_others(msg, kind)
        _field(msg, "messages", list, "an array")
        raise InvalidMessage(f"batch: more than {MAX_BATCH} messages ({len(entries)})")
    if kind == "hello":
        _int(msg, "protocol")
        _str(msg, "token", MAX_TOKEN)
        _str(msg, "name", MAX_NAME)
        if "max_games" in msg:  # games served at once; the arena caps it (absent: 1)
            _int(msg, "max_games")
        if "batch" in msg:  # several messages in one (absent: false)
            _field(msg, "batch", bool, "a boolean")
        _no_others(msg, kind)
        return kind
    if "type" not in msg:
        raise InvalidMessage("a message needs a string 'type'")
    if type(kind) is not str:
        raise InvalidMessage(f"'type' must be a string, not {_wire_type(kind)}")
    raise InvalidMessage(f"a bot may not send messages of type {kind[:40]!r}")


def entry_problem(entry: Any) -> str | None:
    """What is wrong with one entry of a bot's ``batch`` (None: a well-formed ``action``)."""
    if type(entry) is dict:
        action_ = entry.get("action")
        if (  # the hot path: a well-formed action, checked without a call
            len(entry) == 4
            and entry.get("type") == "action"
            and type(entry.get("game_id")) is int
            and type(entry.get("request")) is int
            and type(action_) is str
            and len(action_) <= MAX_ACTION
        ):
            return None
        try:
            kind = validate_from_bot(entry)
        except InvalidMessage as exc:
            return f"batch entry: {exc}"
        return f"batch entry: a batch holds action messages, not {kind!r}"
    return f"batch entry: an entry is a map, not {_wire_type(entry)}"


def validate_from_arena(msg: dict[str, Any]) -> str:
    """Check a decoded message from the arena (used by the SDK); return its type."""
    kind = msg.get("type")
    if kind == "turn":
        _int(msg, "game_id")
        _int(msg, "request")
        _int(msg, "deadline_ms")
        if not isinstance(msg.get("legal"), list) or not isinstance(msg.get("view"), dict):
            raise InvalidMessage("turn: 'legal' must be a list and 'view' a map")
        return kind
    if kind == "start":
        for key in ("game_id", "seat", "players", "seed"):
            _int(msg, key)
        _str(msg, "game", MAX_NAME)
        return kind
    if kind == "batch":
        if type(msg.get("messages")) is not list:
            raise InvalidMessage("batch: 'messages' must be a list")
        return kind
    if kind in ("welcome", "end", "bye", "error"):
        return kind
    raise InvalidMessage(f"unknown message type {str(kind)[:40]!r}")


def hello(
    *, token: str, name: str, protocol: int, max_games: int | None = None, batch: bool = False
) -> dict[str, Any]:
    """A hello; ``max_games`` (games the bot serves at once) only when given, ``batch`` (it
    takes several messages in one) only when true."""
    message: dict[str, Any] = {"type": "hello", "protocol": protocol, "token": token, "name": name}
    if max_games is not None:
        message["max_games"] = max_games
    if batch:
        message["batch"] = True
    return message


def action(*, game_id: int, request: int, action: str) -> dict[str, Any]:
    return {"type": "action", "game_id": game_id, "request": request, "action": action}


def start(
    *, game_id: int, game: str, seat: int, players: int, options: Any, seed: int
) -> dict[str, Any]:
    """A game starts: the bot holds ``seat`` of ``players``; ``seed`` is for its own choices."""
    return {
        "type": "start",
        "game_id": game_id,
        "game": game,
        "seat": seat,
        "players": players,
        "options": options,
        "seed": seed,
    }


def turn(
    *, game_id: int, request: int, view: dict[str, Any], legal: list[str], deadline_ms: int
) -> dict[str, Any]:
    """A decision: answer ``request`` of ``game_id`` with one of ``legal`` within
    ``deadline_ms``."""
    return {
        "type": "turn",
        "game_id": game_id,
        "request": request,
        "view": view,
        "legal": legal,
        "deadline_ms": deadline_ms,
    }


def end(*, game_id: int, result: Any, view: dict[str, Any]) -> dict[str, Any]:
    """A game is over: its ``result`` (scores, places, forfeits) and the seat's final view."""
    return {"type": "end", "game_id": game_id, "result": result, "view": view}


def batch(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """Several messages in one, in the order they would have been sent alone (to or from a
    bot whose hello said ``batch: true``)."""
    return {"type": "batch", "messages": messages}


def bye() -> dict[str, Any]:
    """The bot is no longer needed: it should exit."""
    return {"type": "bye"}


def error(code: ErrorCode, message: str) -> dict[str, Any]:
    return {"type": "error", "code": code.value, "message": message}
