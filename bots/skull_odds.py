"""Skull bot that bids and flips from the odds of finding flowers, and bluffs with bait raises.

Stateless: every decision is taken from the view alone.

* Odds model: a player's skull is on their stack with a probability that grows with the discs
  they placed (certain once their hand is empty), shrinks when they bid this round (bidders
  usually sit on flowers) and when they may have lost it, and grows with how often their skull
  stopped a challenger in earlier rounds. Within a stack the skull is equally likely at any
  depth, so each further flip into one stack is riskier: the challenge plan takes, disc by disc,
  the top disc most likely to be a flower (spreading over stacks, smaller stacks first on ties).
* Own stack: it is flipped first, so only the flowers above one's own skull are safe. The bot
  opens each round with its skull at the bottom (a trap for challengers who dig into its stack)
  and puts a flower on top, so small bids stay safe for itself.
* Bids: the highest bid whose success odds clear a threshold. Failing that, in the auction it
  bait-raises by one when the others, with plenty of room left to raise, are unlikely to all
  pass (pushing their challenge higher); the risk it accepts shrinks with its own discs.
  Otherwise it passes.
* Discards a flower when it can (the skull is what makes the others fail); as an eliminated
  challenger, hands the start to the player furthest from winning.

The odds functions are shared with ``bots.skull_bank_odds``.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

GAMES = ("skull",)

#: Chance that one placed disc is the skull, for a player still holding it.
SKULL_PICK = 0.35
#: Success odds needed to open / raise an auction honestly.
BID_ODDS = 0.62
RAISE_ODDS = 0.5
#: How often the bot opens the round with its skull (when it holds another disc too).
SKULL_SETUP = 1.0
#: Flowers the bot wants above its skull on its own stack before it bids.
SAFE_TARGET = 1
#: Earlier rounds the bot reads for each player's habits.
HISTORY = 20
#: Largest chance of being left holding a bait raise the bot accepts (with all four discs).
BAIT_RISK = 0.8


def next_good(risk: float, placed: int, flipped: int) -> float:
    """Chance the next disc of a stack is good, given ``flipped`` good discs came off its top.

    ``risk`` is the chance that the skull is among the ``placed`` discs, at a uniform depth.
    """
    if flipped >= placed:
        return 0.0
    return (1.0 - risk * (flipped + 1) / placed) / (1.0 - risk * flipped / placed)


Stacks = Mapping[int, tuple[float, int, int]]


def plan(stacks: Stacks, need: int) -> tuple[list[float], list[int]]:
    """Odds of the first 1..``need`` further flips, each time taking the likeliest good top disc.

    ``stacks[seat] = (risk, placed, flipped)``. Returns the cumulative odds after each flip
    (shorter if the discs run out) and the seats in flipping order. The greedy order does not
    depend on ``need``, so one call serves every bid. Ties go to the smaller stack.
    """
    flipped = {seat: info[2] for seat, info in stacks.items()}
    odds, curve, order = 1.0, [], []
    for _ in range(need):
        best, best_p = -1, 0.0
        for seat, (risk, placed, _) in stacks.items():
            p = next_good(risk, placed, flipped[seat])
            if p > best_p or (p == best_p and best >= 0 and placed < stacks[best][1]):
                best, best_p = seat, p
        if best < 0:
            break
        odds *= best_p
        flipped[best] += 1
        curve.append(odds)
        order.append(best)
    return curve, order


def safe_top(pile: Sequence[str]) -> int:
    """How many discs from the top of one's own pile are good (above the first skull)."""
    count = 0
    for disc in reversed(pile):
        if disc == "skull":
            break
        count += 1
    return count


def skull_hits(results: Sequence[Mapping[str, Any]]) -> dict[int, int]:
    """How often each seat's skull stopped a challenge in the last ``HISTORY`` rounds."""
    hits: dict[int, int] = {}
    for result in results[-HISTORY:]:
        owner = result.get("skull")
        if owner is not None:
            hits[owner] = hits.get(owner, 0) + 1
    return hits


def risk_of(entry: Mapping[str, Any], hits: int, lean: float = 1.0) -> float:
    """Chance that a player's skull is among the discs they placed this round."""
    placed, in_hand, owned = entry["placed"], entry["in_hand"], entry["owned"]
    if placed == 0:
        return 0.0
    holds = 1.0 if owned >= 4 else max(0.25, owned / 4.0)
    down = 1.0 if in_hand == 0 else 1.0 - (1.0 - SKULL_PICK) ** placed
    return min(0.97, holds * down * lean * (1.0 + 0.25 * hits))


def shown_counts(shown: Iterable[Sequence[Any]]) -> dict[int, int]:
    counts: dict[int, int] = {}
    for owner, *_ in shown:  # [owner, disc], or [owner, position, disc] (bank)
        counts[owner] = counts.get(owner, 0) + 1
    return counts


def others_stacks(
    view: Mapping[str, Any], leans: Mapping[int, float], skip: Iterable[int] = ()
) -> dict[int, tuple[float, int, int]]:
    """The ``plan`` input for every other stack with discs, from the public view."""
    me, shown_key = view["seat"], ("flips" if view["game"] == "skull" else "revealed")
    hits = skull_hits(view["results"])
    flipped = shown_counts(view[shown_key])
    stacks = {}
    skipped = set(skip)
    for seat, entry in enumerate(view["seats"]):
        if seat == me or seat in skipped or entry["placed"] == 0:
            continue
        risk = risk_of(entry, hits.get(seat, 0), leans.get(seat, 1.0))
        stacks[seat] = (risk, entry["placed"], flipped.get(seat, 0))
    return stacks


