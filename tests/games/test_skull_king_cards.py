"""Skull King card logic: every trick-winner rule, every test vector of the rules file, bonuses,
Loot alliances, Kraken and White Whale, and round scoring (standard and rascal)."""

from __future__ import annotations

import copy
import pickle
import random
from collections import Counter

import pytest

from arena.games import skull_king_cards as sk
from arena.games.skull_king_cards import (
    CARDS,
    Card,
    capture_bonus,
    cards_in_round,
    deal_constrained,
    deck,
    judge,
    loot_alliances,
    rascal_points,
    standard_points,
)


def table(*names: str) -> tuple[Card, ...]:
    """The cards of the names, in order."""
    return tuple(CARDS[n] for n in names)


def winner(*names: str) -> int | None:
    """Index of the winning card of a trick given by card names."""
    return judge(table(*names)).winner


def leader(*names: str) -> int:
    """Index of the card whose player leads the next trick."""
    return judge(table(*names)).leader


# ------------------------------------------------------------------ deck and deal sizes
def test_standard_deck_has_70_cards() -> None:
    cards = Counter(card.name for card in deck(False))
    assert sum(cards.values()) == 70
    for suit in "GYPB":
        assert all(cards[f"{suit}{rank}"] == 1 for rank in range(1, 15))
    assert (cards["ESC"], cards["PIR"], cards["TIG"], cards["SK"], cards["MER"]) == (5, 5, 1, 1, 2)
    assert "LOOT" not in cards and "KRAKEN" not in cards and "WHALE" not in cards


def test_advanced_deck_adds_loot_kraken_whale() -> None:
    cards = Counter(card.name for card in deck(True))
    assert sum(cards.values()) == 74
    assert (cards["LOOT"], cards["KRAKEN"], cards["WHALE"]) == (2, 1, 1)


@pytest.mark.parametrize("players", range(2, 9))
def test_cards_per_round(players: int) -> None:
    dealt = [cards_in_round(r, players) for r in range(1, 11)]
    if players == 8:
        assert dealt == [1, 2, 3, 4, 5, 6, 7, 8, 8, 8]
    else:
        assert dealt == list(range(1, 11))


# ------------------------------------------------------------------ test vectors of the rules file
def test_vector_1_highest_of_lead_suit() -> None:
    assert winner("G7", "G12", "G8") == 1


def test_vector_2_off_suit_does_not_win() -> None:
    assert winner("Y12", "Y5", "P14") == 0


def test_vector_3_black_trumps() -> None:
    assert winner("Y12", "Y5", "B2") == 2


def test_vector_4_mermaid_takes_skull_king_for_50() -> None:
    trick = table("Y14", "PIR", "SK", "MER")
    assert judge(trick).winner == 3
    assert capture_bonus(trick, 3) == 50
    assert standard_points(1, 1, 4, 50) == 70


def test_vector_5_white_whale_highest_number() -> None:
    assert winner("B2", "PIR", "Y14", "SK", "WHALE") == 2


def test_vector_6_kraken_after_whale() -> None:
    result = judge(table("Y12", "B3", "WHALE", "KRAKEN"))
    assert result.winner is None
    assert result.leader == 1  # P2 played the black 3, which wins with both removed


def test_vector_scores() -> None:
    assert standard_points(3, 3, 5, 0) == 60
    assert standard_points(2, 4, 5, 0) == -20
    assert standard_points(0, 0, 7, 0) == 70
    assert standard_points(0, 2, 9, 0) == -90
    assert rascal_points(2, 2, 4, 0, 0) == 40
    assert rascal_points(2, 3, 4, 0, 0) == 20
    assert rascal_points(2, 1, 4, 0, 0) == 20
    assert rascal_points(2, 4, 4, 0, 0) == 0
    assert rascal_points(2, 0, 4, 0, 0) == 0


