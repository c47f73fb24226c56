"""Skull King cards: the deck, card and action names, the trick judge and round scoring.

Pure functions over small integers, shared by the engine (``arena.games.skull_king``) and the
bundled bot. A *kind* is a card in a hand (identical cards share a kind); a *code* is a card on
the table, which differs from its kind only for the Tigress (declared Pirate or Escape).

Kinds and codes:
  0..55   numbered cards, ``suit * 14 + rank - 1`` with suits green, yellow, purple, black;
  56..63  Escape, Pirate, Tigress (kind only), Skull King, Mermaid, Loot, Kraken, White Whale;
  64, 65  Tigress declared as Pirate, Tigress declared as Escape (codes only).
"""

from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import Sequence
from operator import itemgetter
from typing import NamedTuple

SUITS = "GYPB"
BLACK = 3
BLACK_LOW = BLACK * 14  # codes of black cards are BLACK_LOW..55
NUMBERED = 56
ESC, PIR, TIG, SK, MER, LOOT, KRAKEN, WHALE = range(56, 64)
TIG_PIRATE, TIG_ESCAPE = 64, 65
NO_SUIT = -1  # a character, Kraken or Whale came before any numbered card
UNDECIDED = -2  # only escapes so far (or an empty trick): the next card decides

SPECIAL_NAMES = {ESC: "ESC", PIR: "PIR", TIG: "TIG", SK: "SK", MER: "MER", LOOT: "LOOT",
                 KRAKEN: "KRAKEN", WHALE: "WHALE", TIG_PIRATE: "TIG:pirate",
                 TIG_ESCAPE: "TIG:escape"}
#: Table name of each code (``"Y14"``, ``"TIG:pirate"``); index = code.
CODE_NAMES: tuple[str, ...] = tuple(
    [f"{SUITS[k // 14]}{k % 14 + 1}" for k in range(NUMBERED)]
    + [SPECIAL_NAMES[c] for c in range(NUMBERED, 66)]
)
#: Canonical play action of each code; index = code.
CODE_ACTIONS: tuple[str, ...] = tuple(f"play:{name}" for name in CODE_NAMES)
#: The play actions a card kind offers, in order (the Tigress offers two).
KIND_ACTIONS: tuple[tuple[str, ...], ...] = tuple(
    (CODE_ACTIONS[TIG_PIRATE], CODE_ACTIONS[TIG_ESCAPE]) if k == TIG else (CODE_ACTIONS[k],)
    for k in range(64)
)
#: Code of each play action string.
ACTION_CODES: dict[str, int] = {a: c for c, a in enumerate(CODE_ACTIONS) if c != TIG}
#: Code of each table name (``"Y14"``, ``"TIG:escape"``), for views.
NAME_CODES: dict[str, int] = {n: c for c, n in enumerate(CODE_NAMES)}
#: The hand kind of each code.
CODE_KINDS: tuple[int, ...] = tuple(range(64)) + (TIG, TIG)

#: Codes that take away the lead suit when played before any numbered card.
LEAD_BREAKERS = frozenset({PIR, TIG_PIRATE, SK, MER, KRAKEN, WHALE})
#: Codes that play as escapes in the ordinary judge.
ESCAPES = frozenset({ESC, TIG_ESCAPE, LOOT})

BASE_DECK: tuple[int, ...] = (
    tuple(range(NUMBERED)) + (ESC,) * 5 + (PIR,) * 5 + (TIG, SK) + (MER,) * 2
)
ADVANCED_EXTRA: tuple[int, ...] = (LOOT, LOOT, KRAKEN, WHALE)
ROUNDS = 10
#: Capture bonus of each 14: +10 for green, yellow, purple; +20 for black.
FOURTEENS = {13: 10, 27: 10, 41: 10, 55: 20}


def deck(advanced: bool) -> tuple[int, ...]:
    """The card kinds of the full deck (70 cards, or 74 with ``advanced``)."""
    return BASE_DECK + ADVANCED_EXTRA if advanced else BASE_DECK


