"""Replay frames of random games of every game: every step draws; a seat's scene never shows a
face that is not face up on the referee's table (another seat's hidden card); the two panes
agree on every public fact; every round's end is a frame of its own that shows how it ended;
moves read as words; the packed form gives back every frame. A game is drawn by the
presentation registered for it, and a game without one replays with plain tables."""

from __future__ import annotations

import random
import re
from dataclasses import replace

import pytest

from arena.games import get_game
from arena.games.registry import Registry
from arena.referee.record import GameRecord
from arena.web import games as presentations
from arena.web.frames import (
    ENDING,
    OVER,
    REFEREE,
    ReplayMismatch,
    build_replay,
    packed,
    perspective_frames,
)
from arena.web.games import Presentation
from arena.web.packing import unpack
from arena.web.scenes import scene
from tests.arena.toygame import install
from tests.web.golden_replays import played_record

GAMES = ["skull", "skull-bank", "skull-king", "skyjo"]


def random_record(game_name: str, players: int, seed: int) -> GameRecord:
    names = [f"<b>bot{i}</b>" for i in range(players)]
    return played_record(game_name, players, seed, None, random.Random(seed), names)


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


def disagreements(mine: dict, referee: dict) -> list[str]:
    """Public facts the two panes show differently: an info entry of the same name, who is
    to act, the banner, a seat's notes."""
    found = []
    theirs = dict(map(tuple, referee["info"]))
    for key, value in mine["info"]:
        if key in theirs and theirs[key] != value:
            found.append(f"{key}: {value} != {theirs[key]}")
    if [s["active"] for s in mine["seats"]] != [s["active"] for s in referee["seats"]]:
        found.append("to act")
    if mine["banner"] != referee["banner"]:
        found.append("banner")
    if [s["notes"] for s in mine["seats"]] != [s["notes"] for s in referee["seats"]]:
        found.append("notes")
    return found


@pytest.fixture(scope="module", params=[(g, p) for g in GAMES for p in (3, 5)], ids=str)
def replayed(request: pytest.FixtureRequest) -> tuple[GameRecord, object]:
    game, players = request.param
    record = random_record(game, players, seed=players * 7 + len(game))
    return record, build_replay(record, record.bots)


def test_seat_scenes_show_only_what_is_face_up_and_agree_with_the_referee(replayed) -> None:
    record, replay = replayed
    referee = perspective_frames(replay, REFEREE)
    steps = 1 + max(a.step for a in record.actions)
    assert referee["frames"][-1]["over"] and referee["frames"][-1]["step"] == steps
    assert [f["step"] for f in referee["frames"]] == sorted(f["step"] for f in referee["frames"])
    acted = [f for f in referee["frames"][1:] if f["actions"]]
    assert len(acted) == steps  # every step's actions are shown once
    for seat in range(record.players):
        seen = perspective_frames(replay, seat)
        assert len(seen["frames"]) == len(referee["frames"])
        for k, (mine, full) in enumerate(zip(seen["frames"], referee["frames"])):
            assert leaks(seat, mine["scene"], full["scene"]) == [], f"step {k}"
            assert disagreements(mine["scene"], full["scene"]) == [], f"step {k}"
            assert all(a[0] == seat for a in mine["actions"])
    last = referee["frames"][-1]["scene"]
    assert not any(s["active"] for s in last["seats"])  # nobody is to act once it is over
    assert last["banner"].startswith("game over")


def trick_of(scored: dict, events: list[dict]) -> dict:
    """The trick event just before a Skull King round's ``round`` event."""
    at = next(i for i, e in enumerate(events) if e is scored)
    return next(e for e in reversed(events[:at]) if e["type"] == "trick")


def items(scene: dict, seat: int, zone: str) -> list[dict]:
    box = next(s for s in scene["seats"] if s["seat"] == seat)
    return next(z for z in box["zones"] if z["label"] == zone)["items"]