# ------------------------------------------------------------------ the winner rules in order
@pytest.mark.parametrize(
    "trick, expected",
    [
        # 1. Mermaid and Skull King: the first Mermaid, even with Pirates, in any order
        (("SK", "PIR", "MER"), 2),
        (("PIR", "MER", "SK", "MER"), 1),
        (("MER", "TIG:pirate", "SK"), 0),
        # 2. Skull King beats Pirates and numbers
        (("PIR", "SK", "B14"), 1),
        (("TIG:pirate", "PIR", "SK"), 2),
        # 3. the first Pirate (Tigress as Pirate counts)
        (("PIR", "PIR", "B14"), 0),
        (("Y3", "TIG:pirate", "PIR"), 1),
        (("MER", "PIR", "TIG:pirate"), 1),
        # 4. the first Mermaid
        (("B14", "MER", "MER"), 1),
        (("MER", "B14", "MER"), 0),
        # 5. the highest black
        (("G14", "B1", "B9", "B4"), 2),
        (("B2", "Y14"), 0),
        # 6. the highest of the lead suit
        (("P3", "P9", "G14", "Y14"), 1),
        # 7. only escapes: the first card played
        (("ESC", "ESC"), 0),
        (("TIG:escape", "ESC", "ESC"), 0),
        (("ESC", "TIG:escape"), 0),
    ],
)
def test_trick_winner_rules(trick: tuple[str, ...], expected: int) -> None:
    assert winner(*trick) == expected
    assert leader(*trick) == expected


def test_escape_lead_is_transparent() -> None:
    assert winner("ESC", "G3", "Y14") == 1  # green is the lead suit
    assert winner("ESC", "TIG:escape", "P2", "P5", "G14") == 3
    assert winner("ESC", "G3", "ESC") == 1


def test_tigress_as_escape_loses_to_any_number() -> None:
    assert winner("TIG:escape", "G1") == 1
    assert winner("G1", "TIG:escape") == 0


def test_character_lead_means_no_lead_suit() -> None:
    for name in ("PIR", "MER", "SK", "TIG:pirate", "KRAKEN", "WHALE"):
        assert sk.lead_suit(table(name, "B4", "G2")) is None
    for name in ("ESC", "TIG:escape", "LOOT"):
        assert sk.lead_suit(table(name)) is None
        assert sk.lead_suit(table(name, "ESC", "B4", "G2")) == "B"
    assert sk.lead_suit(table("Y1", "PIR", "G2")) == "Y"
    assert sk.lead_suit(()) is None


def test_a_trick_keeps_the_lead_suit_of_its_cards_so_far() -> None:
    """``Trick`` settles its lead suit card by card; after every card it is ``lead_suit`` of
    the cards so far, and so in its copies and in a trick built from those cards."""
    rng = random.Random(5)
    cards = [card for card in CARDS.values() if card is not CARDS["TIG"]]
    tricks = [table(*names) for names in (("ESC", "LOOT", "TIG:escape", "G2"), ("ESC", "SK"))]
    tricks += [tuple(rng.choice(cards) for _ in range(rng.randint(1, 8))) for _ in range(400)]
    for played in tricks:
        trick = sk.Trick()
        for at, card in enumerate(played):
            trick.add(card)
            assert trick.lead_suit == sk.lead_suit(played[: at + 1]), played[: at + 1]
            assert trick.names == tuple(card.name for card in played[: at + 1])
        assert sk.Trick(played).lead_suit == trick.lead_suit
        after = table("ESC", "B14", "PIR")  # (cards added to a copy do not change the trick)
        copied = trick.copy()
        for card in after:
            copied.add(card)
        assert copied.lead_suit == sk.lead_suit(played + after)
        assert trick.lead_suit == sk.lead_suit(played) and len(trick.cards) == len(played)


# ------------------------------------------------------------------ Kraken and White Whale
def test_kraken_alone_nobody_wins_would_be_winner_leads() -> None:
    result = judge(table("Y12", "KRAKEN", "B3", "Y13"))
    assert result.winner is None and result.leader == 2
    assert judge(table("KRAKEN", "ESC", "ESC")).leader == 1  # first card left
    assert judge(table("KRAKEN", "Y5", "G10")).leader == 1  # yellow leads once judged again
    assert judge(table("PIR", "KRAKEN", "SK")).leader == 2


