"""Replay scenes of random games of every game: every step draws, and a seat's scene never
shows a face that is not face up on the referee's table (another seat's hidden card)."""

from __future__ import annotations

import random

import pytest

from arena.games import get_game
from arena.referee.record import ActionRecord, GameRecord
from arena.web.frames import REFEREE, frames


def random_record(game_name: str, players: int, seed: int) -> GameRecord:
    game = get_game(game_name)
    options = game.parse_options(None)
    state, rng, actions, step = game.new(players, seed, options), random.Random(seed), [], 0
    while not state.is_over():
        joint = {seat: rng.choice(state.legal(seat)) for seat in state.to_act()}
        actions += [ActionRecord(step, seat, action) for seat, action in joint.items()]
        state.apply(joint)
        step += 1
    outcome = state.outcome()
    return GameRecord(
        game=game_name,
        options=options,
        seed=seed,
        bots=tuple(f"<b>bot{i}</b>" for i in range(players)),
        actions=tuple(actions),
        faults=(),
        forfeits=(),
        scores=tuple(outcome.scores),
        game_places=tuple(outcome.places),
        places=tuple(outcome.places),
        think_us=(0,) * players,
        decisions=(0,) * players,
        wall_ms=0.0,
    )


def leaks(seat: int, mine: dict, referee: dict) -> list[str]:
    found = []
    for box, twin in zip(mine["seats"], referee["seats"]):
        if box["seat"] == seat:
            continue
        for z, (zone, twin_zone) in enumerate(zip(box["zones"], twin["zones"])):
            for k, item in enumerate(zone["items"]):
                if "back" in item["c"].split() or not item["t"]:
                    continue
                other = twin_zone["items"][k] if k < len(twin_zone["items"]) else None
                if other is None or "up" not in other["c"].split() or other["t"] != item["t"]:
                    found.append(f"seat {box['seat']} zone {z} item {k}: {item['t']}")
    return found


@pytest.mark.parametrize("game", ["skull", "skull-bank", "skull-king", "skyjo"])
@pytest.mark.parametrize("players", [3, 5])
def test_seat_scenes_show_only_what_is_face_up(game: str, players: int) -> None:
    record = random_record(game, players, seed=players * 7 + len(game))
    referee = frames(record, REFEREE, record.bots)
    steps = 1 + max(a.step for a in record.actions)
    assert len(referee["frames"]) == steps + 1 and referee["frames"][-1]["over"]
    assert all(len(f["actions"]) >= 1 for f in referee["frames"][1:])
    for seat in range(players):
        seen = frames(record, seat, record.bots)
        assert len(seen["frames"]) == steps + 1
        for k, (mine, full) in enumerate(zip(seen["frames"], referee["frames"])):
            assert leaks(seat, mine["scene"], full["scene"]) == [], f"step {k}"
            assert all(a[0] == seat for a in mine["actions"])
