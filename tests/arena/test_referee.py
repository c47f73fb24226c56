"""The referee over real ZeroMQ sockets with real bot processes, well-behaved and rogue."""

from __future__ import annotations

import time

import pytest

from arena.errors import BotStartError
from arena.procs.limits import Limits
from arena.procs.logs import log_texts
from arena.referee import driver
from arena.referee.game import GameSetup
from arena.referee.record import Chooser, FaultKind
from arena.referee.replay import replay
from arena.referee.seats import ProcessSeat
from tests.arena.conftest import bundled, rogue

FAST = Limits(move_ms=300, max_faults=3)


def play(hub, pool, toy, specs, *, seed=1, limits=FAST, rounds=3, game_id=1):
    procs = pool.get([(f"s{i}:{spec.name}", spec) for i, spec in enumerate(specs)])
    return driver.play(
        GameSetup(
            toy,
            [ProcessSeat(hub, proc) for proc in procs],
            seed=seed,
            options={"rounds": rounds},
            game_id=game_id,
            bot_seeds=[seed * 10 + i for i in range(len(specs))],
        ),
        limits,
    )


def kinds(record):
    return [fault.kind for fault in record.faults]


def test_two_sdk_bots_play_a_clean_game(hub, pool, toy):
    record = play(hub, pool, toy, [bundled("random"), bundled("random")])
    assert record.faults == () and record.forfeits == ()
    assert all(a.by is Chooser.BOT for a in record.actions)
    # 3 rounds x (2 sequential + 1 simultaneous step) = 9 steps, 12 decisions
    assert len(record.joint_actions()) == 9
    assert sum(record.decisions) == 12
    final = replay("toy", 2, record.seed, record.options, record.joint_actions())
    assert final.outcome().places == record.places


def test_seeded_bots_replay_bit_for_bit(hub, pool, toy):
    first = play(hub, pool, toy, [bundled("random"), bundled("random")], seed=9, game_id=1)
    second = play(hub, pool, toy, [bundled("random"), bundled("random")], seed=9, game_id=2)
    assert [a.action for a in first.actions] == [a.action for a in second.actions]


def test_one_process_serves_game_after_game(hub, pool, toy):
    for game_id in range(1, 4):
        play(hub, pool, toy, [bundled("random"), bundled("first")], game_id=game_id)
    assert pool.started == 2


def test_illegal_actions_are_faults_then_forfeit(hub, pool, toy):
    record = play(hub, pool, toy, [rogue("illegal"), bundled("first")])
    assert kinds(record)[:3] == [FaultKind.ILLEGAL] * 3
    assert len(record.faults) == 3, "no more turns are sent after the forfeit"
    assert record.forfeits == (0,)
    assert record.places[0] == 2 and record.places[1] == 1
    seat0 = [a for a in record.actions if a.seat == 0]
    assert all(a.by is Chooser.REFEREE and a.action == "n:0" for a in seat0)


def test_not_msgpack_is_a_malformed_fault(hub, pool, toy):
    record = play(hub, pool, toy, [bundled("first"), rogue("garbage")])
    assert set(kinds(record)) == {FaultKind.MALFORMED}
    assert record.forfeits == (1,)


@pytest.mark.parametrize("name", ["wrong_request", "wrong_game"])
def test_wrong_ids_are_faults(hub, pool, toy, name):
    record = play(hub, pool, toy, [rogue(name), bundled("first")])
    assert FaultKind.WRONG_ID in kinds(record)
    assert record.forfeits == (0,)


def test_a_hanging_bot_times_out_and_forfeits(hub, pool, toy):
    started = time.monotonic()
    record = play(
        hub, pool, toy, [rogue("hang"), bundled("first")], limits=Limits(move_ms=150, max_faults=2)
    )
    assert kinds(record) == [FaultKind.TIMEOUT, FaultKind.TIMEOUT]
    assert record.forfeits == (0,)
    assert time.monotonic() - started < 5


def test_late_reply_is_dropped_not_used_for_the_next_turn(hub, pool, toy, monkeypatch):
    # request 1 times out at 600 ms; the answer to it comes at 700 ms (late whatever the load),
    # while request 2 (sent at about 600 ms, due at about 1200 ms) is awaited, and the answer
    # to request 2 follows at once, half a second early
    monkeypatch.setenv("ARENA_BOT_DELAY_MS", "700")
    record = play(
        hub, pool, toy, [rogue("late"), bundled("first")], limits=Limits(move_ms=600, max_faults=3)
    )
    assert kinds(record) == [FaultKind.TIMEOUT]
    seat0 = [a for a in record.actions if a.seat == 0]
    assert seat0[0].by is Chooser.REFEREE
    # the late answer was legal[-1] == "n:2"; every later move is the bot's own "n:0"
    assert all(a.by is Chooser.BOT and a.action == "n:0" for a in seat0[1:])


def test_answering_twice_is_harmless(hub, pool, toy):
    record = play(hub, pool, toy, [rogue("twice"), bundled("first")])
    assert record.faults == ()
    assert all(a.action == "n:0" for a in record.actions if a.seat == 0)


def test_crash_is_a_fault_and_the_process_is_replaced(hub, pool, toy):
    record = play(hub, pool, toy, [rogue("crash_mid"), bundled("first")], game_id=1)
    assert kinds(record) == [FaultKind.CRASH]
    assert "exited with status 3" in record.faults[0].detail
    assert record.forfeits == (0,)
    again = play(hub, pool, toy, [rogue("crash_mid"), bundled("first")], game_id=2)
    assert pool.started == 3, "the crashed process was replaced for the next game"
    assert kinds(again) == [FaultKind.CRASH]


def test_simultaneous_steps_are_sent_to_all_seats_at_once(hub, pool, toy, monkeypatch):
    monkeypatch.setenv("ARENA_BOT_DELAY_MS", "300")
    record = play(
        hub, pool, toy, [rogue("sleepy"), rogue("sleepy")], rounds=1, limits=Limits(move_ms=5000)
    )
    assert record.faults == ()
    # two sequential steps and one simultaneous step: in the simultaneous one, each seat got
    # its turn before the other answered (sent together, not one after the other)
    pool.close()  # the bots' output is drained into their logs
    turns = [
        line.split()
        for path in pool.log_dir.rglob("*.log")
        for line in log_texts(path)
        if line.startswith("turn ")
    ]
    spans = [(float(got), float(answered)) for _, _, _, got, _, answered in turns]
    overlapping = [
        (a, b) for i, a in enumerate(spans) for b in spans[i + 1 :] if a[0] < b[1] and b[0] < a[1]
    ]
    assert len(spans) == 4 and len(overlapping) == 1


@pytest.mark.parametrize(
    "name, message",
    [
        ("exit_at_once", "stopped before saying hello"),
        ("no_hello", "did not say hello within"),
        ("wrong_protocol", "refused: bad-protocol: protocol 99 is not supported"),
    ],
)
def test_bots_that_do_not_start_give_a_clear_error(hub, tmp_path, name, message):
    from arena.procs.pool import BotPool

    with BotPool(hub, startup_ms=800, log_dir=tmp_path) as pool:
        with pytest.raises(BotStartError, match=message):
            pool.get([("x", rogue(name))])
        assert pool.procs == {}
