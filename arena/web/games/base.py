"""What the replay viewer asks of a game: a ``Presentation`` draws its states as scenes, labels
a frame, rebuilds the table at the end of a round and writes the score sheet.

The end of a round is a step of its own in a replay. An engine scores a round, takes the discs
back or deals again inside the very step that ends the round: the state after that step no
longer shows how the round ended (Skull's skull face up, Skyjo's last cards turned, Skull
King's last trick and its points). ``Presentation.round_end`` rebuilds the table *at* the end
of the round from the state before the step and the step's events: the referee's ``full()``
and each seat's ``view`` with the round's public ending applied (the discs turned over, the
cards played and turned, the points). A seat's view only gains what every seat sees at the end
of a round, so seat scenes built from it stay within what the seat knew.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from arena.web.scenes import Scene, scene

__all__ = ["Data", "Ending", "Presentation", "ScoreSheet", "seat_columns"]

Data = dict[str, Any]


@dataclass(frozen=True)
class Ending:
    """The table at the end of a round: the referee's data, each seat's, and what happened."""

    full: Data
    views: dict[int, Data]
    banner: str


@dataclass(frozen=True)
class ScoreSheet:
    """A game's score sheet: a header row and one row per round (text cells), and the frame
    each row's round ends at (for a link into the replay)."""

    columns: tuple[str, ...]
    rows: list[tuple[str, ...]] = field(default_factory=list)
    frames: list[int | None] = field(default_factory=list)


def seat_columns(players: int, names: Sequence[str], what: str) -> tuple[str, ...]:
    """A score sheet's column for each seat: ``seat N (name): what``."""
    return tuple(f"seat {s} ({names[s]}): {what}" for s in range(players))


class Presentation:
    """How the replay viewer draws one game (registered under the game's ``name``: see
    ``arena.web.games``). This base draws a game it knows nothing of: empty tables, frames
    labelled by round, no round ends, an empty score sheet. A game's presentation overrides
    what it draws.

    ``acting`` is the seats to act (``State.to_act()``, public), so both panes agree on it;
    every ``info`` entry is computed from facts both sides hold, so the panes agree on those
    too."""

    #: The name of the game drawn.
    name: ClassVar[str] = ""
    #: The types of the events that end a round: a step that logs one gets a frame of its own
    #: for the end of the round (``round_end``).
    ROUND_ENDS: ClassVar[frozenset[str]] = frozenset()
    #: The template (under the web's ``templates/``) of the legend shown under the table: what
    #: its items' colours and marks mean.
    LEGEND: ClassVar[str | None] = None

    def seat_scene(self, view: Data, names: Sequence[str], acting: frozenset[int]) -> Scene:
        """The table as one seat sees it, from that seat's ``view`` only."""
        return scene(f"as seen by seat {view.get('seat')}", [], [], [])

    def full_scene(self, full: Data, names: Sequence[str], acting: frozenset[int]) -> Scene:
        """The whole table (referee), from the engine's ``full()``."""
        return scene("referee", [], [], [])

    def round_label(self, data: Data) -> str:
        """The round a frame is in, from the referee's data (``round N``)."""
        return f"round {data.get('round')}"

    def label(self, data: Data) -> str:
        """Where a frame stands, for the "jump to" list: its round (a game may say more)."""
        return self.round_label(data)

    def round_end(
        self, full: Data, views: Mapping[int, Data], events: Sequence[Data], after: Data
    ) -> Ending | None:
        """The table at the end of the round that a step ended, or None if the step did not
        end a round. ``full`` and ``views`` are the referee's data and the seats' views before
        the step (copied for ``ending``, not changed), ``events`` the events the step logged,
        ``after`` the referee's data after it."""
        if not any(e["type"] in self.ROUND_ENDS for e in events):
            return None
        # each view copied on its own: the views of one step share their public parts
        copies = {seat: copy.deepcopy(view) for seat, view in views.items()}
        return self.ending(copy.deepcopy(full), copies, events, after)

    def ending(
        self, full: Data, views: dict[int, Data], events: Sequence[Data], after: Data
    ) -> Ending:
        """``round_end``'s table, from copies of the data before the step (``full``,
        ``views``: change them freely) and the step's events."""
        raise NotImplementedError(f"{self.name or type(self).__name__} ends no rounds")

    def score_sheet(
        self, players: int, names: Sequence[str], events: Sequence[Mapping[str, Any]]
    ) -> ScoreSheet:
        """The score sheet of a finished game, from its full event log (each row's frame is
        filled in by the caller)."""
        return ScoreSheet(())
