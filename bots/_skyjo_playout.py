"""``skyjo_greedy``'s decisions read from a Skyjo state instead of a view, and a stronger
policy by the same valuation with other weights: the search's playout policies
(``bots.ismcts``), about three times cheaper a decision than building a view and reading it.

``decide(state, seat)`` is the action ``skyjo_greedy.act`` chooses from ``state.view(seat)`` in
the phases ``turn`` and ``drawn`` (the tests check it, position by position): the same
valuation (``skyjo_greedy``'s functions and constants), the same arithmetic in the same order,
so the same floats and the same ties. Only what ``read`` takes from the view is read here from
the state's own fields (what the seat may see: never a face-down card, nor another seat's drawn
card), and the best placement of every unseen value is computed in one pass.

``decide(state, seat, STRONGER)`` is ``ismcts``'s own policy in Skyjo: greedy's valuation with
the weights that beat greedy in self-play (``bench/tune_skyjo.py``; see ``Weights``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.games.skyjo_cards import CARD_COUNTS, TARGET, Cell
from bots import skyjo_greedy
from bots.skyjo_greedy import END_BONUS, END_MARGIN, FLIP_BONUS, LAST_TURN_GAIN, Spot, cell

#: The card values, lowest first, and the deck's count of each.
VALUES = tuple(sorted(CARD_COUNTS))
COUNTS = tuple(CARD_COUNTS[value] for value in VALUES)
LOWEST = VALUES[0]
CELLS = range(12)
UP, DOWN, GONE = Cell.UP, Cell.DOWN, Cell.GONE


@dataclass(frozen=True)
class Weights:
    """The weights of the valuation that differ between greedy and the stronger policy."""

    flip_bonus: float = FLIP_BONUS  # worth of the information of turning a card over
    last_turn_gain: float = LAST_TURN_GAIN  # what a rival is expected to save on its last turn
    end_margin: float = END_MARGIN  # how clearly lowest to be before ending a round
    end_bonus: float = END_BONUS  # worth of ending a round expected to be won
    #: In a round that may end the game (a seat's total plus its cards' estimate reaches
    #: ``TARGET``), end it whenever the total stays lowest even if the round's score doubles.
    play_the_lead: bool = False


#: ``skyjo_greedy``'s own weights.
GREEDY = Weights()
#: The stronger policy: end a round only when clearly lowest, turn cards over more readily,
#: and in the last round end it whenever the lead survives a doubling. Self-play at tables of
#: three with ``skyjo_greedy`` and ``random`` (``bench/tune_skyjo.py``): see ``docs/bots.md``.
STRONGER = Weights(flip_bonus=1.5, end_margin=6.0, play_the_lead=True)


def unseen(state: Any, seat: int) -> tuple[list[tuple[int, float]], float]:
    """What ``skyjo_greedy.unseen_cards`` gives from ``seat``'s view: the distribution of a
    card ``seat`` has not seen (the deck less the discard pile, its own drawn card and every
    face-up card) and its mean."""
    counts = list(COUNTS)
    for value in state.discard:
        counts[value - LOWEST] -= 1
    if state.drawn is not None and state.current == seat:
        counts[state.drawn - LOWEST] -= 1
    for cards, cells in zip(state.cards, state.cells):
        for value, shown in zip(cards, cells):
            if shown is UP:
                counts[value - LOWEST] -= 1
    total = max(1, sum(c for c in counts if c > 0))
    table = [(v, c / total) for v, c in zip(VALUES, counts) if c > 0]
    return table, sum(v * p for v, p in table)


def decide(state: Any, seat: int, weights: Weights = GREEDY) -> str:
    """``skyjo_greedy.act(state.view(seat), state.legal(seat))`` for the seat to play in the
    phases ``turn`` and ``drawn`` (never a random answer: its choices are always legal); with
    other ``weights``, the same valuation weighed by them."""
    table, mean = unseen(state, seat)
    estimates = [
        sum(mean if shown is DOWN else v for v, shown in zip(cards, cells) if shown is not GONE)
        for cards, cells in zip(state.cards, state.cells)
    ]
    gain, margin, bonus_end = weights.last_turn_gain, weights.end_margin, weights.end_bonus
    rival_best = min(estimates[:seat] + estimates[seat + 1 :]) - gain
    cards, cells = state.cards[seat], state.cells[seat]
    grid = [v if shown is UP else None for v, shown in zip(cards, cells)]
    columns = bool(state.options["columns"])
    manual = state.options.get("doubling") == "manual"
    final_lap = state.ender is not None and state.ender != seat
    hidden = up = 0
    for v, shown in zip(cards, cells):
        if shown is DOWN:
            hidden += 1
        elif shown is UP:
            up += v
    spots = skyjo_greedy.spots(grid, [i for i in CELLS if cells[i] is not GONE], mean, columns)

    totals = state.totals
    last_round = weights.play_the_lead and any(
        total + estimate >= TARGET for total, estimate in zip(totals, estimates)
    )

    def ending(final: float) -> float:
        if final < rival_best - margin or (manual and final <= 0):
            return bonus_end
        if last_round:  # still lowest in total if doubled: the round's end wins the game
            worst = totals[seat] + max(final, 2 * final)
            if all(
                worst < totals[other] + estimates[other] - gain - margin
                for other in range(len(totals))
                if other != seat
            ):
                return bonus_end
        return -final - bonus_end

    ends_possible = hidden == 1 and not final_lap

    def place_value(card: int, place: Spot) -> float:
        _, worth, bonus, down, completes = place
        worth = worth - card + bonus.get(card, 0.0)
        if down and ends_possible:
            removed = 3 * card if completes == card else 0
            worth += ending(up + card - removed)
        return worth

    def best_placement(card: int) -> tuple[float, int]:
        return max((place_value(card, p), -p[0]) for p in spots)

    flips = []
    for p in spots:
        if not p[3]:
            continue
        worth = weights.flip_bonus
        if p[4] is not None:
            chance = next((q for v, q in table if v == p[4]), 0.0)
            worth += 3 * p[4] * chance
        if ends_possible:
            worth += ending(up + mean)
        flips.append((worth, -p[0]))
    flip, flip_index = max(flips) if flips else (float("-inf"), 0)

    if state.drawn is None:  # phase turn: the discard, or a draw's expected worth
        take, index = best_placement(state.discard[-1])
        plain = spots if not ends_possible else [p for p in spots if not p[3]]
        base = max((p[1] for p in plain), default=float("-inf"))
        special: dict[int, float] = {}
        for p in plain:
            for value, extra in p[2].items():
                special[value] = max(special.get(value, base), p[1] + extra)
        ending_spots = [p for p in spots if p[3]] if ends_possible else []
        draw = 0.0
        if ending_spots:
            draw = sum(
                q
                * max(
                    max(
                        [max(base, special.get(v, base)) - v]
                        + [place_value(v, p) for p in ending_spots]
                    ),
                    flip,
                )
                for v, q in table
            )
        else:
            draw = sum(q * max(max(base, special.get(v, base)) - v, flip) for v, q in table)
        return f"take-discard:{cell(-index)}" if take >= draw else "draw"
    swap, swap_index = best_placement(state.drawn)
    if state.options.get("discard_flip") == "optional" and max(swap, flip) < 0:
        return "discard"
    if flip > swap:
        return f"discard-flip:{cell(-flip_index)}"
    return f"swap:{cell(-swap_index)}"


def stronger(state: Any, seat: int) -> str:
    """The stronger policy's action (``decide`` with the ``STRONGER`` weights)."""
    return decide(state, seat, STRONGER)
