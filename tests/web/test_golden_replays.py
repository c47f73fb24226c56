"""The golden replays still come out byte for byte (see ``golden_replays.py``): every game is
worded and drawn as it was. A mismatch names the first frame that differs."""

from __future__ import annotations

import pytest

from tests.games.playthrough import CASES, Case
from tests.games.test_playthroughs import first_difference
from tests.web.golden_replays import FOLDER, text


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.filename)
def test_golden_replay_unchanged(case: Case) -> None:
    golden = (FOLDER / case.filename).read_text(encoding="utf-8").splitlines()
    now = text(case).splitlines()
    if golden != now:
        pytest.fail(first_difference(golden, now, "frame"), pytrace=False)
