"""Nothing a phase leaves in the page cache carries a deal to the next: a real sandboxed
tournament with a rogue that tries (``tests/rogues/pagecarry.py``).

The processes of an entrant that play the rotations of a deal are never alive together
(``tournaments.phases``), but which pages of a file are cached outlives them all. The rogue
writes, at each game's end, what every seat held in each round into the page cache of big
files it may read (one page read is one bit set), and reads it back at each bidding of a later
phase without bringing a page in (fault-around and ``/proc/self/pagemap``), finding its deal by
its own hand. Where it can read an uncached page of a file it sees, it names every opponent
card it saw; the sandbox shows a bot only memory-backed files (``arena.procs.memview``), where
no page is ever uncached, so it can name no more than a bot knowing only its own hand
(``pooling.Evidence``). So in a ladder's batch, the rogue uploaded by a participant.
"""

from __future__ import annotations

import sys
import uuid
from pathlib import Path

import pytest

from arena.errors import SandboxError
from arena.games import get_game
from arena.procs import sandbox as sandboxing
from arena.procs.botproc import BotSpec
from arena.procs.limits import Limits
from arena.procs.logs import bot_logs, log_texts
from arena.procs.sandbox import SandboxMode
from tests.fairness import pooling, with_rogue
from tests.fairness.test_pooling import audit
from tests.ladder.test_uploads import tgz
from tournaments.catalogue.bot_sandbox import sandbox_for
from tournaments.ladder import service as ladder_service
from tournaments.plans.schedule import TournamentSpec
from tournaments.run.playing import RunConfig, auto_games_per_worker
from tournaments.run.runner import run
from tournaments.service import RunOptions
from tournaments.store.facts import Store
from tournaments.store.ladder_values import LadderDeals, LadderSettings

ROGUE = Path(__file__).resolve().parent.parent / "rogues" / "pagecarry.py"
NAME = "pagecarry"
GAME = "skull-king"
MOVE_MS = 2000
REPETITIONS = 3


def files_seen(log_dir: Path) -> list[int]:
    """The windows (64 KiB) of big files each of the rogue's processes could write on."""
    return [
        int(line.split()[2])
        for path in bot_logs(log_dir, NAME)
        for line in log_texts(path)
        if line.startswith("carry-files")
    ]


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_page_cache_carries_no_deal_from_one_phase_to_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int
) -> None:
    monkeypatch.setenv("ARENA_BOT_POOL_TAG", uuid.uuid4().hex)
    db = tmp_path / "arena.db"
    try:
        sandbox = sandbox_for(SandboxMode.REQUIRED, db)
    except SandboxError as exc:
        pytest.skip(str(exc))
    spec = TournamentSpec(
        game=GAME, bots=(NAME, "random", "first"), table_size=3, repetitions=REPETITIONS, seed=7
    )
    rogue = BotSpec(name=NAME, argv=(sys.executable, str(ROGUE)))
    store, tid, specs = with_rogue(db, spec, rogue)
    config = RunConfig(
        game=get_game(GAME),
        options=get_game(GAME).parse_options({}),
        bots=specs,
        limits=Limits(move_ms=MOVE_MS),
        at_once=auto_games_per_worker(MOVE_MS),
        sandbox=sandbox,
        log_dir=tmp_path / "arena-logs",
    )
    summary = run(store, tid, config, jobs=jobs)
    assert summary.failed == () and summary.done == 3 * REPETITIONS
    assert summary.phases == 3, "one batch of deals, rotation by rotation"
    seen = files_seen(tmp_path / "arena-logs")
    assert len(seen) >= summary.phases and all(seen), f"files to write on in every phase: {seen}"
    with store:
        evidence = pooling.evidence(store, tid, tmp_path / "arena-logs", name=NAME)
        assert evidence.biddings == 3 * REPETITIONS * 10, "it bid in every round of its games"
        print(f"page cache, tournament, --jobs {jobs}: {evidence}")
        assert evidence.z < pooling.BOUND, f"a deal went through the page cache: {evidence}"
        audit(store, tid)


@pytest.mark.skipif(sandboxing.available() is None, reason="uploaded bots run only in bubblewrap")
@pytest.mark.parametrize("jobs", [1, 2])
def test_a_ladder_batch_gives_the_uploaded_page_cache_rogue_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int
) -> None:
    """A participant uploads the rogue to a ladder (unpacked and checked as the upload server
    does: ``ladder.service.upload``) whose organiser chose duplicate deals (with uploads, a
    ladder deals independently by default: then there is nothing to carry); a batch of its
    games, sandboxed as uploaded code always is, carries no deal from one phase to the next."""
    monkeypatch.setenv("ARENA_BOT_POOL_TAG", uuid.uuid4().hex)
    folder = tmp_path / "upload" / NAME
    folder.mkdir(parents=True)
    for name in ("pagecarry.py", "pooler.py", "_wire.py"):
        (folder / name).write_bytes((ROGUE.parent / name).read_bytes())
    (folder / "bot.toml").write_text(
        f'name = "{NAME}"\ncommand = "{sys.executable} pagecarry.py"\ngames = ["{GAME}"]\n'
    )
    db = tmp_path / "data" / "arena.db"
    db.parent.mkdir()
    with Store.open(db) as store:
        ladder_service.create_ladder(
            store, name="skk", game_name=GAME, table_sizes="3", options={}, move_ms=MOVE_MS,
            settings=LadderSettings(batch_games=18, deals=LadderDeals.DUPLICATE),
        )  # fmt: skip
        ladder_service.upload(store, "skk", "mallory", tgz(folder))
        for bot in ("random", "first"):
            ladder_service.submit(store, "skk", bot, sandbox=SandboxMode.REQUIRED)
        ladder_service.run_ladder(
            store, "skk", RunOptions(sandbox=SandboxMode.REQUIRED), jobs=jobs, until_games=18
        )
        (tid,) = [t for (t,) in store.db.execute("SELECT tournament_id FROM ladder_batches")]
        logs = db.parent / "arena-logs"
        seen = files_seen(logs)
        assert seen and all(seen), f"files to write on in every process: {seen}"
        evidence = pooling.evidence(store, tid, logs, name=NAME)
        assert evidence.biddings == 18 * 10, "the rogue bid in every round of its games"
        print(f"page cache, ladder batch, --jobs {jobs}: {evidence}")
        assert evidence.z < pooling.BOUND, f"a deal went through the page cache: {evidence}"
        audit(store, tid)
