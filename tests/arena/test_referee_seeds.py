"""The referee never sends a bot the deal seed, even when it is given no bot seeds."""

from __future__ import annotations

import json
import re
from pathlib import Path

from arena.procs.limits import Limits
from arena.procs.logs import bot_logs, log_texts
from arena.referee import driver
from arena.referee.game import GameSetup
from arena.referee.seats import ProcessSeat
from tests.arena.conftest import bundled, rogue


def test_without_bot_seeds_a_bot_gets_a_random_seed_not_the_deal(
    hub, pool, toy, tmp_path: Path
) -> None:
    deal = 123_456_789_012
    procs = pool.get([("spy", rogue("spy")), ("other", bundled("first"))])
    for game_id in (1, 2):
        driver.play(
            GameSetup(
                toy,
                [ProcessSeat(hub, proc) for proc in procs],
                seed=deal,
                game_id=game_id,
                options={"rounds": 1},
            ),
            Limits(move_ms=2000),
        )
    pool.close()
    text = "\n".join(line for p in bot_logs(tmp_path / "logs", "spy") for line in log_texts(p))
    starts = [json.loads(m) for m in re.findall(r"^spy-msg: (.*)$", text, re.M) if '"start"' in m]
    assert len(starts) == 2 and str(deal) not in text
    assert starts[0]["seed"] != starts[1]["seed"]