def best_number(lo: int, hi: int, own: Sequence[str], stacks: Stacks, threshold: float) -> int:
    """The highest number N in ``lo..hi`` of discs to turn (one's own pile first, then the
    best plan) whose success odds clear ``threshold``, or 0."""
    safe = safe_top(own)
    best = min(safe, hi) if safe >= lo else 0
    if safe < len(own) or hi <= len(own):
        return best  # beyond one's own skull, or within one's own pile: nothing more
    curve, _ = plan(stacks, hi - len(own))
    for extra, odds in enumerate(curve, start=1):
        if odds < threshold:
            break
        if len(own) + extra >= lo:
            best = len(own) + extra
    return best


def bidders(log: Iterable[str], verbs: tuple[str, ...]) -> dict[int, float]:
    """Lean (risk factor) per seat that bid or claimed this round: bidders show flowers."""
    leans: dict[int, float] = {}
    for entry in log:
        seat, _, rest = entry.partition(":")
        if rest.startswith(verbs):
            leans[int(seat)] = 0.6
    return leans


def all_pass_odds(others: int, bid: int, total: int) -> float:
    """Rough odds that ``others`` players all let ``bid`` stand, each picking evenly among
    passing and its possible raises (more room to raise, less likely to pass)."""
    return (1.0 / (total - bid + 1)) ** others


def bait_ok(owned: int, others: int, bid: int, total: int) -> bool:
    """Is a bluff raise to ``bid`` worth it? Only if being left with it looks unlikely; the
    tolerance shrinks as one's own discs (what a failed bluff costs) run out."""
    tolerance = BAIT_RISK * (owned - 1) / 3.0
    return bid < total and all_pass_odds(others, bid, total) < tolerance


# ----- Skull decisions ---------------------------------------------------------------------------


def lay(pile: Sequence[str], legal: list[str], verb: str, good: str, skull_first: float) -> str:
    """Put down a disc: the skull first (bottom of the pile) with chance ``skull_first``,
    otherwise good discs; the skull too when nothing else is left."""
    skull, flower = f"{verb}:skull", f"{verb}:{good}"
    if skull in legal and (not pile and random.random() < skull_first or flower not in legal):
        return skull
    return flower if flower in legal else legal[0]


def pick_top(view: Mapping[str, Any], legal: list[str], leans: Mapping[int, float]) -> str:
    """The flip/reveal action on the pile whose top disc most likely is good."""
    stacks = others_stacks(view, leans)
    targets = {seat_of(action) for action in legal}
    _, order = plan({s: info for s, info in stacks.items() if s in targets}, 1)
    verb = legal[0].partition(":")[0]
    return f"{verb}:{order[0]}" if order else legal[0]


def _place(view: Mapping[str, Any], legal: list[str]) -> str:
    return lay(view["stack"], legal, "place", "flower", SKULL_SETUP)


def _turn(view: Mapping[str, Any], legal: list[str]) -> str:
    stack = view["stack"]
    if "place:flower" in legal and safe_top(stack) < SAFE_TARGET:
        return "place:flower"
    total = sum(entry["placed"] for entry in view["seats"])
    stacks = others_stacks(view, bidders(view["log"], ("bid",)))
    best = best_number(1, total, stack, stacks, BID_ODDS)
    if best:
        return f"bid:{best}"
    if legal[0].startswith("place:"):
        return _place(view, legal)
    return "bid:1"


def _auction(view: Mapping[str, Any], legal: list[str]) -> str:
    """Raise to the highest bid with good odds; else bait-raise by one; else pass."""
    seats, me = view["seats"], view["seat"]
    total = sum(entry["placed"] for entry in seats)
    stacks = others_stacks(view, bidders(view["log"], ("bid",)))
    lo = view["bid"] + 1
    best = best_number(lo, total, view["stack"], stacks, RAISE_ODDS)
    if best:
        return f"bid:{best}"
    others = sum(
        1 for s, e in enumerate(seats) if s != me and not e["passed"] and not e["eliminated"]
    )
    if bait_ok(seats[me]["owned"], others, lo, total):
        return f"bid:{lo}"
    return "pass"


def _first(view: Mapping[str, Any], legal: list[str]) -> str:
    """Hand the start to the player furthest from winning."""
    seats = view["seats"]

    def key(action: str) -> tuple[int, int]:
        entry = seats[seat_of(action)]
        return entry["successes"], entry["owned"]

    return min(legal, key=key)


def seat_of(action: str) -> int:
    return int(action.rpartition(":")[2])


def act(view: dict, legal: list[str]) -> str:
    phase = view["phase"]
    if phase == "setup":
        return _place(view, legal)
    if phase == "turns":
        return _turn(view, legal)
    if phase == "auction":
        return _auction(view, legal)
    if phase == "challenge":
        return pick_top(view, legal, bidders(view["log"], ("bid",)))
    if phase == "discard":  # keep the skull: it is what makes the others fail
        return "discard:flower" if "discard:flower" in legal else legal[0]
    if phase == "first":
        return _first(view, legal)
    return random.choice(legal)


if __name__ == "__main__":
    from protocol.sdk import run_bot

    run_bot(act, name="skull_odds")
