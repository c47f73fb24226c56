"""Skull & Roses (bank variant) bot: claims and answers from the odds of roses, bluffs a little.

Stateless: every decision is taken from the view alone. It uses the odds model of
``bots.skull_odds`` (a player's skull is on their row with a probability growing with the bills
they put down; within a row it is equally likely at any depth), with the bank's own signals:
claimants and raisers usually sit on roses, disagreeing players may be guarding a skull.

* Ante: usually its skull, at the bottom of its row (a trap for dealers who dig into it), then
  a rose on top, so small claims of its own stay safe.
* Claims and raises: the highest number whose odds (own row first, then the likeliest rose on top
  of the other rows) clear a threshold; a forced raise takes the smallest step.
* Answers: estimates the dealer's chance to reveal N roses — his own row at the public odds, the
  others' rows in the order a careful dealer would pick them, its own row at its true odds (it
  knows where its skull lies) — and agrees when the dealer is more likely to succeed than not,
  disagrees otherwise. A disagreeing answer with its skull on top of its row is its bluff.
* Showdown: the dealer may reveal any face-down bill of any other row. It turns the bill least
  likely to be a skull: rows by the same odds, and within a row the ante (the bill put down
  first, blind, where trappers like itself hide their skull) counts as riskier than bills added
  later.
* Gives up a rose while it has two, keeping the skull as a threat.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from bots.skull_odds import (
    Stacks,
    best_number,
    bidders,
    lay,
    next_good,
    others_stacks,
    plan,
    safe_top,
)

GAMES = ("skull-bank",)

#: Odds needed to claim, to raise, and to agree with a dealer.
CLAIM_ODDS = 0.62
RAISE_ODDS = 0.7
AGREE_ODDS = 0.5
#: How often the bot antes its skull (when it holds a rose too).
SKULL_ANTE = 0.8
#: Roses the bot wants above its skull before it claims.
SAFE_TARGET = 1
#: Risk factors from this round's answers.
DISAGREE_LEAN = 1.4
#: Weight of the ante (position 0) against a later bill, for where a row's skull lies.
ANTE_WEIGHT = 1.5


def _leans(view: Mapping[str, Any]) -> dict[int, float]:
    leans = bidders(view["log"], ("claim", "raise"))
    for seat, entry in enumerate(view["seats"]):
        if entry["answer"] == "disagree":
            leans[seat] = leans.get(seat, 1.0) * DISAGREE_LEAN
    return leans


def _total(view: Mapping[str, Any]) -> int:
    return sum(entry["placed"] for entry in view["seats"])


def own_next_good(row: Sequence[str], revealed: int) -> float:
    """True odds that the next bill revealed from one's own row is a rose."""
    if revealed >= len(row):
        return 0.0
    return 1.0 if row[-1 - revealed] != "skull" else 0.0


def dealer_odds(view: Mapping[str, Any]) -> float:
    """Chance that the dealer reveals ``claim`` roses, seen from this seat.

    The dealer's own row and the order of the other rows follow the public odds (what the dealer
    can judge); one's own row counts at its true odds.
    """
    me, dealer, claim = view["seat"], view["dealer"], view["claim"]
    rows = others_stacks(dict(view, seat=-1), _leans(view))  # every row, as the public sees it
    risk, placed, _ = rows.pop(dealer)
    own = min(claim, placed)
    odds = 1.0 - risk * own / placed if placed else 1.0
    need = claim - own
    if need <= 0:
        return odds
    _, order = plan(rows, need)
    if len(order) < need:
        return 0.0
    flipped: dict[int, int] = {}
    for seat in order:
        done = flipped.get(seat, 0)
        if seat == me:
            odds *= own_next_good(view["row"], done)
        else:
            odds *= next_good(rows[seat][0], rows[seat][1], done)
        flipped[seat] = done + 1
    return odds


def skull_chance(risk: float, placed: int, down: Sequence[int], position: int) -> float:
    """Chance that the face-down bill at ``position`` of a row is its skull.

    ``risk`` is the chance the skull was among the ``placed`` bills; the bills already revealed
    were roses. Within the row the skull lies at a position weighted ``ANTE_WEIGHT`` for the
    ante and 1 for later bills.
    """
    weight = {at: ANTE_WEIGHT if at == 0 else 1.0 for at in range(placed)}
    remaining = risk * sum(weight[at] for at in down) / sum(weight.values())
    still = remaining / (1.0 - risk + remaining) if remaining else 0.0
    return still * weight[position] / sum(weight[at] for at in down)


def pick_bill(view: Mapping[str, Any], legal: list[str]) -> str:
    """The ``reveal:SEAT,POS`` action whose bill is least likely a skull (ties: the first)."""
    rows = others_stacks(view, _leans(view))
    best, best_chance = legal[0], 2.0
    for action in legal:
        seat, _, at = action.partition(":")[2].partition(",")
        risk, placed, _ = rows.get(int(seat), (0.0, 1, 0))
        chance = skull_chance(risk, placed, view["face_down"][int(seat)], int(at))
        if chance < best_chance:
            best, best_chance = action, chance
    return best


def _ante(view: Mapping[str, Any], legal: list[str]) -> str:
    return lay(view["row"], legal, "add", "rose", SKULL_ANTE)


def _add(view: Mapping[str, Any], legal: list[str]) -> str:
    row = view["row"]
    if "add:rose" in legal and safe_top(row) < SAFE_TARGET:
        return "add:rose"
    stacks: Stacks = others_stacks(view, _leans(view))
    best = best_number(1, _total(view), row, stacks, CLAIM_ODDS)
    if best:
        return f"claim:{best}"
    if legal[0].startswith("add:"):
        return _ante(view, legal)
    return "claim:1"


def _respond(view: Mapping[str, Any], legal: list[str]) -> str:
    stacks = others_stacks(view, _leans(view))
    best = best_number(view["claim"] + 1, _total(view), view["row"], stacks, RAISE_ODDS)
    if best:
        return f"raise:{best}"
    return "agree" if dealer_odds(view) >= AGREE_ODDS else "disagree"


def act(view: dict, legal: list[str]) -> str:
    phase = view["phase"]
    if phase == "ante":
        return _ante(view, legal)
    if phase == "add":
        return _add(view, legal)
    if phase == "respond":
        return _respond(view, legal)
    if phase == "raise":
        return legal[0]  # the smallest forced raise has the best odds
    if phase == "showdown":
        return pick_bill(view, legal)
    if phase == "give":
        return "give:rose" if view["hand"]["rose"] >= 2 else legal[-1]
    return random.choice(legal)


if __name__ == "__main__":
    from protocol.sdk import run_bot

    run_bot(act, name="skull_bank_odds")
