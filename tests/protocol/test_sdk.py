"""The Python SDK serving several games at once, against a scripted arena on real sockets.

The bot runs ``serve`` in a thread of the test process (or, for a bundled bot, as its own
process); the arena side is a real ROUTER socket that sends the games' messages interleaved.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import threading
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from protocol.sdk import SDK_MAX_GAMES, Bot, serve
from tests.protocol.wire import WAIT_MS, BotThread, ScriptedArena, play

ROOT = Path(__file__).resolve().parents[2]
SEEDS = {1: 11, 2: 22, 3: 33, 4: 2**63 - 1}


@pytest.fixture
def arena() -> Iterator[ScriptedArena]:
    scripted = ScriptedArena()
    yield scripted
    scripted.close()


def run(arena: ScriptedArena, bot: Any, **options: Any) -> BotThread:
    """``serve`` the bot in a thread and take its hello; the thread's hello is ``.hello``."""
    thread = BotThread(lambda: serve(bot, endpoint=arena.endpoint, token="t", **options))
    thread.hello = arena.welcome()  # type: ignore[attr-defined]
    return thread


def finish(arena: ScriptedArena, thread: BotThread) -> None:
    arena.send({"type": "bye"})
    assert thread.join() == 0


def random_act(view: dict, legal: list[str]) -> str:
    random.random()  # two draws a turn: a lost save or restore shows
    return random.choice(legal)


class Counting(Bot):
    """Per-game state in ``self``: the game it started in and the turns it played there."""

    name = "counting"
    made: list[weakref.ref[Counting]] = []

    def __init__(self) -> None:
        super().__init__()
        self.game_id = -1
        self.turns = 0
        self.ended = False
        Counting.made.append(weakref.ref(self))

    def start(self, info: dict[str, Any]) -> None:
        self.game_id = info["game_id"]

    def act(self, view: dict[str, Any], legal: list[str]) -> str:
        self.turns += 1
        return legal[self.turns] if view["game"] == self.game_id else legal[-1]

    def end(self, info: dict[str, Any]) -> None:
        self.ended = info["game_id"] == self.game_id


class Drawing(Bot):
    """Draws from both ``self.random`` and the global ``random`` each turn."""

    def act(self, view: dict[str, Any], legal: list[str]) -> str:
        return legal[self.random.randrange(7) * 7 + random.randrange(7)]


class OwnRandomOnly(Drawing):
    global_random = False

    def act(self, view: dict[str, Any], legal: list[str]) -> str:
        return legal[self.random.randrange(len(legal))]


class Blind(Bot):
    """Reads no view (the SDK does not build them): sees what it is handed."""

    reads_view = False
    seen: list[Any] = []

    def turn(self, message: dict[str, Any]) -> str:
        Blind.seen.append((message["view"], message["deadline_ms"]))
        return message["legal"][-1]

    def end(self, info: dict[str, Any]) -> None:
        Blind.seen.append(info["view"])


def test_a_bot_that_reads_no_view_gets_none_and_everything_else(arena: ScriptedArena) -> None:
    Blind.seen.clear()
    thread = run(arena, Blind)
    arena.start(1, SEEDS[1])
    arena.start(2, SEEDS[2])
    assert play(arena, [[1, 2], [2]]) == {1: ["move:49"], 2: ["move:49", "move:49"]}
    view = {"seat": 0, "log": ["0:place"]}
    turns = [
        {"type": "turn", "game_id": game, "request": 10 + game, "view": view, "legal": ["a", "b"]}
        for game in (1, 2)
    ]
    arena.send({"type": "batch", "messages": [dict(turn, deadline_ms=7) for turn in turns]})
    answers = arena.receive()
    assert [(a["game_id"], a["request"], a["action"]) for a in answers["messages"]] == [
        (1, 11, "b"),
        (2, 12, "b"),
    ]
    arena.end(1)
    finish(arena, thread)
    assert Blind.seen == [(None, WAIT_MS)] * 3 + [(None, 7)] * 2 + [None]


@pytest.mark.parametrize(
    "bot, options, declared",
    [
        (random_act, {}, SDK_MAX_GAMES),
        (Counting, {}, SDK_MAX_GAMES),
        (Counting(), {}, 1),
        (random_act, {"max_games": 3}, 3),
        (Counting(), {"max_games": 2}, 2),
    ],
)
def test_hello_declares_the_games_served_at_once(
    arena: ScriptedArena, bot: Any, options: dict, declared: int
) -> None:
    thread = run(arena, bot, **options)
    assert thread.hello["max_games"] == declared  # type: ignore[attr-defined]
    finish(arena, thread)


def test_interleaved_turns_are_answered_with_their_own_ids(arena: ScriptedArena) -> None:
    thread = run(arena, random_act)
    for game_id, seed in SEEDS.items():
        arena.start(game_id, seed)
    actions = play(arena, [[1, 2, 3, 4], [4, 2], [3, 1, 2], [1, 2, 3, 4]])
    assert {game: len(moves) for game, moves in actions.items()} == {1: 3, 2: 4, 3: 3, 4: 3}
    finish(arena, thread)


def test_a_bot_class_gets_one_instance_per_game_dropped_at_the_end(arena: ScriptedArena) -> None:
    Counting.made.clear()
    thread = run(arena, Counting)
    for game_id in (1, 2, 3):
        arena.start(game_id, SEEDS[game_id])
    actions = play(arena, [[1, 2, 3], [3, 2], [2, 1], [2]])
    assert actions == {
        1: ["move:1", "move:2"],
        2: ["move:1", "move:2", "move:3", "move:4"],
        3: ["move:1", "move:2"],
    }
    assert len(Counting.made) == 3
    ended = [made() for made in Counting.made]
    for game_id in (1, 2, 3):
        arena.end(game_id)
    arena.start(9, 99)
    assert play(arena, [[9]]) == {9: ["move:1"]}  # the ends were handled before this turn
    assert all(bot is not None and bot.ended for bot in ended)
    del ended
    assert sum(made() is not None for made in Counting.made) == 1  # game 9's only
    finish(arena, thread)


