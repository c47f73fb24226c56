"""Golden traces of the disc games (``skull``, ``skull-bank``): byte-identical behaviour.

For 40 seeds and every player count, a seeded random playout is hashed (sha256 over msgpack):
at every step ``to_act()``, every seat's ``legal`` list and ``view``; the typed error and message
of some illegal or misaddressed actions; now and then a clone played a few steps and a
resample's ``full()``, view and legal lists; at the end the events, ``full()`` and ``outcome()``.
Views handed out
earlier must not change when the game moves on (they may share immutable parts with the state).

The expected digests were generated from the engines before their speed-ups, so these tests
prove that an optimisation changed nothing a bot, the referee or a replay can observe. The
skull-bank digests were regenerated once, for the rules correction that lets the dealer reveal
any face-down bill of another row (the skull digests did not change with it).
Regenerate (only for a deliberate rules change) with ``python -m tests.games.test_disc_golden``.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

import msgpack
import pytest

from arena.errors import ArenaError
from arena.games import get_game

SEEDS = range(40)
PLAYERS = range(3, 7)

EXPECTED = {
    "skull/3": "826ce6bae56f1f73395cc3036bcbcf76948203e98ea069189c5a5d970a7d2c59",
    "skull/4": "c94a621117a78be9bedbc77baa3ed00529f9ed1f0dce08b00dff01054f2e7e46",
    "skull/5": "2dd60f4205ba3015169a7db2d1cd222e2ddd965d279ff38205f523c730e20462",
    "skull/6": "9b88ad1f270d92f6a7897f2ce4d3f551c407a89e608ad46555745e4f13c34212",
    "skull-bank/3": "3c400d552c7a2e21f3f35dcc90b621995b0b6f8c1c573b34897488c9abbbc7b1",
    "skull-bank/4": "4dd508280a76577b61a84466543a6582c7adc1f800356a9e163751ef83a84c3f",
    "skull-bank/5": "7c10bf42f7800c4f6eab41221889d66608afa4d194ce8682f3127890e0c5edf7",
    "skull-bank/6": "69763bd6f7997cd03c5d0cef31b9c070a88a1feb3541469ae2945af4ba936ead",
}


def _packed(value: Any) -> bytes:
    return msgpack.packb(value, use_bin_type=True)


def _no_tuples(value: Any) -> bool:
    """Views hold lists and maps only, as before the speed-ups (``view[k] == [...]`` works)."""
    if isinstance(value, dict):
        return all(_no_tuples(item) for item in value.values())
    if isinstance(value, list):
        return all(_no_tuples(item) for item in value)
    return not isinstance(value, tuple)


def _strangers(players: int) -> list[str]:
    """Action strings of every phase of both games, most of them illegal at any given step."""
    words = ["pass", "agree", "disagree", "bid:0", "bid:1", "bid:99", "claim:1", "raise:2",
             "place:flower", "place:skull", "add:rose", "add:skull", "discard:flower",
             "discard:skull", "give:rose", "give:skull", "no-such-action:42", ""]
    for seat in range(-1, players + 1):
        words += [f"flip:{seat}", f"reveal:{seat}", f"first:{seat}"]
    return words


def _try_bad(state: Any, rng: random.Random, players: int, feed: Any) -> None:
    """Apply an illegal or misaddressed joint action; record the error and that nothing moved."""
    acting = state.to_act()
    joint = {s: rng.choice(state.legal(s)) for s in acting}
    kind = rng.randrange(3)
    if kind == 0 or not acting:
        joint[acting[0] if acting else 0] = rng.choice(_strangers(players))
    elif kind == 1:
        joint[rng.choice([s for s in range(players) if s not in acting] or [acting[0]])] = "pass"
    else:
        joint.pop(acting[0])
    before = _packed(state.full()), len(state.events), state.steps
    rng.random()  # once chose whether to pass legal lists to apply (kept for the digests)
    try:
        state.apply(joint)
    except ArenaError as exc:
        feed([type(exc).__name__, str(exc)])
        assert (_packed(state.full()), len(state.events), state.steps) == before
    else:  # the stranger happened to be legal: the state moved on like any step
        feed(["applied", sorted(joint.items())])


def trace(game_name: str, players: int, seed: int) -> bytes:
    """The sha256 digest of one seeded random playout (see the module docstring)."""
    game = get_game(game_name)
    state = game.new(players, seed)
    rng = random.Random(seed * 1009 + players)
    side = random.Random(seed * 7919 + players)
    digest = hashlib.sha256()

    def feed(value: Any) -> None:
        digest.update(_packed(value))

    step = 0
    while not state.is_over():
        acting = state.to_act()
        feed(acting)
        views = []
        for seat in range(players):
            feed(state.legal(seat))
            view = state.view(seat)
            assert step % 7 or _no_tuples(view)
            packed = _packed(view)
            digest.update(packed)
            views.append((view, packed))
        if step % 5 == 3:
            _try_bad(state, side, players, feed)
            if state.is_over():
                break
            acting = state.to_act()
        if step % 9 == 4:
            seat = side.randrange(players)
            other = state.resample(seat, side)
            feed([other.full(), other.view(seat), other.to_act(), other.events])
            feed([other.legal(s) for s in range(players)])
        if step % 13 == 6:
            twin = state.clone()
            for _ in range(side.randrange(1, 12)):
                if twin.is_over():
                    break
                twin.apply({s: side.choice(twin.legal(s)) for s in twin.to_act()})
                feed([twin.to_act(), [twin.view(s) for s in range(players)]])
            feed([twin.full(), twin.events[-5:]])
        joint = {seat: rng.choice(state.legal(seat)) for seat in acting}
        state.apply(joint)
        for view, packed in views:
            assert _packed(view) == packed, "a view handed out earlier changed"
        step += 1
    feed([state.to_act(), [state.legal(s) for s in range(players)]])
    feed([state.view(s) for s in range(players)])
    assert all(isinstance(state.legal(s), list) for s in range(players))
    feed([state.events, state.full(), state.outcome().to_dict()])
    return digest.digest()


def digest_of(game_name: str, players: int) -> str:
    """One hex digest over the traces of every seed."""
    total = hashlib.sha256()
    for seed in SEEDS:
        total.update(trace(game_name, players, seed))
    return total.hexdigest()


@pytest.mark.parametrize("game_name", ["skull", "skull-bank"])
@pytest.mark.parametrize("players", list(PLAYERS))
def test_golden_trace(game_name: str, players: int) -> None:
    assert digest_of(game_name, players) == EXPECTED[f"{game_name}/{players}"]


if __name__ == "__main__":
    for name in ("skull", "skull-bank"):
        for count in PLAYERS:
            print(f'    "{name}/{count}": "{digest_of(name, count)}",')
