"""Every bundled bot plays the same actions whether its process serves games one at a time or
several at once, their turns interleaved (the audit of issue 15: no per-process state).

One real bot process per run, fed real games of its own game by a scripted arena (a real ROUTER
socket); the bot holds seat 0, the other seats play their first legal action.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from arena.games import get_game
from arena.games.base import State
from protocol.codec import decode
from protocol.sdk import Player
from tests.protocol.wire import WAIT_MS, ScriptedArena

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = tomllib.loads((ROOT / "bots" / "manifest.toml").read_text())["games"]
PLAYERS = 3
SEEDS = (5, 6, 7)
#: Bots that serve one game at a time (their hello says max_games 1): ``ismcts`` budgets its
#: thinking time per move, so several games at once would share its budget.
ONE_AT_A_TIME = {"ismcts"}


def bot_process(arena: ScriptedArena, name: str) -> subprocess.Popen[bytes]:
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "ARENA_ENDPOINT": arena.endpoint, "ARENA_TOKEN": "t", "PYTHONPATH": path}
    return subprocess.Popen([sys.executable, "-m", f"bots.{name}"], cwd=ROOT, env=env)


def advance(state: State) -> bool:
    """Play the other seats' first legal actions until seat 0 acts; False once over."""
    while not state.is_over():
        seats = state.to_act()
        if 0 in seats:
            return True
        state.apply({seat: state.legal(seat)[0] for seat in seats})
    return False


def play_games(arena: ScriptedArena, game: str, together: bool) -> dict[int, list[str]]:
    """Seat 0's actions in each game: the games one after another, or all open at once with
    one turn of each sent back to back."""
    rule = get_game(game)
    states = {number: rule.new(PLAYERS, seed) for number, seed in enumerate(SEEDS, start=1)}
    actions: dict[int, list[str]] = {number: [] for number in states}
    batches = [list(states)] if together else [[number] for number in states]
    for batch in batches:
        for number in batch:
            arena.start(number, SEEDS[number - 1] * 1_000_003)
        open_games = list(batch)
        while open_games:
            asked = {}
            for number in list(open_games):
                if advance(states[number]):
                    asked[arena.turn(number, states[number].view(0), states[number].legal(0))] = (
                        number
                    )
                else:
                    open_games.remove(number)
                    arena.end(number)
            for _ in range(len(asked)):
                answer = arena.receive()
                number = asked.pop(answer["request"])
                assert answer["game_id"] == number
                state = states[number]
                joint = {seat: state.legal(seat)[0] for seat in state.to_act()}
                joint[0] = answer["action"]
                state.apply(joint)
                actions[number].append(answer["action"])
    return actions


@pytest.mark.parametrize("name", sorted(set(MANIFEST) - ONE_AT_A_TIME))
def test_a_bundled_bot_plays_interleaved_games_as_it_plays_them_one_by_one(name: str) -> None:
    game = "skull" if MANIFEST[name] == ["*"] else MANIFEST[name][0]
    runs = []
    for together in (False, True):
        arena = ScriptedArena()
        process = bot_process(arena, name)
        try:
            assert arena.welcome()["max_games"] >= len(SEEDS)
            runs.append(play_games(arena, game, together))
            arena.send({"type": "bye"})
            assert process.wait(timeout=WAIT_MS / 1000) == 0
        finally:
            process.kill()
            arena.close()
    assert runs[0] == runs[1]
    assert all(runs[0].values())


@pytest.mark.parametrize("name", sorted(ONE_AT_A_TIME))
def test_a_bot_that_serves_one_game_at_a_time_says_so(name: str) -> None:
    arena = ScriptedArena()
    process = bot_process(arena, name)
    try:
        assert arena.welcome()["max_games"] == 1
        arena.send({"type": "bye"})
        assert process.wait(timeout=WAIT_MS / 1000) == 0
    finally:
        process.kill()
        arena.close()


def test_random_and_first_choose_as_they_did_as_functions_of_the_global_module() -> None:
    """``random`` draws from ``self.random`` now: the same choices as ``random.choice`` on the
    global module seeded with the game's seed; ``first`` still plays the first action."""
    from bots.first import FirstBot
    from bots.random import RandomBot

    legal = [f"move:{n}" for n in range(13)]
    for bot, expected in (
        (RandomBot, lambda rng: rng.choice(legal)),
        (FirstBot, lambda rng: legal[0]),
    ):
        player = Player(bot)
        for game_id, seed in enumerate((0, 1, 2**63 - 1)):
            player.start({"type": "start", "game_id": game_id, "seed": seed})
            turn = {"type": "turn", "game_id": game_id, "request": 1, "view": {}, "legal": legal}
            got = [decode(player.answer(turn))["action"] for _ in range(30)]
            rng = random.Random(seed)  # the global module after random.seed(seed)
            assert got == [expected(rng) for _ in range(30)]