def test_each_round_ends_in_a_frame_that_shows_how(replayed) -> None:
    record, replay = replayed
    events = list(record.events)
    endings = [f for f in replay.frames if f.kind == ENDING]
    game = record.game
    if game == "skull-king":
        rounds = [e for e in events if e["type"] == "round"]
    elif game == "skyjo":
        rounds = [e for e in events if e["type"] == "round-end"]
    else:
        rounds = [e for e in events if e["type"] in ("success", "failure")]
    assert len(endings) == len(rounds) >= 1
    assert len(replay.sheet.rows) == len(rounds)
    assert replay.sheet.frames == [f.index for f in endings]
    for frame, event in zip(endings, rounds):
        views = [replay.scenes[REFEREE][frame.index]] + [
            replay.scenes[str(s)][frame.index] for s in range(record.players)
        ]
        assert views[0]["banner"]
        if game in ("skull", "skull-bank") and event["type"] == "failure":
            for scene in views:  # the skull that ended the round, face up for everyone
                pile = items(scene, event["skull"], "pile")
                assert any(i["t"] == "skull" and "up" in i["c"].split() for i in pile)
        if game == "skull-king":
            for scene in views:  # the round's last trick, whole, and who took it
                trick = next(z for z in scene["center"] if z["label"].startswith("last trick"))
                winner = "nobody" if trick_of(event, events)["winner"] is None else "seat"
                assert len(trick["items"]) == record.players and winner in trick["label"]
            assert all(s["notes"][1] == f"won {w}" for s, w in zip(views[0]["seats"], event["won"]))
        if game == "skyjo":
            for seat, raw in enumerate(event["raw"]):
                for scene in views:
                    grid = items(scene, seat, "grid")
                    assert not [i for i in grid if {"back", "down"} & set(i["c"].split())]
                    assert sum(int(i["t"]) for i in grid if i["t"]) == raw
    assert replay.frames[-1].kind == OVER


def test_packed_replay_gives_back_every_frame(replayed) -> None:
    record, replay = replayed
    doc = packed(replay)
    assert len(doc["frames"]) == len(replay.frames)
    for key in replay.perspectives:
        for i, ref in enumerate(doc["views"][key]):
            scene, actions, faults, *details = unpack(doc["pool"], ref)
            full = replay.scenes[key][i]
            assert scene[1] == full["info"] and scene[2] == full["banner"]
            assert [s[4][0][3][0][0] if s[4][0][3] else None for s in scene[3]] == [
                s["zones"][0]["items"][0]["t"] if s["zones"][0]["items"] else None
                for s in full["seats"]
            ]
            assert actions == replay.actions[key][i] and faults == replay.faults[key][i]
            assert details == ([replay.details[i]] if key == REFEREE else [])


@pytest.mark.parametrize("game", GAMES)
def test_moves_read_as_words(game: str) -> None:
    record = random_record(game, 4, seed=3)
    for action in {a.action for a in record.actions}:
        words = get_game(game).action_words(action)
        assert words != action and not re.search(r"\d,\d|:|\b[GYPB]\d+\b|ESC|PIR", words), words


def test_a_game_that_does_not_replay_to_its_result_is_refused() -> None:
    record = random_record("skull", 3, seed=5)
    wrong = replace(record, game_places=tuple(reversed(record.game_places)))
    if wrong.game_places == record.game_places:
        wrong = replace(record, game_places=(9, 9, 9))
    with pytest.raises(ReplayMismatch):
        build_replay(wrong, wrong.bots)


def test_a_game_without_a_presentation_replays_with_plain_tables() -> None:
    install()
    record = random_record("toy", 3, seed=2)
    replay = build_replay(record, record.bots)
    assert len(replay.frames) == 1 + 1 + max(a.step for a in record.actions)
    assert {f.kind for f in replay.frames[1:-1]} == {"move"} and replay.frames[-1].kind == OVER
    assert all(s["seats"] == [] for s in replay.scenes[REFEREE])
    assert [a[3] for step in replay.actions[REFEREE] for a in step] == [
        a.action for a in record.actions
    ]
    assert replay.details == [[]] * len(replay.frames) and replay.sheet.columns == ()


def test_the_presentation_registered_for_a_game_draws_it(monkeypatch: pytest.MonkeyPatch) -> None:
    class ToyTable(Presentation):
        name = "toy"

        def full_scene(self, full: dict, names: object, acting: frozenset[int]) -> dict:
            return scene("toy", [("totals", full["totals"])], [], [])

    monkeypatch.setattr(presentations, "PRESENTATIONS", Registry(()))
    presentations.register(ToyTable())
    install()
    record = random_record("toy", 2, seed=4)
    replay = build_replay(record, record.bots)
    last = replay.scenes[REFEREE][-1]
    assert last["caption"] == "toy" and last["info"] == [["totals", str(list(record.scores))]]
    assert replay.scenes["0"][-1]["caption"] == "as seen by seat 0"  # the plain seat pane
