"""No bot process ever plays the same deal twice: a memorising rogue in real tournaments.

Every seat rotation of a table is played on the same deal, so a process that played rotation 1
would know, in rotation 2, the hands it saw. The runner plays a deal's rotations in different
phases, ending every process between them; here three copies of a rogue that remembers
everything it is sent (``tests/rogues/memo.py``) play whole tournaments of every game, serially
and in parallel, and the deals each of their processes saw are checked from their logs and the
stored plan (a bot knows its game by an opaque id: the deal is found from its start seed with
the tournament's key); the arena's own process records pass their audit too. The rogue serves
8 games at once, and the runs drive several games at once (``games_per_worker``).
"""

from __future__ import annotations

import sys
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from arena.games import get_game
from arena.keys.seeds import bot_seeds
from arena.procs.botproc import BotSpec
from arena.procs.limits import Limits
from arena.procs.logs import bot_logs, log_texts
from tests.fairness import with_rogue
from tournaments.plans.schedule import TournamentSpec
from tournaments.run.playing import RunConfig
from tournaments.run.runner import run
from tournaments.store.facts import Store

ROGUE = Path(__file__).resolve().parent.parent / "rogues" / "memo.py"
ENTRANTS = ("memo", "memo", "memo", "random")


def play(folder: Path, game: str, jobs: int, at_once: int) -> tuple[Store, int, Path]:
    db, log_dir = folder / "arena.db", folder / "arena-logs"
    spec = TournamentSpec(game=game, bots=ENTRANTS, table_size=3, repetitions=1, seed=7)
    store, tid, specs = with_rogue(
        db, spec, BotSpec(name="memo", argv=(sys.executable, str(ROGUE)))
    )
    config = RunConfig(
        game=get_game(game),
        options=spec.options,
        bots=specs,
        limits=Limits(move_ms=spec.move_ms),
        at_once=at_once,
        log_dir=log_dir,
    )
    summary = run(store, tid, config, jobs=jobs)
    assert summary.failed == ()
    return store, tid, log_dir


@pytest.mark.parametrize(("jobs", "at_once"), [(1, 1), (1, 8), (2, 4)])
@pytest.mark.parametrize("game", ["skull", "skull-bank", "skull-king", "skyjo"])
def test_no_process_sees_a_deal_twice(tmp_path: Path, game: str, jobs: int, at_once: int) -> None:
    store, tid, log_dir = play(tmp_path, game, jobs, at_once)
    with store:
        info = store.tournament(tid)
        assert info.games_done == info.games_total == 12
        deal_of, seating_of = {}, {}
        for (game_id,) in store.db.execute("SELECT id FROM games WHERE tournament_id = ?", (tid,)):
            stored = store.game(game_id)
            deal_of[game_id] = stored.planned.deal_seed
            seating_of[game_id] = stored.planned.seating
            assert stored.record.faults == (), "every bot plays legally"
        key = store.tournament_key(tid)
    by_seed = {}  # (bot seed, seat) -> deal: a bot knows its game by an opaque id only
    for deal in set(deal_of.values()):
        for seat, seed in enumerate(bot_seeds(key, deal, 3)):
            by_seed[seed, seat] = deal
    lines = [
        line.split()
        for path in bot_logs(log_dir, "memo")
        for line in log_texts(path)
        if line.startswith("memo ")
    ]
    by_process: dict[str, list[int]] = defaultdict(list)
    for _, process, seed, seat, game_id in lines:
        by_process[process].append(by_seed[int(seed), int(seat)])
        assert int(game_id) not in deal_of, "the game id a bot gets is not the arena's"
    assert sum(len(deals) for deals in by_process.values()) == 9 * 3, "every memo seat logged"
    assert len({line[4] for line in lines}) == len(lines), "a game id is never given twice"
    for process, deals in by_process.items():
        repeated = [deal for deal, n in Counter(deals).items() if n > 1]
        assert not repeated, f"process {process} was given deal(s) {repeated} twice"
    # the check can fail: each memo entrant does play every deal of its tables three times
    plays = Counter(
        (label, deal_of[g])
        for g, seating in seating_of.items()
        for label in seating
        if label.startswith("memo")
    )
    assert max(plays.values()) == 3
    with Store.open(store.path) as again:
        assert again.processes.shared_deal_overlaps(tid) == []
