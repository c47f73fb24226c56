"""Skull King strategy bot: bids from hand strength, then plays to make the bid exactly.

Stateless: every decision comes from the view alone. Card counting uses the cards seen this
round (own hand, tricks played, the trick on the table); everything else is "unseen".

- Bid: the expected number of tricks, the sum over the hand of the chance that each card,
  led into ``players - 1`` unseen cards, is not beaten (numbered cards are discounted because
  they often are not the lead suit), rounded.
- Play while short of the bid: win with the cheapest card likely to hold the trick (the last
  seat just needs a card that wins now); when it cannot, throw the weakest card (a low number
  before an Escape, which is worth keeping to duck later).
- Play once the bid is made (or when bidding zero): play the strongest card that loses now
  (shedding danger), the Tigress as an Escape, the Kraken to sink a trick; when every card
  wins, the last seat gets rid of its strongest card, others play the likeliest to be beaten.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from arena.games.skull_king_cards import (
    BLACK,
    CARDS,
    ESC,
    KRAKEN,
    LOOT,
    MER,
    PIR,
    PLAYS,
    SK,
    TIG,
    TIG_ESCAPE,
    TIG_PIRATE,
    WHALE,
    Card,
    deck,
    hand_card,
    judge,
)

GAMES = ("skull-king",)

#: Numbered cards are not always the lead suit: their chance to win is discounted (less so
#: with two players, where a random-ish opponent rarely holds the suit or a trump).
NUMBER_DISCOUNT = 0.7
NUMBER_DISCOUNT_TWO_PLAYERS = 0.9
#: A card counts as likely to hold a trick from this chance on.
HOLD = 0.55
#: Static order of card strength, used to pick the cheapest winner or the card to shed.
STRENGTH: dict[Card, float] = {
    SK: 100,
    PIR: 90,
    TIG_PIRATE: 89,
    MER: 80,
    WHALE: 30,
    KRAKEN: 1,
    ESC: 0,
    LOOT: 0,
    TIG_ESCAPE: 0.5,
}
#: Cards that never win a trick on their own.
NEVER_WIN = frozenset({ESC, LOOT, KRAKEN, TIG_ESCAPE})
CHARACTERS = (PIR, TIG, SK, MER)


def strength(card: Card) -> float:
    """Higher means more likely to win a trick."""
    if card.suit is not None:
        return 40 + card.rank - 1 if card.suit == BLACK else card.rank - 1
    return STRENGTH[card]


def unseen_cards(view: dict[str, Any]) -> Counter[Card]:
    """Kinds this seat has not seen this round: the deck minus its hand and all cards played."""
    unseen = Counter(deck(bool(view.get("advanced"))))
    seen = [CARDS[n] for n in view["hand"]]
    for trick in view["tricks"]:
        seen += [CARDS[n] for n in trick["cards"]]
    seen += [CARDS[n] for n in view["trick"]]
    for card in seen:
        kind = hand_card(card)
        if unseen[kind] > 0:
            unseen[kind] -= 1
    return unseen


def beaters(cards: Sequence[Card], unseen: Counter[Card]) -> int:
    """How many unseen cards would take a trick the last card of ``cards`` is winning."""
    mine = cards[-1]
    if mine == SK:
        return unseen[MER]
    if mine in (PIR, TIG_PIRATE):
        return unseen[SK]
    if mine == MER:
        return unseen[PIR] + unseen[TIG]
    characters = sum(unseen[c] for c in CHARACTERS)
    if mine.suit is not None:
        higher = sum(unseen[CARDS[f"{mine.suit}{r}"]] for r in range(mine.rank + 1, 15))
        blacks = 0 if mine.suit == BLACK else sum(unseen[CARDS[f"B{r}"]] for r in range(1, 15))
        return higher + blacks + characters
    # an escape-like card winning: anything but another escape beats it
    return sum(count for kind, count in unseen.items() if kind not in NEVER_WIN)


def hold_chance(cards: Sequence[Card], unseen: Counter[Card], later: int) -> float:
    """Chance that the last card of ``cards`` (winning now) still wins after ``later`` cards."""
    total = sum(unseen.values())
    if later <= 0 or total == 0:
        return 1.0
    if KRAKEN in cards or WHALE in cards:
        return 0.5
    return max(0.0, 1.0 - beaters(cards, unseen) / total) ** later


def wins_now(cards: list[Card]) -> bool:
    """Whether the last card of ``cards`` is winning the trick so far."""
    return judge(cards).winner == len(cards) - 1


def card_value(card: Card, unseen: Counter[Card], players: int) -> float:
    """Expected tricks from one card of the hand (for the bid)."""
    if card in NEVER_WIN:
        return 0.0
    if card is TIG:
        card = TIG_PIRATE
    chance = hold_chance([card], unseen, players - 1)
    if card.suit is None:
        return chance
    return chance * (NUMBER_DISCOUNT_TWO_PLAYERS if players == 2 else NUMBER_DISCOUNT)


def choose_bid(view: dict[str, Any], legal: list[str]) -> str:
    unseen = unseen_cards(view)
    expected = sum(card_value(CARDS[n], unseen, view["players"]) for n in view["hand"])
    bid = min(int(expected + 0.5), view["cards"])
    action = f"bid:{bid}"
    return action if action in legal else legal[0]


def choose_play(view: dict[str, Any], legal: list[str]) -> str:
    seat, players = view["seat"], view["players"]
    need = view["bids"][seat] - view["won"][seat]
    left = len(view["hand"])
    trick = [CARDS[n] for n in view["trick"]]
    later = players - 1 - len(trick)
    unseen = unseen_cards(view)
    options = []
    for action in legal:
        card = PLAYS[action]
        cards = trick + [card]
        winning = wins_now(cards)
        hold = hold_chance(cards, unseen, later) if winning else 0.0
        options.append((action, card, winning, hold))
    if need > 0:
        return _take(options, need >= left, later == 0)
    return _duck(options, later == 0)


def _take(options: list[tuple[str, Card, bool, float]], urgent: bool, last: bool) -> str:
    """Win this trick cheaply if a card is likely to hold; otherwise throw the weakest card."""
    likely = [o for o in options if o[2] and (last or o[3] >= HOLD)]
    if likely:
        return min(likely, key=lambda o: strength(o[1]))[0]
    winning = [o for o in options if o[2]]
    if urgent and winning:
        return max(winning, key=lambda o: o[3])[0]
    numbered = [o for o in options if o[1].suit is not None]
    pool = numbered or options
    return min(pool, key=lambda o: strength(o[1]))[0]


def _duck(options: list[tuple[str, Card, bool, float]], last: bool) -> str:
    """Lose this trick, shedding the most dangerous card that loses now."""
    losing = [o for o in options if not o[2]]
    if losing:
        return max(losing, key=lambda o: strength(o[1]))[0]
    if last:  # the trick is ours anyway: get rid of the strongest card
        return max(options, key=lambda o: strength(o[1]))[0]
    return min(options, key=lambda o: (o[3], strength(o[1])))[0]


def act(view: dict, legal: list[str]) -> str:
    """The bot's decision for one turn."""
    if view["phase"] == "bidding":
        return choose_bid(view, legal)
    return choose_play(view, legal)


if __name__ == "__main__":
    from protocol.sdk import run_bot

    run_bot(act, name="skull_king_bidder")
