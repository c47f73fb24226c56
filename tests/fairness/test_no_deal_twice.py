"""No bot process ever plays the same deal twice: a memorising rogue in real tournaments.

Every seat rotation of a table is played on the same deal, so a process that played rotation 1
would know, in rotation 2, the hands it saw. The runner routes rotation r of every deal to an
entrant's r-th process; here three copies of a rogue that remembers everything it is sent
(``tests/rogues/memo.py``) play whole tournaments of every game, serially and in parallel, and
the deals each of their processes saw are checked from their logs and the stored plan. The
rogue serves 8 games at once, and the runs drive several games at once (``games_per_worker``).
"""

from __future__ import annotations

import sys
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from arena.games import get_game
from arena.keys.seeds import new_key
from arena.procs.botproc import BotSpec
from arena.procs.limits import Limits
from arena.procs.logs import bot_logs
from tournaments.catalogue import bundled_spec
from tournaments.playing import RunConfig
from tournaments.runner import run
from tournaments.schedule import TournamentSpec, plan
from tournaments.store import Store

ROGUE = Path(__file__).resolve().parent.parent / "rogues" / "memo.py"
ENTRANTS = ("memo", "memo", "memo", "random")


def play(folder: Path, game: str, jobs: int, at_once: int) -> tuple[Store, int, Path]:
    db, log_dir = folder / "arena.db", folder / "arena-logs"
    spec = TournamentSpec(game=game, bots=ENTRANTS, table_size=3, repetitions=1, seed=7)
    store, key = Store.open(db), new_key()
    tid = store.create_tournament(
        spec,
        plan(spec, get_game(game), key=key),
        {label: (bot, "test") for label, bot in spec.entrant_bots().items()},
        key=key,
    )
    memo = BotSpec(name="memo", argv=(sys.executable, str(ROGUE)))
    specs = {
        label: memo if bot == "memo" else bundled_spec(bot)
        for label, bot in spec.entrant_bots().items()
    }
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
    lines = [
        line.split()
        for path in bot_logs(log_dir, "memo")
        for line in path.read_text().splitlines()
        if line.startswith("memo ")
    ]
    by_process: dict[str, list[int]] = defaultdict(list)
    for _, process, game_id, _fingerprint in lines:
        by_process[process].append(deal_of[int(game_id)])
    assert sum(len(deals) for deals in by_process.values()) == 9 * 3, "every memo seat logged"
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
