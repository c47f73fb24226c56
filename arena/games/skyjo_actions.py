"""Skyjo's grid and its actions: cell names, rows and columns, every action string and its parsed
form, built once (the rules are in ``arena.games.skyjo``).

A grid is stored row-major: cell ``R,C`` (rows 0-2 top to bottom, columns 0-3 left to right) is
index ``R*4+C``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations

ROWS, COLS = 3, 4
CELLS = ROWS * COLS


@dataclass(frozen=True)
class Move:
    """A parsed action: its kind and the grid indices it names."""

    kind: str
    cells: tuple[int, ...] = ()


#: Each cell's name (``R,C``), by grid index.
CELL_NAMES: tuple[str, ...] = tuple(f"{i // COLS},{i % COLS}" for i in range(CELLS))
#: The grid indices of each row, left to right.
ROW_CELLS: tuple[tuple[int, ...], ...] = tuple(
    tuple(row * COLS + col for col in range(COLS)) for row in range(ROWS)
)
#: The grid indices of each column, top to bottom.
COLUMN_CELLS: tuple[tuple[int, ...], ...] = tuple(
    tuple(row * COLS + col for row in range(ROWS)) for col in range(COLS)
)


def _per_cell(kind: str) -> tuple[str, ...]:
    """The actions of one kind that name a cell, by grid index."""
    return tuple(f"{kind}:{name}" for name in CELL_NAMES)


TAKE_DISCARD_ACTIONS = _per_cell("take-discard")
SWAP_ACTIONS = _per_cell("swap")
DISCARD_FLIP_ACTIONS = _per_cell("discard-flip")
REVEAL_ACTIONS: tuple[str, ...] = tuple(
    f"reveal:{CELL_NAMES[a]}+{CELL_NAMES[b]}" for a, b in combinations(range(CELLS), 2)
)


def _parse(action: str) -> Move:
    kind, _, rest = action.partition(":")
    cells = tuple(int(r) * COLS + int(c) for r, c in (p.split(",") for p in rest.split("+") if p))
    return Move(kind, cells)


#: Every action of the game, parsed.
MOVES: Mapping[str, Move] = {
    action: _parse(action)
    for actions in (
        ("draw", "discard"),
        TAKE_DISCARD_ACTIONS,
        SWAP_ACTIONS,
        DISCARD_FLIP_ACTIONS,
        REVEAL_ACTIONS,
    )
    for action in actions
}


def parse_action(action: str) -> Move:
    """Parse an action already known to be legal."""
    return MOVES[action]
