"""Readable golden playthroughs of the bundled games (in the style of OpenSpiel's playthroughs).

A playthrough is one seeded game written out as text: a header (game, players, seed, options);
then for every step its number, the seats to act, every seat's view (canonical JSON, sorted
keys, one line) and legal list, the joint action (chosen by a ``random.Random`` seeded from the
playthrough's seed, independent of the game's own generator) and the events the step appended;
at the end ``full()`` and ``outcome()``. At every ``PROBE_EVERY``-th step it also records the
typed error and message of one illegal action and of one joint action for the wrong seats
(and checks that neither changed the state).

The files under ``tests/games/playthroughs/`` were written from the engines as they were and
must stay byte-identical: ``test_playthroughs.py`` regenerates each and compares, so a failure
shows the step where a game changed. Regenerate them only for a deliberate rules change, with
``python -m tests.games.playthrough --write``.
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.games import State, get_game

FOLDER = Path(__file__).with_name("playthroughs")
PROBE_EVERY = 7


@dataclass(frozen=True)
class Case:
    """One golden playthrough: a game, a player count, a seed and non-default options."""

    game: str
    players: int
    seed: int
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def filename(self) -> str:
        extras = "".join(f"-{k}={v}" for k, v in sorted(self.options.items()))
        return f"{self.game}-{self.players}p-seed{self.seed}{extras}.txt"


#: Seeds picked for short games, to keep the files together under 3 MB.
CASES = (
    Case("skull", 3, 1),
    Case("skull", 4, 3),
    Case("skull", 5, 11),
    Case("skull-bank", 3, 2),
    Case("skull-bank", 4, 3),
    Case("skull-bank", 5, 10),
    Case("skull-king", 2, 1),
    Case("skull-king", 2, 3, {"advanced": True, "scoring": "rascal"}),
    Case("skull-king", 3, 4, {"advanced": True}),
    Case("skull-king", 4, 2, {"scoring": "rascal"}),
    Case("skyjo", 2, 1),
    Case("skyjo", 3, 1, {"doubling": "manual", "discard_flip": "optional"}),
    Case("skyjo", 4, 6, {"columns": False, "next_starter": "ender"}),
)


def canonical(value: Any) -> str:
    """One line of JSON with sorted keys (tuples written as lists)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _snapshot(state: State) -> tuple[str, int, int]:
    return canonical(state.full()), len(state.events), state.steps


def _probe(state: State, joint: dict[int, str], seen: set[str], lines: list[str]) -> None:
    """Record the errors of an illegal action and of a wrong seat; the state must not move.

    The illegal action is one that was legal earlier in the game (a well-formed action out of
    place) when there is one, else a malformed string."""
    before = _snapshot(state)
    acting = state.to_act()
    stale = sorted(seen - set(state.legal(acting[0])))
    illegal = dict(joint)
    illegal[acting[0]] = stale[len(stale) // 2] if stale else "no-such-action"
    idle = [seat for seat in range(state.players) if seat not in acting]
    wrong = dict(joint)
    if idle:
        wrong[idle[0]] = joint[acting[0]]
    else:
        del wrong[acting[0]]
    for label, attempt in (("illegal", illegal), ("wrong seat", wrong)):
        try:
            state.apply(attempt)
        except ArenaError as exc:
            lines.append(f"  {label} {canonical(attempt)}: {type(exc).__name__}: {exc}")
        else:
            raise AssertionError(f"{label} joint action {attempt} was accepted")
        assert _snapshot(state) == before, f"a rejected {label} action changed the state"


def render(case: Case) -> Iterator[str]:
    """The lines of one playthrough (without line ends)."""
    game = get_game(case.game)
    state = game.new(case.players, case.seed, case.options)
    chooser = random.Random(case.seed * 7919 + case.players)
    yield f"game: {case.game}"
    yield f"players: {case.players}"
    yield f"seed: {case.seed}"
    yield f"options: {canonical(state.options)}"
    yield "initial events:"
    for event in state.events:
        yield f"  event {canonical(event)}"
    seen: set[str] = set()
    step = 0
    while not state.is_over():
        acting = state.to_act()
        yield ""
        yield f"step {step}"
        yield f"  to_act {canonical(list(acting))}"
        for seat in range(case.players):
            yield f"  view {seat} {canonical(state.view(seat))}"
            yield f"  legal {seat} {canonical(state.legal(seat))}"
            seen.update(state.legal(seat))
        joint = {seat: chooser.choice(state.legal(seat)) for seat in acting}
        if step % PROBE_EVERY == 0:
            lines: list[str] = []
            _probe(state, joint, seen, lines)
            yield from lines
        before = len(state.events)
        state.apply(joint)
        yield f"  actions {canonical({str(seat): joint[seat] for seat in acting})}"
        for event in state.events[before:]:
            yield f"  event {canonical(event)}"
        step += 1
    yield ""
    yield f"steps: {step}"
    yield f"full: {canonical(state.full())}"
    yield f"outcome: {canonical(state.outcome().to_dict())}"


def text(case: Case) -> str:
    """The whole playthrough file of ``case``."""
    return "\n".join(render(case)) + "\n"


def write_or_compare(
    folder: Path, text_of: Callable[[Case], str], description: str, why: str
) -> None:
    """The command line of a folder of golden files, one per case: say of each whether it
    comes out the same; with ``--write``, rewrite them (only for ``why``)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument(
        "--write", action="store_true", help=f"rewrite the golden files (only for {why})"
    )
    args = parser.parse_args()
    folder.mkdir(exist_ok=True)
    for case in CASES:
        body = text_of(case)
        path = folder / case.filename
        if args.write:
            path.write_text(body, encoding="utf-8")
        same = path.exists() and path.read_text(encoding="utf-8") == body
        print(f"{case.filename}: {len(body)} bytes, {'same' if same else 'DIFFERENT'}")


def main() -> None:
    write_or_compare(FOLDER, text, __doc__.splitlines()[0], "a deliberate rules change")


if __name__ == "__main__":
    main()