def one_at_a_time(arena: ScriptedArena, turns: int) -> dict[int, list[str]]:
    actions = {}
    for game_id, seed in SEEDS.items():
        arena.start(game_id, seed)
        actions.update(play(arena, [[game_id]] * turns))
        arena.end(game_id)
    return actions


#: Games 1-4 with five turns each: started, played back to back and ended at different times.
STAGGERED: list[tuple[str, Any]] = [
    ("start", 4),
    ("turns", [4]),
    ("start", 2),
    ("turns", [2, 4]),
    ("start", 1),
    ("turns", [1, 4, 2]),
    ("turns", [2, 1, 4]),
    ("turns", [4, 1, 2]),
    ("end", 4),
    ("start", 3),
    ("turns", [3, 1, 2]),
    ("turns", [1, 3]),
    ("end", 1),
    ("end", 2),
    ("turns", [3]),
    ("turns", [3]),
    ("turns", [3]),
    ("end", 3),
]


def staggered(arena: ScriptedArena) -> dict[int, list[str]]:
    actions: dict[int, list[str]] = {}
    for step, what in STAGGERED:
        if step == "start":
            arena.start(what, SEEDS[what])
        elif step == "end":
            arena.end(what)
        else:
            for game_id, moves in play(arena, [what]).items():
                actions.setdefault(game_id, []).extend(moves)
    return actions


@pytest.mark.parametrize(
    "bot, options",
    [(random_act, {}), (Drawing, {}), (Drawing(), {"max_games": 4}), (OwnRandomOnly, {})],
    ids=["function", "class", "shared-instance", "own-random-only"],
)
def test_randomness_is_per_game_whatever_the_interleaving(
    arena: ScriptedArena, bot: Any, options: dict
) -> None:
    before = random.getstate()
    thread = run(arena, bot, **options)
    alone = one_at_a_time(arena, turns=5)
    for order in ([1, 2, 3, 4], [4, 2, 1, 3]):
        for game_id, seed in SEEDS.items():
            arena.start(game_id, seed)
        schedule = [order[k:] + order[:k] for k in range(5)]
        together = play(arena, schedule)
        for game_id in order:
            arena.end(game_id)
        assert together == alone
    assert staggered(arena) == alone
    assert len({tuple(moves) for moves in alone.values()}) == len(SEEDS)  # seeds matter
    finish(arena, thread)
    if bot is OwnRandomOnly:  # its games never touch the global random module
        assert random.getstate() == before


def bundled_bot(arena: ScriptedArena, module: str) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "ARENA_ENDPOINT": arena.endpoint,
        "ARENA_TOKEN": "t",
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    return subprocess.Popen([sys.executable, "-m", module], cwd=ROOT, env=env)


def test_a_bundled_bot_process_plays_interleaved_games_as_it_plays_them_alone() -> None:
    results = []
    for drive in (one_at_a_time, staggered):
        arena = ScriptedArena()
        process = bundled_bot(arena, "bots.random")
        try:
            hello = arena.welcome()
            assert (hello["name"], hello["max_games"]) == ("random", SDK_MAX_GAMES)
            results.append(drive(arena) if drive is staggered else drive(arena, 5))
            arena.send({"type": "bye"})
            assert process.wait(timeout=60) == 0
        finally:
            process.kill()
            arena.close()
    assert results[0] == results[1]


def test_queued_messages_are_handled_in_arrival_order_up_to_bye(arena: ScriptedArena) -> None:
    gate = threading.Event()

    def slow_first(view: dict, legal: list[str]) -> str:
        gate.wait(30)  # the first turn holds the bot while the rest queue up
        return legal[view["game"]]

    thread = run(arena, slow_first)
    for game_id in range(1, 6):
        arena.start(game_id, game_id)
    sent = [arena.turn(game_id) for game_id in range(1, 6)]
    arena.end(3)
    arena.send({"type": "bye"})
    gate.set()
    answers = [arena.receive() for _ in sent]
    assert [a["request"] for a in answers] == sent
    assert [a["action"] for a in answers] == [f"move:{g}" for g in range(1, 6)]
    assert thread.join() == 0


def test_strays_from_an_arena_do_not_stop_the_bot(arena: ScriptedArena) -> None:
    thread = run(arena, Counting)
    arena.end(5)  # a game that never started
    assert play(arena, [[7]]) == {7: ["move:49"]}  # a turn of one: played by a fresh bot
    arena.start(1, 1)
    assert play(arena, [[1, 7]]) == {1: ["move:1"], 7: ["move:49"]}
    finish(arena, thread)


@pytest.mark.parametrize("max_games", [0, -3, 1.5, True])
def test_max_games_must_be_a_positive_integer(max_games: Any) -> None:
    with pytest.raises(ValueError, match="max_games"):
        serve(random_act, endpoint="ipc:///nowhere", token="t", max_games=max_games)


def test_a_bot_class_must_subclass_bot() -> None:
    class Lookalike:
        def act(self, view: dict, legal: list[str]) -> str:
            return legal[0]

    with pytest.raises(TypeError, match="subclass"):
        serve(Lookalike, endpoint="ipc:///nowhere", token="t")  # type: ignore[arg-type]
