"""The parallel run's dispatcher: every game once, rotations kept with the workers that hold
their processes, the run's play order within a worker's rotations."""

from __future__ import annotations

from arena.keys.seeds import new_key
from tournaments.dispatch import Dispatcher
from tournaments.schedule import TournamentSpec, plan, play_order

SPEC = TournamentSpec(game="skull", bots=("a", "b", "c", "d", "e"), table_size=4, repetitions=3)


def drain(dispatcher: Dispatcher, order: list[int]) -> dict[int, list]:
    taken: dict[int, list] = {w: [] for w in set(order)}
    for worker in order:
        item = dispatcher.next_for(worker)
        if item is not None:
            taken[worker].append(item)
    return taken


def test_every_game_is_handed_out_once() -> None:
    games = plan(SPEC, key=new_key())
    dispatcher = Dispatcher([(g.index, g) for g in games], 3)
    taken = drain(dispatcher, [0, 1, 2] * len(games))
    ids = sorted(i for items in taken.values() for i, _ in items)
    assert ids == [g.index for g in games]
    assert len(dispatcher) == 0 and dispatcher.next_for(0) is None


def test_workers_keep_to_their_share_of_rotations_while_it_lasts() -> None:
    games = plan(SPEC, key=new_key())  # 4 rotations, 2 workers: two rotations each
    dispatcher = Dispatcher([(g.index, g) for g in games], 2)
    taken = drain(dispatcher, [0, 1] * len(games))
    rotations = {w: {g.rotation for _, g in items} for w, items in taken.items()}
    assert rotations[0].isdisjoint(rotations[1])
    for items in taken.values():
        order = [play_order(g) for _, g in items]
        assert order == sorted(order), "play order within a worker"


def test_a_worker_whose_share_is_done_takes_other_games() -> None:
    games = plan(SPEC, key=new_key())
    dispatcher = Dispatcher([(g.index, g) for g in games], 2)
    taken = drain(dispatcher, [1] * len(games))  # worker 0 never asks
    assert len(taken[1]) == len(games)


def after_share(dispatcher: Dispatcher) -> tuple | None:
    """What worker 0 gets once its own rotations are played out (worker 1 holds the rest)."""
    assert dispatcher.next_for(1) is not None
    item = dispatcher.next_for(0)
    while item is not None and item[1].rotation in (0, 1):
        item = dispatcher.next_for(0)
    return item


def test_taking_over_another_rotation_only_when_its_games_pay_for_the_processes() -> None:
    games = plan(SPEC, key=new_key())  # 4 rotations, 2 workers: worker 0 has 0 and 1
    quick, slow = (Dispatcher([(g.index, g) for g in games], 2) for _ in range(2))
    quick.played(0.001)
    slow.played(5.0)
    assert after_share(quick) is None, "a few quick games do not pay for new processes"
    taken = after_share(slow)
    assert taken is not None and taken[1].rotation in (2, 3)
