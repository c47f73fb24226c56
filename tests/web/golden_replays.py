"""Readable golden replays: the games of the golden playthroughs as the replay viewer and the
command line word and draw them.

A golden replay is one golden playthrough's game (``tests.games.playthrough``: the same seed,
options and actions) written out frame by frame as ``arena.web.frames`` builds it: each frame's
kind and label, its end-of-round or end-of-game banner, the actions in words, the referee's
details, a digest of the scenes of every perspective, and the log lines (``format_event``) of
the events of the step that led to it; then the score sheet and a digest of the packed viewer
data. It pins every word a game shows and every table it draws, so a change of structure can be
checked to draw and word each game exactly as before.

The files under ``tests/web/golden/`` must stay byte-identical (``test_golden_replays.py``).
Regenerate them only for a deliberate change of a game's words or tables, with
``python -m tests.web.golden_replays --write``.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from arena.games import get_game
from arena.referee.record import ActionRecord, GameRecord
from arena.referee.replay import step_events
from arena.web.frames import build_replay, packed
from tests.games.playthrough import Case, canonical, write_or_compare

FOLDER = Path(__file__).with_name("golden")
NAMES = tuple(f"bot{i}" for i in range(8))


def played_record(
    game_name: str,
    players: int,
    seed: int,
    options: Mapping[str, Any] | None,
    chooser: random.Random,
    names: Sequence[str],
) -> GameRecord:
    """A game of ``game_name`` dealt from ``seed``, each action drawn by ``chooser`` from the
    legal ones, as the record of a game between bots called ``names``."""
    game = get_game(game_name)
    parsed = game.parse_options(options)
    state = game.new(players, seed, parsed)
    actions: list[ActionRecord] = []
    while not state.is_over():
        joint = {seat: chooser.choice(state.legal(seat)) for seat in state.to_act()}
        actions += [ActionRecord(state.steps, seat, action) for seat, action in joint.items()]
        state.apply(joint)
    outcome = state.outcome()
    return GameRecord(
        game=game_name,
        options=parsed,
        seed=seed,
        bots=tuple(names[:players]),
        actions=tuple(actions),
        faults=(),
        forfeits=(),
        scores=tuple(outcome.scores),
        game_places=tuple(outcome.places),
        places=tuple(outcome.places),
        think_us=(0,) * players,
        decisions=(0,) * players,
        wall_ms=0.0,
        events=tuple(state.events),
    )


def playthrough_record(case: Case) -> GameRecord:
    """The game of ``case``'s golden playthrough (its actions chosen as there), as a record."""
    chooser = random.Random(case.seed * 7919 + case.players)
    return played_record(case.game, case.players, case.seed, case.options, chooser, NAMES)


def digest(value: object) -> str:
    return hashlib.sha256(canonical(value).encode()).hexdigest()[:16]


def render(case: Case) -> Iterator[str]:
    """The lines of one golden replay (without line ends)."""
    record = playthrough_record(case)
    game = get_game(case.game)
    replay = build_replay(record, record.bots)
    deal, steps = step_events(
        record.game, record.players, record.seed, record.options, record.joint_actions()
    )
    yield f"game: {case.game}"
    yield f"players: {case.players}"
    yield f"seed: {case.seed}"
    yield f"options: {canonical(record.options)}"
    logged = set()
    for frame in replay.frames:
        yield f"frame {frame.index} (step {frame.step}) {frame.kind}: {frame.label}"
        if frame.step == 0:
            events = deal
        elif frame.step not in logged:
            logged.add(frame.step)
            events = steps[frame.step - 1]
        else:
            events = []
        for event in events:
            yield f"  log {game.format_event(event)}"
        for seat, action, by, words in replay.actions["referee"][frame.index]:
            yield f"  seat {seat} {action} ({by}): {words}"
        for detail in replay.details[frame.index]:
            yield f"  detail {detail}"
        banner = replay.scenes["referee"][frame.index]["banner"]
        if banner is not None:
            yield f"  banner {banner}"
        yield f"  scenes {digest([replay.scenes[p][frame.index] for p in replay.perspectives])}"
    yield "score sheet:"
    yield f"  {' | '.join(replay.sheet.columns)}"
    for row, at in zip(replay.sheet.rows, replay.sheet.frames):
        yield f"  {' | '.join(row)} (frame {at})"
    yield f"packed: {digest(packed(replay))}"


def text(case: Case) -> str:
    """The whole golden replay file of ``case``."""
    return "\n".join(render(case)) + "\n"


def main() -> None:
    write_or_compare(
        FOLDER, text, __doc__.splitlines()[0], "a deliberate change of a game's words or tables"
    )


if __name__ == "__main__":
    main()