def test_whale_alone_highest_number_any_suit() -> None:
    assert winner("Y12", "WHALE", "G13", "B2") == 2
    assert winner("G13", "WHALE", "Y13") == 0  # ties to the first played
    assert winner("SK", "MER", "P1", "WHALE") == 2  # specials are void
    assert judge(table("Y12", "WHALE", "G13")).whale


def test_whale_without_numbers_nobody_wins_whale_leads() -> None:
    result = judge(table("PIR", "WHALE", "SK"))
    assert result.winner is None and result.leader == 1


def test_kraken_then_whale_whale_acts() -> None:
    result = judge(table("KRAKEN", "Y5", "WHALE", "G9"))
    assert result.winner == 3 and result.whale
    result = judge(table("KRAKEN", "WHALE"))
    assert result.winner is None and result.leader == 1


def test_whale_then_kraken_kraken_acts() -> None:
    result = judge(table("WHALE", "KRAKEN"))
    assert result.winner is None and result.leader == 0  # no other card: the leader again
    result = judge(table("WHALE", "SK", "KRAKEN", "MER"))
    assert result.winner is None and result.leader == 3  # Mermaid beats Skull King


# ------------------------------------------------------------------ capture bonuses
@pytest.mark.parametrize(
    "trick, won_by, bonus",
    [
        (("G14", "G2"), 0, 10),
        (("Y3", "Y14"), 1, 10),
        (("P14", "PIR"), 1, 10),
        (("B14", "PIR"), 1, 20),
        (("Y2", "B14"), 1, 20),
        (("G14", "Y14", "P14", "B14", "SK"), 4, 50),
        (("PIR", "MER"), 0, 20),
        (("MER", "TIG:pirate", "MER"), 1, 40),
        (("PIR", "SK"), 1, 30),
        (("PIR", "TIG:pirate", "SK", "PIR"), 2, 90),
        (("TIG:escape", "SK"), 1, 0),
        (("SK", "MER"), 1, 40),
        (("PIR", "SK", "MER", "PIR"), 2, 40),  # only the Mermaid's bonus
        (("MER", "MER"), 0, 0),
        (("ESC", "ESC"), 0, 0),
    ],
)
def test_capture_bonus(trick: tuple[str, ...], won_by: int, bonus: int) -> None:
    assert winner(*trick) == won_by
    assert capture_bonus(table(*trick), won_by) == bonus


def test_whale_trick_keeps_only_fourteen_bonuses() -> None:
    trick = table("PIR", "MER", "Y14", "WHALE")
    result = judge(trick)
    assert result.winner == 2
    assert capture_bonus(trick, result.winner) == 10


# ------------------------------------------------------------------ Loot alliances
def test_loot_allies_with_the_winner() -> None:
    trick = table("Y5", "LOOT", "Y9", "LOOT")
    result = judge(trick)
    assert result.winner == 2
    assert loot_alliances((0, 1, 2, 3), trick, result) == [[1, 2], [3, 2]]


def test_loot_no_alliance_with_itself_nobody_or_whale() -> None:
    trick = table("LOOT", "ESC", "ESC")
    result = judge(trick)
    assert result.winner == 0
    assert loot_alliances((2, 0, 1), trick, result) == []
    trick = table("Y5", "LOOT", "KRAKEN")
    assert loot_alliances((0, 1, 2), trick, judge(trick)) == []
    trick = table("Y5", "LOOT", "WHALE")
    assert judge(trick).winner == 0
    assert loot_alliances((0, 1, 2), trick, judge(trick)) == []


# ------------------------------------------------------------------ round scoring
@pytest.mark.parametrize(
    "bid, won, cards, bonus, points",
    [
        (1, 1, 1, 0, 20),
        (1, 1, 1, 40, 60),
        (2, 1, 5, 40, -10),  # missed: no bonus
        (3, 0, 5, 30, -30),
        (0, 0, 3, 20, 50),  # a Loot bonus with an exact zero bid
        (0, 1, 3, 20, -30),
        (0, 3, 10, 0, -100),
    ],
)
def test_standard_points(bid: int, won: int, cards: int, bonus: int, points: int) -> None:
    assert standard_points(bid, won, cards, bonus) == points


