"""A scripted arena for SDK tests: a real ROUTER socket that welcomes one bot and then sends
``start``/``turn``/``end`` messages of several games, interleaved as a test chooses."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from protocol.codec import MAX_BOT_MESSAGE, decode
from protocol.transport import RouterSocket

#: Generous bound for one message to arrive on a loaded machine (a bound, never a margin).
WAIT_MS = 20_000
#: Legal actions of the scripted turns: enough that random choices differ between seeds.
LEGAL = [f"move:{n}" for n in range(50)]


class ScriptedArena:
    """The arena's side of one connection, driven step by step by a test."""

    def __init__(self) -> None:
        self.router = RouterSocket()
        self.endpoint = self.router.endpoint
        self.peer = b""
        self.request = 0

    def receive(self) -> dict[str, Any]:
        got = self.router.recv_within(WAIT_MS)
        assert got is not None, "the bot sent nothing"
        peer, frames = got
        assert self.peer in (b"", peer) and len(frames) == 1
        self.peer = peer
        return decode(frames[0], max_bytes=MAX_BOT_MESSAGE)

    def welcome(self) -> dict[str, Any]:
        """Take the bot's hello and welcome it; returns the hello."""
        message = self.receive()
        assert message["type"] == "hello"
        self.send({"type": "welcome", "protocol": 1})
        return message

    def send(self, message: dict[str, Any]) -> None:
        self.router.send(self.peer, message)

    def start(self, game_id: int, seed: int, seat: int = 0) -> None:
        self.send(
            {
                "type": "start",
                "game_id": game_id,
                "game": "skull",
                "seat": seat,
                "players": 2,
                "options": {},
                "seed": seed,
            }
        )

    def turn(
        self, game_id: int, view: dict[str, Any] | None = None, legal: list[str] | None = None
    ) -> int:
        """Send a turn; returns its request id (per connection, increasing)."""
        self.request += 1
        self.send(
            {
                "type": "turn",
                "game_id": game_id,
                "request": self.request,
                "view": view or {"game": game_id},
                "legal": legal or LEGAL,
                "deadline_ms": WAIT_MS,
            }
        )
        return self.request

    def end(self, game_id: int) -> None:
        self.send({"type": "end", "game_id": game_id, "result": {}, "view": {}})

    def close(self) -> None:
        self.router.close()


def play(arena: ScriptedArena, schedule: list[list[int]]) -> dict[int, list[str]]:
    """Send the turns of ``schedule`` (each step: the games that get a turn, back to back),
    check every answer echoes its turn's ids, and return each game's actions in order."""
    actions: dict[int, list[str]] = {}
    for step in schedule:
        sent = {arena.turn(game_id): game_id for game_id in step}
        for _ in step:
            answer = arena.receive()
            assert answer["type"] == "action" and answer["request"] in sent, answer
            assert answer["game_id"] == sent.pop(answer["request"])
            assert answer["action"] in LEGAL
            actions.setdefault(answer["game_id"], []).append(answer["action"])
    return actions


class BotThread:
    """``serve`` running in a thread of this process against a ScriptedArena."""

    def __init__(self, target: Callable[[], int]) -> None:
        self.status: int | None = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, args=(target,), daemon=True)
        self.thread.start()

    def _run(self, target: Callable[[], int]) -> None:
        try:
            self.status = target()
        except BaseException as exc:  # reported by join
            self.error = exc

    def join(self) -> int | None:
        self.thread.join(WAIT_MS / 1000)
        assert not self.thread.is_alive(), "the bot did not exit"
        if self.error is not None:
            raise self.error
        return self.status
