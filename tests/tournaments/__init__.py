"""Tests of the tournaments package, and synthetic game records shared with the benchmarks.

``old_database`` makes a results database as the arena wrote it before secret keys (schema
version 3, from ``data/schema_v3.sql``), with its CURVE key pair in the database.

``synthetic_record`` makes a realistic-looking GameRecord for a planned game without playing
it: a Skull-like game of about 40 actions, places drawn from the entrants' strengths plus
noise (with occasional ties), and an occasional fault.

``thinking_bot`` writes a bot that thinks a while before each move: its games last long enough
to be seen being played; ``slow_tournament`` registers it and creates a Skull tournament of it.
``cli`` runs the command line in process and asserts it succeeded.
"""

from __future__ import annotations

import json
import random
import signal
import sqlite3
import sys
import textwrap
from collections.abc import Mapping
from pathlib import Path

from click.testing import CliRunner

from arena.cli import main
from arena.games.base import places_from_keys
from arena.referee.record import ActionRecord, Chooser, Fault, FaultKind, GameRecord, final_places
from tournaments.plans.schedule import PlannedGame


def thinking_bot(folder: Path, think_s: float, *, pause_s: float = 0.0, every: int = 0) -> Path:
    """A bot (SDK, named "slow") in ``folder`` that thinks ``think_s`` seconds a move (and
    ``pause_s`` at the first move of its process and every ``every`` moves after, if given),
    then plays at random; ``folder`` must be one bot users can read (the ``shared`` fixture)."""
    script = folder / "thinking.py"
    script.write_text(
        textwrap.dedent(f"""
            import itertools, random, time
            from protocol.sdk import run_bot

            moves = itertools.count(1)

            def act(view, legal):
                pause = {every!r} and next(moves) % {every!r} == 1
                time.sleep({pause_s!r} if pause else {think_s!r})
                return random.choice(legal)

            if __name__ == "__main__":
                run_bot(act, name="slow")
        """)
    )
    script.chmod(0o644)
    return script


def cli(*args: str) -> str:
    """The output of ``arena ARGS`` run in process (it must succeed)."""
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def create(db: Path, bots: str, *options: str, game: str = "skull") -> tuple[int, int]:
    """``arena tournament create`` of ``game`` among ``bots`` in ``db``, with ``options``: the
    tournament's id and number of games."""
    asked = ("tournament", "create", "--game", game, "--bots", bots, *options)
    created = json.loads(cli(*asked, "--json", "--db", str(db)))
    return int(created["id"]), int(created["games_total"])


def game_rows(db: Path, tid: int, columns: str) -> list[tuple]:
    """``columns`` (SQL, comma-separated) of every game of tournament ``tid`` in ``db``, in
    plan order: what two runs of one plan are compared by."""
    conn = sqlite3.connect(db)
    rows = conn.execute(
        f"SELECT {columns} FROM games WHERE tournament_id = ? ORDER BY plan_index", (tid,)
    ).fetchall()
    conn.close()
    return rows


def slow_tournament(db: Path, bot: Path, *options: str, check_ms: int = 1000) -> tuple[int, int]:
    """A Skull tournament in ``db`` of ``bot`` (registered unsandboxed as "slow", a
    ``thinking_bot``, its entry check at ``check_ms`` a move), random and first, with
    ``options``; its id and number of games."""
    add = ("bot", "add", "slow", "--game", "skull", "--move-time", str(check_ms), "--db", str(db))
    cli(*add, "--sandbox", "off", "--", sys.executable, str(bot))
    return create(db, "slow,random,first", *options)


V3_DUMP = Path(__file__).resolve().parent / "data" / "schema_v3.sql"


def old_database(path: Path) -> tuple[str, str]:
    """Write the version-3 database at ``path``; return its CURVE key pair (public, secret).

    It has a remote bot ``far`` and tournament 1 (skull, three entrants, three games
    pending), planned without a key."""
    conn = sqlite3.connect(path)
    conn.executescript(V3_DUMP.read_text())
    public, secret = conn.execute("SELECT public, secret FROM arena_keys").fetchone()
    conn.close()
    return public, secret


ACTIONS = ("place:flower", "place:skull", "bid:2", "bid:3", "pass", "flip:1", "flip:2")


def synthetic_record(
    planned: PlannedGame,
    rng: random.Random,
    *,
    game: str = "skull",
    options: Mapping[str, object] | None = None,
    strengths: Mapping[str, float] | None = None,
    actions: int = 40,
    fault_rate: float = 0.02,
    bots: Mapping[str, str] | None = None,
) -> GameRecord:
    """A finished-game record for ``planned`` (labels are the bot names unless ``bots``)."""
    n = len(planned.seating)
    strengths = strengths or {}
    steps: list[ActionRecord] = []
    faults: list[Fault] = []
    think = [0] * n
    decisions = [0] * n
    for step in range(actions):
        seat = step % n
        by = Chooser.BOT
        if rng.random() < fault_rate:
            faults.append(
                Fault(seat=seat, step=step, kind=rng.choice(list(FaultKind)), detail="synthetic")
            )
            by = Chooser.REFEREE
        us = rng.randrange(20, 400)
        think[seat] += us
        decisions[seat] += 1
        steps.append(
            ActionRecord(step=step, seat=seat, action=rng.choice(ACTIONS), by=by, think_us=us)
        )
    # Integer keys so that equal strengths sometimes tie (ties share a place).
    keys = [-round(strengths.get(label, 0.0) + rng.gauss(0, 1.0)) for label in planned.seating]
    game_places = places_from_keys(keys)
    scores = tuple(float(n - p) for p in game_places)
    forfeits = tuple(sorted({f.seat for f in faults if sum(g.seat == f.seat for g in faults) >= 3}))
    return GameRecord(
        game=game,
        options=dict(options or {}),
        seed=planned.deal_seed,
        bots=tuple((bots or {}).get(label, label) for label in planned.seating),
        actions=tuple(steps),
        faults=tuple(faults),
        forfeits=forfeits,
        scores=scores,
        game_places=game_places,
        places=final_places(game_places, forfeits),
        think_us=tuple(think),
        decisions=tuple(decisions),
        wall_ms=round(rng.uniform(1.0, 30.0), 3),
    )


def ctrl_c_reaches_it() -> None:
    """(A ``preexec_fn``) Let Ctrl-C (SIGINT) reach the child as a terminal's would: a suite
    started in the background by a shell without job control runs with SIGINT ignored, and a
    child inherits that (Python then installs no handler for it)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