@pytest.mark.parametrize(
    "bid, won, cards, bonus, loot, points",
    [
        (2, 2, 6, 30, 20, 110),
        (2, 3, 6, 30, 20, 45),  # off by one: half of potential and bonus, no Loot
        (0, 1, 5, 0, 0, 25),
        (0, 2, 5, 10, 0, 0),
        (0, 0, 5, 0, 20, 70),
    ],
)
def test_rascal_points(bid: int, won: int, cards: int, bonus: int, loot: int, points: int) -> None:
    assert rascal_points(bid, won, cards, bonus, loot) == points


# ------------------------------------------------------------------ names and actions
def test_hand_order_and_identical_cards() -> None:
    hand = sk.in_hand_order(table("MER", "ESC", "TIG", "ESC", "PIR", "B1", "Y3", "MER", "G14"))
    assert sk.names(hand) == ("G14", "Y3", "B1", "ESC", "ESC", "PIR", "TIG", "MER", "MER")
    assert hand[3] is hand[4] is sk.ESC  # identical cards are one value
    assert [play for card in dict.fromkeys(hand) for play in card.plays] == [
        "play:G14",
        "play:Y3",
        "play:B1",
        "play:ESC",
        "play:PIR",
        "play:TIG:pirate",
        "play:TIG:escape",
        "play:MER",
    ]
    assert sk.names(sk.in_hand_order(deck(True))) == sk.names(deck(True))


def test_action_and_name_tables_agree() -> None:
    for action, card in sk.PLAYS.items():
        assert action == card.action == "play:" + card.name
        assert sk.CARDS[card.name] is card
        assert sk.hand_card(card).plays.count(action) == 1
    assert "play:TIG" not in sk.PLAYS
    assert set(sk.PLAYS) == {play for card in deck(True) for play in card.plays}


def test_cards_keep_their_identity_through_copies() -> None:
    trick = list(table("TIG:pirate", "ESC", "Y4"))
    assert copy.deepcopy(trick) == trick and copy.deepcopy(trick)[0] is sk.TIG_PIRATE
    assert pickle.loads(pickle.dumps(trick))[1] is sk.ESC


# ------------------------------------------------------------------ constrained deals
def test_deal_constrained_respects_voids_and_sizes() -> None:
    rng = random.Random(5)
    pool = list(deck(False))
    sizes = [10, 10, 10, 40]
    voids = [{"G", "Y"}, {"Y", "P", "B"}, {"G", "P", "B"}, set()]
    for _ in range(30):
        piles = deal_constrained(pool, sizes, voids, rng)
        assert [len(p) for p in piles] == sizes
        assert Counter(k for p in piles for k in p) == Counter(pool)
        for pile, void in zip(piles, voids):
            assert not any(card.suit in void for card in pile)


def test_deal_constrained_tight_case_always_succeeds() -> None:
    rng = random.Random(9)
    # green must go to pile 1 or the undealt pile, yellow to pile 0 or the undealt pile
    pool = list(table("G1", "G2", "G3", "Y1", "Y2", "Y3"))
    for _ in range(200):
        piles = deal_constrained(pool, [2, 2, 2], [{"G"}, {"Y"}, set()], rng)
        assert not any(card.suit == "G" for card in piles[0])
        assert not any(card.suit == "Y" for card in piles[1])


def test_deal_constrained_deals_free_cards_uniformly() -> None:
    rng = random.Random(11)
    pool = list(table("G1", "G2", "Y1", "Y2", "P1", "ESC", "SK", "MER"))
    first: Counter = Counter()
    pairs: Counter = Counter()
    deals = 4000
    for _ in range(deals):
        small, single, rest = deal_constrained(pool, [2, 1, 5], [set(), set(), set()], rng)
        assert len(rest) == 5 and Counter(small + single + rest) == Counter(pool)
        first.update(small)
        pairs[frozenset(c.name for c in small)] += 1
    for card in pool:  # each card is in the first pile of 2 (of 8) a quarter of the time
        assert abs(first[card] / deals - 0.25) < 0.03, card
    assert len(pairs) == 28  # every pair of cards is dealt to it
