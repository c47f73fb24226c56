"""A greedy Skyjo bot: keeps low cards, builds and completes columns, ends rounds it can win.

Stateless: every decision comes from the view. Face-down cards are valued at the mean of the
cards it has not seen (the deck minus every face-up card, the discard pile and its own drawn
card). A placement is worth the points it saves, plus the points of a column it removes, plus
a little for starting a pair in a column. Turning the last face-down card over ends the round,
so that is only welcome when the bot expects to be strictly lowest; otherwise the doubling
counts against it (under the default rule a doubled negative score gains; under ``doubling:
manual`` a score of 0 or less is never doubled). Taking the discard is compared with the
expected value of drawing (averaged over the unseen cards). Under ``discard_flip: optional`` it
discards a drawn card without turning anything over when every swap and every turn would cost.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

GAMES = ("skyjo",)

ROWS, COLS = 3, 4
CARD_COUNTS = {-2: 5, -1: 10, 0: 15, **{v: 10 for v in range(1, 13)}}
COLUMN_OF = tuple(i % COLS for i in range(ROWS * COLS))
OTHERS_IN_COLUMN = tuple(
    tuple(j for j in range(i % COLS, ROWS * COLS, COLS) if j != i) for i in range(ROWS * COLS)
)
PAIR_WEIGHT = 0.5  # worth of starting a pair of value v in a column, per point of v
FLIP_BONUS = 0.4  # worth of the information of turning a card over
LAST_TURN_GAIN = 3.0  # how much an opponent is expected to improve on a final turn
END_MARGIN = 2.0  # how clearly lowest the bot wants to be before ending a round
END_BONUS = 3.0  # worth of ending a round the bot expects to win


class Spot(NamedTuple):
    """One of our live cells, precomputed so that a placement costs a few operations."""

    index: int
    worth: float  # points saved by placing a 0 here (pair breaking included)
    bonus: dict[int, float]  # extra worth of placing a given value (columns and pairs)
    down: bool  # face down
    completes: float | None  # for a face-down card: the value that would complete its column


@dataclass(frozen=True)
class Situation:
    """What the decision needs, read once from the view."""

    spots: tuple[Spot, ...]
    unseen: tuple[tuple[int, float], ...]  # (value, probability) of an unseen card
    mean: float
    hidden: int  # our face-down cards
    up: int  # the sum of our face-up cards
    final_lap: bool  # someone else ended the round: this is our last turn
    rival_best: float  # the lowest estimated final score among the other seats
    manual_doubling: bool  # option doubling: manual (only positive scores double)
    may_skip_flip: bool  # option discard_flip: optional


def read(view: dict[str, Any]) -> Situation:
    me = view["seat"]
    flat = [[v for row in grid for v in row] for grid in view["grids"]]
    unseen, mean = unseen_cards(view, flat)
    dead = [{r["column"] for r in removed} for removed in view["removed"]]
    rivals = [estimate(flat[s], dead[s], mean) for s in range(len(flat)) if s != me]
    grid = flat[me]
    live = [i for i in range(ROWS * COLS) if COLUMN_OF[i] not in dead[me]]
    columns = bool(view["options"]["columns"])
    return Situation(
        spots=spots(grid, live, mean, columns),
        unseen=unseen,
        mean=mean,
        hidden=sum(1 for i in live if grid[i] is None),
        up=sum(grid[i] for i in live if grid[i] is not None),
        final_lap=view["ender"] is not None and view["ender"] != me,
        rival_best=min(rivals),
        manual_doubling=view["options"].get("doubling") == "manual",
        may_skip_flip=view["options"].get("discard_flip") == "optional",
    )


def unseen_cards(
    view: dict[str, Any], flat: list[list[int | None]]
) -> tuple[tuple[tuple[int, float], ...], float]:
    """The distribution of a card we have not seen, and its mean."""
    counts = dict(CARD_COUNTS)
    for value in view["discard"]:
        counts[value] -= 1
    if view.get("drawn") is not None:
        counts[view["drawn"]] -= 1
    for cells in flat:
        for value in cells:
            if value is not None:
                counts[value] -= 1
    total = max(1, sum(c for c in counts.values() if c > 0))
    unseen = tuple((v, c / total) for v, c in counts.items() if c > 0)
    return unseen, sum(v * p for v, p in unseen)


#: A ``Spot`` from a plain tuple of its fields, without ``Spot()``'s argument parsing.
new_spot = tuple.__new__


def spots(
    grid: Sequence[int | None], live: Sequence[int], mean: float, columns: bool
) -> tuple[Spot, ...]:
    """Our ``live`` cells as spots (one loop: the search's playouts build them at every move)."""
    made = []
    for index in live:
        old = grid[index]
        above, below = OTHERS_IN_COLUMN[index]
        first, second = grid[above], grid[below]
        worth = mean if old is None else float(old)
        bonus: dict[int, float] = {}
        completes = None
        if columns:
            if first is not None and first > 0:
                bonus[first] = PAIR_WEIGHT * first
            if second is not None and second > 0:
                bonus[second] = PAIR_WEIGHT * second
            if first is not None and first == second:
                bonus[first] = 3.0 * first  # the whole column goes
                completes = first
            if old is not None and old > 0 and (old == first or old == second):
                worth -= PAIR_WEIGHT * old
        down = old is None
        made.append(new_spot(Spot, (index, worth, bonus, down, completes if down else None)))
    return tuple(made)


def estimate(cells: Sequence[int | None], dead: set[int], mean: float) -> float:
    """A rival's expected final score: face-up cards, unseen ones at the mean, a last turn."""
    if dead:
        cells = [v for i, v in enumerate(cells) if COLUMN_OF[i] not in dead]
    score = sum(mean if v is None else v for v in cells)
    return score - LAST_TURN_GAIN


def ending_value(sit: Situation, final: float) -> float:
    """Adjustment for a move that ends the round with our cards summing to ``final``."""
    if final < sit.rival_best - END_MARGIN or (sit.manual_doubling and final <= 0):
        return END_BONUS  # likely strictly lowest, or never doubled
    return -final - END_BONUS  # likely doubled: adds the score once more


def ends_round(sit: Situation, place: Spot) -> bool:
    return place.down and sit.hidden == 1 and not sit.final_lap


def place_value(sit: Situation, card: int, place: Spot) -> float:
    """Expected points saved by putting ``card`` on ``place`` (face up), with column effects."""
    extra = place.bonus.get(card, 0.0)
    worth = place.worth - card + extra
    if ends_round(sit, place):
        removed = 3 * card if place.completes == card else 0
        worth += ending_value(sit, sit.up + card - removed)
    return worth


def flip_value(sit: Situation, place: Spot) -> float:
    """Expected worth of turning the face-down card of ``place`` over."""
    worth = FLIP_BONUS
    if place.completes is not None:
        chance = next((p for v, p in sit.unseen if v == place.completes), 0.0)
        worth += 3 * place.completes * chance
    if ends_round(sit, place):
        worth += ending_value(sit, sit.up + sit.mean)
    return worth


def best_placement(sit: Situation, card: int) -> tuple[float, int]:
    return max((place_value(sit, card, p), -p.index) for p in sit.spots)


def best_flip(sit: Situation) -> tuple[float, int]:
    options = [(flip_value(sit, p), -p.index) for p in sit.spots if p.down]
    return max(options) if options else (float("-inf"), 0)


def cell(index: int) -> str:
    return f"{index // COLS},{index % COLS}"


def placement_table(sit: Situation) -> dict[int, float]:
    """The best placement worth of every unseen value (fast: ``best_placement`` for all)."""
    plain = [p for p in sit.spots if not ends_round(sit, p)]
    base = max((p.worth for p in plain), default=float("-inf"))
    special: dict[int, float] = {}
    for p in plain:
        for value, extra in p.bonus.items():
            special[value] = max(special.get(value, base), p.worth + extra)
    ending = [p for p in sit.spots if ends_round(sit, p)]
    return {
        v: max([max(base, special.get(v, base)) - v] + [place_value(sit, v, p) for p in ending])
        for v, _ in sit.unseen
    }


def choose_turn(sit: Situation, discard_top: int) -> str:
    take, index = best_placement(sit, discard_top)
    flip = best_flip(sit)[0]
    table = placement_table(sit)
    draw = sum(p * max(table[v], flip) for v, p in sit.unseen)
    return f"take-discard:{cell(-index)}" if take >= draw else "draw"


def choose_drawn(sit: Situation, card: int) -> str:
    swap, swap_index = best_placement(sit, card)
    flip, flip_index = best_flip(sit)
    if sit.may_skip_flip and max(swap, flip) < 0:
        return "discard"
    if flip > swap:
        return f"discard-flip:{cell(-flip_index)}"
    return f"swap:{cell(-swap_index)}"


def choose_reveal() -> str:
    """Two cards of one column: a pair there is a start on removing it."""
    column = random.randrange(COLS)
    return f"reveal:0,{column}+1,{column}"


def cell_class(grid: Sequence[int | None], index: int) -> tuple[int | None, tuple[int, ...]]:
    """What a cell of our grid is to the rules and to us: its card (None: face down) and the
    face-up cards among the other two of its column. Columns are interchangeable, and so are
    the cells of one column, so two cells of one class are worth the same to every decision."""
    above, below = OTHERS_IN_COLUMN[index]
    return grid[index], tuple(sorted(v for v in (grid[above], grid[below]) if v is not None))


def ranked(view: dict[str, Any], legal: list[str]) -> list[str]:
    """The legal actions of a turn (phase ``turn`` or ``drawn``), best first by this bot's own
    valuation (points saved, as ``act`` weighs them), one per class of equivalent cells
    (``cell_class``): what a search may consider in its place."""
    sit = read(view)
    spots = {p.index: p for p in sit.spots}
    grid = [v for row in view["grids"][view["seat"]] for v in row]
    flip = best_flip(sit)[0]
    worths: dict[str, float] = {}
    for action in legal:
        kind, _, name = action.partition(":")
        if kind == "draw":
            table = placement_table(sit)
            worths[action] = sum(p * max(table[v], flip) for v, p in sit.unseen)
            continue
        if kind == "discard":
            worths[action] = 0.0
            continue
        row, col = name.split(",")
        place = spots[int(row) * COLS + int(col)]
        if kind == "discard-flip":
            worths[action] = flip_value(sit, place)
        else:
            card = view["discard_top"] if kind == "take-discard" else view["drawn"]
            worths[action] = place_value(sit, card, place)
    seen: set[tuple[str, Any]] = set()
    best: list[str] = []
    for action in sorted(legal, key=lambda a: -worths[a]):
        kind, _, name = action.partition(":")
        key: tuple[str, Any] = (kind, None)
        if name:
            row, col = name.split(",")
            key = (kind, cell_class(grid, int(row) * COLS + int(col)))
        if key not in seen:
            seen.add(key)
            best.append(action)
    return best


def act(view: dict, legal: list[str]) -> str:
    """The bot's decision for one turn (see the module docstring)."""
    if view["phase"] == "reveal":
        choice = choose_reveal()
    elif view["phase"] == "turn":
        choice = choose_turn(read(view), view["discard_top"])
    else:
        choice = choose_drawn(read(view), view["drawn"])
    return choice if choice in legal else random.choice(legal)


if __name__ == "__main__":
    from protocol.sdk import run_bot

    run_bot(act, name="skyjo_greedy")