def cards_in_round(round_: int, players: int) -> int:
    """Cards dealt to each player in round ``round_`` (1-based): min(round, 70 // players)."""
    return min(round_, len(BASE_DECK) // players)


def draw(rng: random.Random, cards: Sequence[int], count: int) -> list[int]:
    """``count`` cards drawn at random without replacement (a uniformly random deal).

    One ``getrandbits`` call gives a number whose mixed-radix digits pick each card; the 64
    extra bits make the bias of the last digits smaller than 2**-64. This is several times
    faster than ``random.sample``, which calls back into Python for every card.
    """
    pool = list(cards)
    left = len(pool)
    number = rng.getrandbits(64 + count * left.bit_length())
    out = []
    for _ in range(count):
        number, index = divmod(number, left)
        out.append(pool[index])
        left -= 1
        pool[index] = pool[left]
    return out


def pick(table: Sequence[str], keys: Sequence[int]) -> tuple[str, ...]:
    """``table[k]`` for each key, as a tuple (one C-level call for two keys or more)."""
    if len(keys) > 1:
        return itemgetter(*keys)(table)  # type: ignore[no-any-return]
    return (table[keys[0]],) if keys else ()


def hand_names(hand: Sequence[int]) -> tuple[str, ...]:
    """The names of a hand of kinds, in order."""
    return pick(CODE_NAMES, hand)


def hand_actions(hand: Sequence[int]) -> tuple[str, ...]:
    """The play actions of a sorted hand of kinds, identical cards once, in hand order."""
    specials = bisect_left(hand, NUMBERED)
    if specials == len(hand):
        return pick(CODE_ACTIONS, hand)
    out = list(pick(CODE_ACTIONS, hand[:specials]))
    prev = -1
    for kind in hand[specials:]:
        if kind != prev:
            out += KIND_ACTIONS[kind]
            prev = kind
    return tuple(out)


def next_lead(lead: int, code: int) -> int:
    """The trick's lead state after ``code`` is played onto lead state ``lead``."""
    if lead != UNDECIDED:
        return lead
    if code < NUMBERED:
        return code // 14
    if code in LEAD_BREAKERS:
        return NO_SUIT
    return UNDECIDED


class TrickResult(NamedTuple):
    """How a complete trick ended.

    ``winner`` is the index in the trick of the winning card (None: nobody wins, Kraken or an
    empty White Whale trick); ``leader`` the index of the card whose player leads next;
    ``whale`` is True when a White Whale acted.
    """

    winner: int | None
    leader: int
    whale: bool = False


def ordinary_winner(codes: Sequence[int]) -> int:
    """Index of the winning card when no Kraken or White Whale acts (rules 1-7, in order)."""
    top = max(codes)
    if top >= NUMBERED:  # special cards: rules 1 to 4 first
        if SK in codes:
            return codes.index(MER) if MER in codes else codes.index(SK)
        for i, code in enumerate(codes):
            if code == PIR or code == TIG_PIRATE:
                return i
        if MER in codes:
            return codes.index(MER)
        top = max([code for code in codes if code < NUMBERED], default=-1)
        if top < 0:
            return 0  # 7. only escapes: the first card
    if top >= BLACK_LOW:
        return codes.index(top)  # 5. the highest black (black codes rank above all others)
    for code in codes:  # 6. the highest card of the lead suit
        if code < NUMBERED:
            low = code - code % 14
            break
        if code in LEAD_BREAKERS:
            return 0
    best = index = -1
    for i, code in enumerate(codes):
        if low <= code < low + 14 and code > best:
            best, index = code, i
    return index


def whale_winner(codes: Sequence[int]) -> int | None:
    """Index of the highest numbered card (ties to the first played), or None if there is none."""
    best, best_rank = None, -1
    for i, code in enumerate(codes):
        if code < NUMBERED and code % 14 > best_rank:
            best, best_rank = i, code % 14
    return best


def _winner_without(codes: Sequence[int], removed: set[int]) -> int | None:
    """Index (in ``codes``) of the ordinary winner of the trick without the ``removed`` indexes."""
    kept = [i for i in range(len(codes)) if i not in removed]
    if not kept:
        return None
    return kept[ordinary_winner([codes[i] for i in kept])]


def judge(codes: Sequence[int]) -> TrickResult:
    """Judge a complete trick given its codes in play order (index 0 led)."""
    kraken = codes.index(KRAKEN) if KRAKEN in codes else -1
    whale = codes.index(WHALE) if WHALE in codes else -1
    if kraken < 0 and whale < 0:
        index = ordinary_winner(codes)
        return TrickResult(index, index)
    if kraken > whale:  # the Kraken acts (alone, or played after the Whale)
        removed = {kraken} if whale < 0 else {kraken, whale}
        leader = _winner_without(codes, removed)
        return TrickResult(None, 0 if leader is None else leader)
    winner = whale_winner(codes)  # the Whale acts; an earlier Kraken is an escape
    return TrickResult(winner, whale if winner is None else winner, whale=True)


def capture_bonus(codes: Sequence[int], winner: int) -> int:
    """Bonus points for capturing the cards of a trick won by the card at index ``winner``."""
    bonus = 0
    for code in codes:
        if code in FOURTEENS:
            bonus += FOURTEENS[code]
    won_by = codes[winner]
    if won_by < NUMBERED:
        return bonus
    if won_by == PIR or won_by == TIG_PIRATE:
        bonus += 20 * codes.count(MER)
    elif won_by == SK:
        bonus += 30 * (codes.count(PIR) + codes.count(TIG_PIRATE))
    elif won_by == MER and SK in codes:
        bonus += 40
    return bonus


def loot_alliances(seats: Sequence[int], codes: Sequence[int],
                   result: TrickResult) -> list[tuple[int, int]]:
    """Loot alliances ``(loot player, trick winner)`` formed by a judged trick."""
    if result.winner is None or result.whale or LOOT not in codes:
        return []
    winner = seats[result.winner]
    return [(seats[i], winner) for i, code in enumerate(codes)
            if code == LOOT and seats[i] != winner]


def standard_points(bid: int, won: int, cards: int, bonus: int) -> int:
    """Standard scoring of one player's round (``bonus`` counts only with an exact bid)."""
    if bid == 0:
        return 10 * cards + bonus if won == 0 else -10 * cards
    if won == bid:
        return 20 * bid + bonus
    return -10 * abs(won - bid)


def rascal_points(bid: int, won: int, cards: int, bonus: int, loot: int) -> int:
    """Rascal scoring: potential 10 x cards; exact 100 %, off by one 50 %, else 0.

    ``bonus`` is the capture bonus; ``loot`` the Loot alliance bonus (exact bids only).
    """
    miss = abs(won - bid)
    if miss == 0:
        return 10 * cards + bonus + loot
    if miss == 1:
        return (10 * cards + bonus) // 2
    return 0


def deal_constrained(pool: Sequence[int], sizes: Sequence[int], voids: Sequence[set[int]],
                     rng: random.Random) -> list[list[int]]:
    """Deal ``pool`` at random into piles of ``sizes`` so that no pile gets a suit it is void in.

    ``voids[i]`` holds the suits pile ``i`` may not receive. A solution must exist (the caller
    deals from a real state). Cards of constrained suits are placed one by one at a random pile
    (weighted by room left), keeping Hall's condition true so the rest stays dealable; the other
    cards then fill the room left at random.
    """
    caps = list(sizes)
    piles: list[list[int]] = [[] for _ in caps]
    suits = sorted(set().union(*voids))
    tied = [k for k in pool if k < NUMBERED and k // 14 in suits]
    free = [k for k in pool if not (k < NUMBERED and k // 14 in suits)]
    rng.shuffle(tied)
    demand = {s: 0 for s in suits}
    for k in tied:
        demand[k // 14] += 1
    subsets = [[s for b, s in enumerate(suits) if mask >> b & 1]
               for mask in range(1, 1 << len(suits))]
    for card in tied:
        suit = card // 14
        demand[suit] -= 1
        candidates = [i for i, room in enumerate(caps) if room and suit not in voids[i]]
        while True:
            pile = _weighted_pick(candidates, caps, rng)
            caps[pile] -= 1
            if _hall_ok(subsets, demand, caps, voids):
                break
            caps[pile] += 1
            candidates.remove(pile)
        piles[pile].append(card)
    rng.shuffle(free)
    start = 0
    for pile, room in zip(piles, caps):
        pile.extend(free[start:start + room])
        start += room
    return piles


def _weighted_pick(candidates: list[int], caps: list[int], rng: random.Random) -> int:
    """A candidate pile chosen with probability proportional to its room left."""
    if not candidates:
        raise ValueError("no consistent deal exists")
    point = rng.random() * sum(caps[i] for i in candidates)
    for i in candidates:
        point -= caps[i]
        if point < 0:
            return i
    return candidates[-1]


def _hall_ok(subsets: list[list[int]], demand: dict[int, int], caps: list[int],
             voids: Sequence[set[int]]) -> bool:
    """Hall's condition: every set of suits fits in the piles that may hold one of them."""
    for subset in subsets:
        need = sum(demand[s] for s in subset)
        if need and need > sum(room for room, void in zip(caps, voids)
                               if not void.issuperset(subset)):
            return False
    return True
