"""Skull King cards: the deck, card names, the trick judge and round scoring.

Pure functions over ``Card`` values, shared by the engine (``arena.games.skull_king``) and the
bundled bot, and the ``Hand`` a seat holds. The rules they implement are in
``docs/games/skull-king.md``: the numbers in the docstrings below (rule 7.1, rule 8, ...) refer
to its "Rules as implemented" section.

A card in a hand is one of the 70 (or 74) cards of the deck. On the table the Tigress becomes
one of two table cards, ``TIG:pirate`` (a Pirate) or ``TIG:escape`` (an Escape); every other
card is the same card in the hand and on the table. A card's ``name`` is its text form, as
views and the event log show it; its play action is ``play:`` followed by the name.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, NamedTuple

SUITS = "GYPB"
BLACK = "B"
ROUNDS = 10
#: Where a round stands (as views show it).
BIDDING, PLAYING, OVER = "bidding", "playing", "over"
PHASES = (BIDDING, PLAYING, OVER)


class Kind:
    """What a card is for the rules: plain strings (an ``Enum`` member is several times slower
    to read, and the trick judge reads them on every trick)."""

    NUMBER = "number"
    ESCAPE = "escape"
    PIRATE = "pirate"
    TIGRESS = "tigress"  # only in hands: on the table she is a Pirate or an Escape
    SKULL_KING = "skull king"
    MERMAID = "mermaid"
    LOOT = "loot"
    KRAKEN = "kraken"
    WHALE = "white whale"


#: Characters, the Kraken and the White Whale: played before any numbered card, the trick
#: has no lead suit (rule 5).
NO_LEAD_SUIT = frozenset((Kind.PIRATE, Kind.SKULL_KING, Kind.MERMAID, Kind.KRAKEN, Kind.WHALE))


@dataclass(frozen=True, eq=False, slots=True)
class Card:
    """One card. Each card exists once: identical cards (the five Escapes, ...) are the same
    value, so cards compare and hash by identity, and copies of a card are the card itself.

    ``position`` is the card's place in hand order (see ``in_hand_order``); ``action`` is the
    play action of a table card (``play:G7``, ``play:TIG:escape``), ``plays`` the play actions a
    hand card offers (the Tigress offers two, rule 6; any other card its own action);
    ``held`` is the hand card a table card is played from (the card itself, but the Tigress
    for ``TIG:pirate`` and ``TIG:escape``).
    """

    position: int
    name: str
    kind: str
    suit: str | None = None
    rank: int = 0
    plays: tuple[str, ...] = ()
    held: Card | None = field(default=None, repr=False)
    action: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "action", f"play:{self.name}")
        if self.held is None:
            object.__setattr__(self, "held", self)
        if not self.plays:
            object.__setattr__(self, "plays", (self.action,))

    def __repr__(self) -> str:
        return f"Card({self.name})"

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Card:
        return self

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return card_named, (self.name,)


NUMBERED: tuple[Card, ...] = tuple(
    Card(14 * s + rank - 1, f"{suit}{rank}", Kind.NUMBER, suit, rank)
    for s, suit in enumerate(SUITS)
    for rank in range(1, 15)
)
ESC = Card(56, "ESC", Kind.ESCAPE)
PIR = Card(57, "PIR", Kind.PIRATE)
TIG = Card(58, "TIG", Kind.TIGRESS, plays=("play:TIG:pirate", "play:TIG:escape"))
SK = Card(59, "SK", Kind.SKULL_KING)
MER = Card(60, "MER", Kind.MERMAID)
LOOT = Card(61, "LOOT", Kind.LOOT)
KRAKEN = Card(62, "KRAKEN", Kind.KRAKEN)
WHALE = Card(63, "WHALE", Kind.WHALE)
TIG_PIRATE = Card(64, "TIG:pirate", Kind.PIRATE, held=TIG)
TIG_ESCAPE = Card(65, "TIG:escape", Kind.ESCAPE, held=TIG)

BASE_DECK: tuple[Card, ...] = NUMBERED + (ESC,) * 5 + (PIR,) * 5 + (TIG, SK) + (MER,) * 2
ADVANCED_EXTRA: tuple[Card, ...] = (LOOT, LOOT, KRAKEN, WHALE)

#: Every card, hand and table cards alike, by name (``"Y14"``, ``"TIG"``, ``"TIG:pirate"``).
CARDS: dict[str, Card] = {
    card.name: card for card in BASE_DECK + ADVANCED_EXTRA + (TIG_PIRATE, TIG_ESCAPE)
}
_POSITION = attrgetter("position")
#: The table card of each play action (``"play:TIG"`` is not an action).
PLAYS: dict[str, Card] = {card.action: card for card in CARDS.values() if card is not TIG}


def card_named(name: str) -> Card:
    """The card called ``name`` (``"Y14"``, ``"TIG"``, ``"TIG:pirate"``)."""
    return CARDS[name]


def in_hand_order(cards: Iterable[Card]) -> list[Card]:
    """The cards sorted in hand order: green, yellow, purple, black by rank, then ``ESC``,
    ``PIR``, ``TIG``, ``SK``, ``MER``, ``LOOT``, ``KRAKEN``, ``WHALE``."""
    return sorted(cards, key=_POSITION)


def names(cards: Iterable[Card]) -> tuple[str, ...]:
    """The names of the cards, in order."""
    return tuple([card.name for card in cards])


def deck(advanced: bool) -> tuple[Card, ...]:
    """The full deck in hand order (70 cards, or 74 with ``advanced``)."""
    return BASE_DECK + ADVANCED_EXTRA if advanced else BASE_DECK


def cards_in_round(round_: int, players: int) -> int:
    """Cards dealt to each player in round ``round_`` (1-based): min(round, 70 // players)."""
    return min(round_, len(BASE_DECK) // players)


def hand_card(card: Card) -> Card:
    """The hand card a table card was played from."""
    return card.held  # type: ignore[return-value]


class Hand:
    """One seat's hand: its cards in hand order, with what the rules and the views ask of a
    hand kept up to date as cards leave it: the card names (as views show them), the suit of
    each numbered card, one letter each (``"GGYB"``: in hand order the numbered cards come
    first, by suit, so a suit is one run of letters; to follow suit, rule 5) and the play
    actions its cards offer, identical cards once, in hand order. The lists and tuples it
    hands out are never changed afterwards."""

    __slots__ = ("cards", "names", "suits", "actions")

    def __init__(self, cards: Iterable[Card]) -> None:
        self.cards = in_hand_order(cards)
        names, suits, actions = [], "", []
        last = None
        for card in self.cards:  # (identical cards are neighbours in hand order)
            names.append(card.name)
            if card.suit is not None:  # a numbered card: unique
                suits += card.suit
                actions.append(card.action)
            elif card is not last:
                actions += card.plays
            last = card
        self.names, self.suits, self.actions = tuple(names), suits, actions

    def __iter__(self) -> Iterator[Card]:
        return iter(self.cards)

    def __len__(self) -> int:
        return len(self.cards)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Hand) and self.cards == other.cards

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Hand({' '.join(self.names)})"

    def following(self, lead: str) -> list[str]:
        """The play actions of the cards that follow ``lead``, a suit the hand holds: its
        numbered cards of that suit and every special card (rule 5). The numbered cards come
        first, one action each, so those of ``lead`` are the slice of its run of letters, and
        the special cards' actions the slice after every letter."""
        suits, actions = self.suits, self.actions
        return actions[suits.find(lead) : suits.rfind(lead) + 1] + actions[len(suits) :]

    def remove(self, card: Card) -> None:
        """Take the card played as ``card`` out of the hand (the Tigress, as a Pirate or as an
        Escape, is the Tigress in the hand)."""
        card = card.held  # type: ignore[assignment]
        cards = self.cards
        at = cards.index(card)
        del cards[at]
        names = self.names
        self.names = names[:at] + names[at + 1 :]
        if card.suit is not None:  # a numbered card: unique, its action at its place
            self.suits = self.suits.replace(card.suit, "", 1)  # (its letters are alike)
            actions = self.actions.copy()
            del actions[at]
            self.actions = actions
        elif card not in cards:  # the last copy of a special card: its play actions go
            actions = self.actions
            first = actions.index(card.plays[0])
            self.actions = actions[:first] + actions[first + len(card.plays) :]

    def copy(self) -> Hand:
        """An independent copy."""
        other = Hand.__new__(Hand)
        other.cards = list(self.cards)
        other.names, other.suits, other.actions = self.names, self.suits, self.actions
        return other


class Trick:
    """The table cards of a trick in play order, with what the rules and the views ask of it
    kept up to date as cards are played: its lead suit so far (rule 5) and the card names."""

    __slots__ = ("cards", "names", "lead_suit", "open")

    def __init__(self, cards: Iterable[Card] = ()) -> None:
        self.cards: list[Card] = []
        self.names: tuple[str, ...] = ()
        self.lead_suit: str | None = None
        #: Whether the lead suit is still open: only escapes (and Loot) were played so far.
        self.open = True
        for card in cards:
            self.add(card)

    def add(self, card: Card) -> None:
        """``card`` is played to the trick. While the lead suit is open, a numbered card sets
        it and a character, the Kraken or the White Whale leaves the trick without one
        (``lead_suit``, rule 5); once settled, later cards keep it."""
        self.cards.append(card)
        self.names += (card.name,)
        if self.open:
            if card.suit is not None:
                self.lead_suit, self.open = card.suit, False
            elif card.kind in NO_LEAD_SUIT:
                self.open = False

    def clear(self) -> None:
        """The cards are taken off the table: the trick is empty, its lead suit open."""
        self.cards = []
        self.names = ()
        self.lead_suit = None
        self.open = True

    def copy(self) -> Trick:
        """An independent copy."""
        other = Trick.__new__(Trick)
        other.cards, other.names = list(self.cards), self.names
        other.lead_suit, other.open = self.lead_suit, self.open
        return other


def draw(rng: random.Random, cards: Sequence[Card], count: int) -> tuple[list[Card], list[Card]]:
    """``count`` cards drawn uniformly at random without replacement from ``cards``, and the
    cards left (in no particular order).

    A partial Fisher-Yates shuffle whose choices are the mixed-radix digits of one random
    number (64 spare bits keep the bias of the last digits below 2**-64). Seeds of recorded
    games depend on this exact use of the generator, so it must not change.
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
    return out, pool[:left]


def lead_suit(trick: Sequence[Card]) -> str | None:
    """The lead suit of a trick so far (rule 5): the suit of its first numbered card, unless a
    character, the Kraken or the White Whale came first; escapes are transparent."""
    for card in trick:
        if card.suit is not None:
            return card.suit
        if card.kind in NO_LEAD_SUIT:
            return None
    return None


def _highest(trick: Sequence[Card], suit: str) -> int | None:
    """Index of the highest card of ``suit`` in the trick, or None."""
    best = None
    for i, card in enumerate(trick):
        if card.suit == suit and (best is None or card.rank > trick[best].rank):
            best = i
    return best


def ordinary_winner(trick: Sequence[Card]) -> int:
    """Index of the winning card when no Kraken or White Whale acts (rules 7.1 to 7.7)."""
    kinds = [card.kind for card in trick]
    if Kind.SKULL_KING in kinds:
        if Kind.MERMAID in kinds:
            return kinds.index(Kind.MERMAID)  # 7.1
        return kinds.index(Kind.SKULL_KING)  # 7.2
    if Kind.PIRATE in kinds:
        return kinds.index(Kind.PIRATE)  # 7.3
    if Kind.MERMAID in kinds:
        return kinds.index(Kind.MERMAID)  # 7.4
    black = _highest(trick, BLACK)
    if black is not None:
        return black  # 7.5
    suit = lead_suit(trick)
    if suit is not None:
        return _highest(trick, suit)  # type: ignore[return-value]  # 7.6
    return 0  # 7.7: only escapes, the first card


class TrickResult(NamedTuple):
    """How a complete trick ended.

    ``winner`` is the index in the trick of the winning card (None: nobody wins, Kraken or an
    empty White Whale trick); ``leader`` the index of the card whose player leads next;
    ``whale`` is True when a White Whale acted.
    """

    winner: int | None
    leader: int
    whale: bool = False


#: The cards that change how a trick is judged (rules 8 to 10).
ACTORS = frozenset((KRAKEN, WHALE))

#: The result of an ordinary trick (no Kraken, no White Whale), by the winning card's index.
ORDINARY_RESULTS = tuple(TrickResult(index, index) for index in range(8))


def whale_winner(trick: Sequence[Card]) -> int | None:
    """Rule 9: index of the highest number whatever its suit (ties to the first played), or
    None if the trick has no numbered card."""
    best = None
    for i, card in enumerate(trick):
        if card.suit is not None and (best is None or card.rank > trick[best].rank):
            best = i
    return best


def _winner_without(trick: Sequence[Card], removed: set[int]) -> int | None:
    """Index (in ``trick``) of the ordinary winner once the ``removed`` indexes are taken out."""
    kept = [i for i in range(len(trick)) if i not in removed]
    if not kept:
        return None
    return kept[ordinary_winner([trick[i] for i in kept])]


def judge(trick: Sequence[Card]) -> TrickResult:
    """Judge a complete trick given its table cards in play order (index 0 led)."""
    if ACTORS.isdisjoint(trick):
        return ORDINARY_RESULTS[ordinary_winner(trick)]
    kraken = trick.index(KRAKEN) if KRAKEN in trick else -1
    whale = trick.index(WHALE) if WHALE in trick else -1
    if kraken > whale:  # rules 8 and 10: the Kraken acts (alone, or played after the Whale)
        removed = {kraken} if whale < 0 else {kraken, whale}
        leader = _winner_without(trick, removed)
        return TrickResult(None, 0 if leader is None else leader)
    winner = whale_winner(trick)  # rules 9 and 10: the Whale acts; an earlier Kraken escapes
    return TrickResult(winner, whale if winner is None else winner, whale=True)


def capture_bonus(trick: Sequence[Card], winner: int) -> int:
    """Bonus points for capturing the cards of a trick won by the card at index ``winner``.

    +10 for each green, yellow or purple 14 and +20 for the black 14; +20 for each Mermaid
    taken by a Pirate; +30 for each Pirate taken by the Skull King; +40 for taking the Skull
    King with a Mermaid."""
    bonus = 0
    for card in trick:
        if card.rank == 14:
            bonus += 20 if card.suit == BLACK else 10
    won_by = trick[winner].kind
    if won_by == Kind.PIRATE:
        bonus += 20 * trick.count(MER)
    elif won_by == Kind.SKULL_KING:
        bonus += 30 * (trick.count(PIR) + trick.count(TIG_PIRATE))
    elif won_by == Kind.MERMAID and SK in trick:
        bonus += 40
    return bonus


def loot_alliances(
    seats: Sequence[int], trick: Sequence[Card], result: TrickResult
) -> list[list[int]]:
    """Rule 11: Loot alliances ``[loot player, trick winner]`` formed by a judged trick."""
    if result.winner is None or result.whale:
        return []
    winner = seats[result.winner]
    return [
        [seats[i], winner] for i, card in enumerate(trick) if card is LOOT and seats[i] != winner
    ]


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


def deal_constrained(
    pool: Sequence[Card], sizes: Sequence[int], voids: Sequence[set[str]], rng: random.Random
) -> list[list[Card]]:
    """Deal ``pool`` at random into piles of ``sizes`` so that no pile gets a suit it is void in.

    ``voids[i]`` holds the suits pile ``i`` may not receive. A solution must exist (the caller
    deals from a real state). Cards of constrained suits are placed one by one at a random pile
    (weighted by room left), keeping Hall's condition true so the rest stays dealable; the other
    cards then fill the room left at random: the piles but the last draw theirs, the last pile
    takes the rest. A pile's cards come in no particular order.
    """
    caps = list(sizes)
    piles: list[list[Card]] = [[] for _ in caps]
    suits = sorted(set().union(*voids), key=SUITS.index)
    tied = [card for card in pool if card.suit in suits]
    free = [card for card in pool if card.suit not in suits]
    rng.shuffle(tied)
    demand = {suit: 0 for suit in suits}
    for card in tied:
        demand[card.suit] += 1  # type: ignore[index]
    subsets = [
        [suit for b, suit in enumerate(suits) if mask >> b & 1]
        for mask in range(1, 1 << len(suits))
    ]
    for card in tied:
        suit = card.suit
        demand[suit] -= 1  # type: ignore[index]
        candidates = [i for i, room in enumerate(caps) if room and suit not in voids[i]]
        while True:
            pile = _weighted_pick(candidates, caps, rng)
            caps[pile] -= 1
            if _hall_ok(subsets, demand, caps, voids):
                break
            caps[pile] += 1
            candidates.remove(pile)
        piles[pile].append(card)
    dealt, rest = draw(rng, free, len(free) - caps[-1])
    start = 0
    for pile, room in zip(piles, caps[:-1]):
        pile.extend(dealt[start : start + room])
        start += room
    piles[-1].extend(rest)
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


def _hall_ok(
    subsets: list[list[str]], demand: dict[str, int], caps: list[int], voids: Sequence[set[str]]
) -> bool:
    """Hall's condition: every set of suits fits in the piles that may hold one of them."""
    for subset in subsets:
        need = sum(demand[s] for s in subset)
        if need and need > sum(
            room for room, void in zip(caps, voids) if not void.issuperset(subset)
        ):
            return False
    return True
