"""Many games at once through each bot process (issue 15): real processes, one hub.

Several games share processes through one referee driver; a bot serving several games may
answer in any order, and whatever else it does (swap game ids, answer requests never sent,
flood) is a fault of its own seats only: the other bots' games, and their deadlines, are
untouched. A bot that declares a huge ``max_games`` is capped.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.games import get_game
from arena.procs.botproc import BotSpec
from arena.procs.hub import MAX_GAMES_PER_PROCESS
from arena.procs.limits import Limits
from arena.procs.logs import bot_logs, log_texts
from arena.referee import driver
from arena.referee.game import GameSetup
from arena.referee.record import FaultKind, Played
from arena.referee.session import Session
from tests.arena.conftest import ROGUES, bundled

LIMITS = Limits(move_ms=3000, startup_ms=10_000)
OTHERS = [("r1", bundled("random")), ("r2", bundled("random")), ("r3", bundled("random"))]


def many(mode: str) -> BotSpec:
    return BotSpec(name="many", argv=(sys.executable, str(ROGUES / "many.py"), mode))


def tables(session: Session, entries: list, count: int, game: str = "skull") -> Iterator[GameSetup]:
    rules = get_game(game)
    for i in range(count):
        seats = session.seats(entries)
        yield GameSetup(
            rules,
            seats,
            seed=500 + i,
            game_id=i + 1,
            bot_seeds=[7 * i + s for s in range(len(entries))],
        )


def play(tmp_path: Path, entries: list, count: int, at_once: int) -> list[Played]:
    with Session(LIMITS, log_dir=tmp_path) as session:
        return list(driver.play_many(tables(session, entries, count), at_once, LIMITS))


def log_lines(tmp_path: Path, word: str) -> list[int]:
    return [
        int(line.split()[1])
        for path in bot_logs(tmp_path, "many")
        for line in log_texts(path)
        if line.startswith(word + " ")
    ]


def test_sdk_bots_play_the_same_games_at_once_as_one_by_one(tmp_path: Path) -> None:
    entries = [("a", bundled("random")), ("b", bundled("first")), *OTHERS[:2]]
    alone = play(tmp_path / "1", entries, 12, 1)
    together = play(tmp_path / "8", entries, 12, 8)
    assert [p.error for p in alone + together] == [None] * 24
    by_id = {p.game_id: p.record for p in together}
    for p in alone:
        assert by_id[p.game_id].joint_actions() == p.record.joint_actions()
        assert by_id[p.game_id].places == p.record.places
        assert p.record.faults == ()


def test_answers_in_any_order_are_fine_and_many_turns_travel_together(tmp_path: Path) -> None:
    played = play(tmp_path, [("x", many("reverse")), *OTHERS], 8, 4)
    assert [p.error for p in played] == [None] * 8
    assert all(p.record.faults == () for p in played)
    assert max(log_lines(tmp_path, "batch")) >= 2, "turns of several games were pending at once"


@pytest.mark.parametrize(
    ("mode", "kinds"),
    [
        ("swap", {FaultKind.WRONG_ID}),
        ("never", {FaultKind.WRONG_ID}),
        ("flood", {FaultKind.WRONG_ID, FaultKind.MALFORMED}),
    ],
)
def test_a_bot_mixing_up_its_games_faults_its_own_seats_only(
    tmp_path: Path, mode: str, kinds: set[FaultKind]
) -> None:
    played = play(tmp_path, [("x", many(mode)), *OTHERS], 8, 4)
    assert [p.error for p in played] == [None] * 8
    faults = [f for p in played for f in p.record.faults]
    assert faults, "the rogue's misbehaviour was noticed"
    assert {f.seat for f in faults} == {0}, "only the rogue's seats are charged"
    assert {f.kind for f in faults} <= kinds
    for p in played:  # the others played every move themselves, in time
        assert all(a.by.value == "bot" for a in p.record.actions if a.seat != 0)


def test_a_huge_max_games_is_capped(tmp_path: Path, toy) -> None:
    entries = [("h1", many("huge")), ("h2", many("huge"))]
    count = MAX_GAMES_PER_PROCESS + 6
    with Session(LIMITS, log_dir=tmp_path) as session:
        session.pool.prestart(entries)
        session.seats(entries, strict=True)
        assert session.hub.by_label["h1"].max_games == MAX_GAMES_PER_PROCESS
        mine = (
            GameSetup(toy, session.seats(entries), seed=i, options={"rounds": 1}, game_id=i + 1)
            for i in range(count)
        )
        played = list(driver.play_many(mine, count, LIMITS))
    refused = [p for p in played if p.error is not None]
    assert len(refused) == count - MAX_GAMES_PER_PROCESS
    assert all("no free game slot" in p.error for p in refused)
    assert max(log_lines(tmp_path, "open")) == MAX_GAMES_PER_PROCESS


def test_a_bot_dying_with_several_games_open_faults_each_of_its_games_once(
    tmp_path: Path,
) -> None:
    """A process that dies with turns of several games pending: each of its games records one
    crash of its own seat (at the turn, or at the start for a game started as it died), the
    others play on, and nothing hangs or is lost; the next games get a fresh process."""
    played = play(tmp_path, [("x", many("crash")), *OTHERS], 12, 4)
    assert sorted(p.game_id for p in played) == list(range(1, 13))
    assert [p.error for p in played] == [None] * 12
    for p in played:
        assert [(f.seat, f.kind) for f in p.record.faults] == [(0, FaultKind.CRASH)]
        assert p.record.forfeits == (0,)
        assert all(a.by.value == "bot" for a in p.record.actions if a.seat != 0)
    assert max(log_lines(tmp_path, "crash")) >= 2, "it died with several games' turns pending"


def test_a_finished_game_is_freed_without_the_cycle_collector(tmp_path: Path) -> None:
    """A game's objects (its state, players, records, routes) hold no reference cycle: they
    go when the game is done, not at the next full collection, whose cost grows with
    everything the games left (a route back to its game from each of its players made every
    game a cycle)."""
    import gc
    import weakref

    from arena.referee.game import GamePlay

    entries = [("r0", bundled("random")), *OTHERS]
    games: list[weakref.ref[GamePlay]] = []
    with Session(LIMITS, log_dir=tmp_path) as session:
        runner = driver.Driver()
        setups = tables(session, entries, 4)
        gc.collect()
        gc.disable()
        try:
            for setup in setups:
                play = GamePlay(LIMITS, setup)
                games.append(weakref.ref(play))
                runner.add(play)
                del play
            done = [played for played in runner.run(lambda: None)]
            assert [played.error for played in done] == [None] * 4
            del runner, done
            assert [game() for game in games] == [None] * 4
        finally:
            gc.enable()
