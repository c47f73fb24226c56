"""Skull King engine scenarios: deals, dealer and lead, simultaneous bids, following suit,
Tigress, trick play and leads, every bonus with an exact and a missed bid, Loot, Kraken and
White Whale in play, rascal scoring, views, resampling, 2 and 8 players."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

import msgpack
import pytest

from arena.errors import GameError, IllegalAction, NotYourTurn, OptionError
from arena.games import get_game
from arena.games.skull_king import SkullKingState
from arena.games.skull_king_cards import cards_in_round

GAME = get_game("skull-king")


def start(
    hands: Sequence[Sequence[str]], round_: int = 1, *, seed: int = 0, **options: object
) -> SkullKingState:
    """A game whose current round is dealt ``hands`` (card names), before the bids."""
    state = GAME.new(len(hands), seed, options)
    assert isinstance(state, SkullKingState)
    state.rig_deal(hands, round_)
    return state


def bid(state: SkullKingState, *bids: int) -> None:
    state.apply({seat: f"bid:{b}" for seat, b in enumerate(bids)})


def play(state: SkullKingState, *cards: str) -> None:
    """Play ``cards`` in turn order, each by the seat to play."""
    for card in cards:
        state.apply({state.turn: f"play:{card}"})


def legal_cards(state: SkullKingState) -> list[str]:
    return [a.removeprefix("play:") for a in state.legal(state.turn)]


def random_game(players: int, seed: int, **options: object) -> SkullKingState:
    state = GAME.new(players, seed, options)
    rng = random.Random(seed)
    while not state.is_over():
        state.apply({s: rng.choice(state.legal(s)) for s in state.to_act()})
    return state


# ------------------------------------------------------------------ options and set-up
def test_options_and_player_counts() -> None:
    assert GAME.default_options == {"advanced": False, "scoring": "standard"}
    assert GAME.parse_options({"advanced": "true", "scoring": "rascal"}) == {
        "advanced": True,
        "scoring": "rascal",
    }
    with pytest.raises(OptionError):
        GAME.parse_options({"scoring": "pirate"})
    assert (GAME.min_players, GAME.max_players) == (2, 8)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6, 7, 8])
def test_deals_dealer_rotation_and_first_lead(players: int) -> None:
    state = random_game(players, players)
    deals = [e for e in state.events if e["type"] == "deal"]
    assert len(deals) == 10
    for round_, deal in enumerate(deals, start=1):
        cards = cards_in_round(round_, players)
        assert deal["round"] == round_ and deal["cards"] == cards
        assert deal["dealer"] == (players - 1 + round_ - 1) % players
        assert [len(h) for h in deal["hands"]] == [cards] * players
        assert not Counter(n for h in deal["hands"] for n in h) - Counter(
            card.name for card in state.deck
        )
    firsts = [state.events[i + 2] for i, e in enumerate(state.events) if e["type"] == "deal"]
    for deal, first in zip(deals, firsts):
        assert first["type"] == "play" and first["seat"] == (deal["dealer"] + 1) % players
    assert state.steps == GAME.max_steps(players, state.options)


def test_eight_players_rounds_nine_and_ten_deal_eight() -> None:
    state = random_game(8, 1)
    sizes = [e["cards"] for e in state.events if e["type"] == "deal"]
    assert sizes == [1, 2, 3, 4, 5, 6, 7, 8, 8, 8]
    assert GAME.max_steps(8, {}) == 10 + 8 * 52


def test_two_players_play_normal_rules() -> None:
    state = random_game(2, 3, advanced=True)
    assert [e["cards"] for e in state.events if e["type"] == "deal"] == list(range(1, 11))
    assert len(state.round_scores) == 10 and state.is_over()
    assert sorted(state.outcome().places) in ([1, 1], [1, 2])


def test_each_round_reshuffles_the_whole_deck() -> None:
    state = random_game(4, 8)
    deals = [{n for h in e["hands"] for n in h} for e in state.events if e["type"] == "deal"]
    # cards played in one round come back in later ones: the whole deck is dealt from again
    assert any(deals[r] & deals[r + 1] - {"ESC", "PIR", "MER"} for r in range(9))
    assert len(set().union(*deals)) > 40


# ------------------------------------------------------------------ simultaneous bidding
def test_bidding_is_simultaneous_and_hidden() -> None:
    state = start([["Y3", "G4", "PIR"], ["B2", "ESC", "MER"], ["SK", "P9", "Y11"]], round_=3)
    assert state.to_act() == (0, 1, 2)
    for seat in range(3):
        assert state.legal(seat) == ["bid:0", "bid:1", "bid:2", "bid:3"]
        view = state.view(seat)
        assert view["bids"] is None and view["phase"] == "bidding"
    with pytest.raises(IllegalAction):
        state.apply({0: "bid:4", 1: "bid:0", 2: "bid:0"})
    with pytest.raises(NotYourTurn):
        state.apply({0: "bid:1", 1: "bid:0"})
    bid(state, 1, 0, 2)
    for seat in range(3):
        assert state.view(seat)["bids"] == (1, 0, 2)
    assert state.to_act() == (state.turn,)
    assert state.turn == (state.dealer + 1) % 3


# ------------------------------------------------------------------ following suit
# Round 2 of 3 players: dealer seat 0, seat 1 leads, then seat 2, then seat 0.
def start3(
    hand1: list[str], hand2: list[str], hand0: list[str], **options: object
) -> SkullKingState:
    """Round 2 of a 3-player game with hands given in play order (seat 1 leads)."""
    state = start([hand0, hand1, hand2], round_=2, **options)
    bid(state, 0, 0, 0)
    assert state.dealer == 0 and state.turn == 1
    return state


def test_dealer_and_first_lead_by_round() -> None:
    for players, round_, dealer in ((3, 1, 2), (3, 2, 0), (3, 3, 1), (4, 2, 0), (2, 5, 1)):
        hands = [[f"G{i + 1}" for i in range(s * round_, (s + 1) * round_)] for s in range(players)]
        state = start(hands, round_=round_)
        assert state.dealer == dealer and state.turn == (dealer + 1) % players


def test_must_follow_the_lead_suit_with_numbered_cards() -> None:
    state = start3(["Y1", "PIR"], ["Y9", "G14"], ["Y3", "G4"])
    assert legal_cards(state) == ["Y1", "PIR"]
    play(state, "Y1")
    assert state.view(2)["lead_suit"] == "Y"
    assert legal_cards(state) == ["Y9"]
    with pytest.raises(IllegalAction):
        play(state, "G14")
    play(state, "Y9")
    assert legal_cards(state) == ["Y3"]


def test_not_holding_the_lead_suit_anything_goes() -> None:
    state = start3(["Y1", "PIR"], ["P9", "G14"], ["B3", "G4"])
    play(state, "Y1")
    assert legal_cards(state) == ["G14", "P9"]
    play(state, "P9")
    assert legal_cards(state) == ["G4", "B3"]


def test_holding_the_lead_suit_specials_stay_playable() -> None:
    state = start3(["Y1", "P2"], ["Y3", "ESC"], ["Y9", "G14"])
    play(state, "Y1")
    assert legal_cards(state) == ["Y3", "ESC"]
    play(state, "ESC")
    assert legal_cards(state) == ["Y9"]


def test_every_special_is_playable_when_holding_the_lead_suit() -> None:
    state = start(
        [["Y1", "ESC", "PIR", "G6"], ["G7", "LOOT", "KRAKEN", "WHALE"], ["Y5", "G5", "TIG", "SK"]],
        round_=4,
        advanced=True,
    )
    bid(state, 0, 0, 0)
    assert state.turn == 0  # round 4 of 3 players: dealer 2
    play(state, "Y1")
    assert legal_cards(state) == ["G7", "LOOT", "KRAKEN", "WHALE"]  # no yellow: anything
    play(state, "LOOT")
    assert legal_cards(state) == ["Y5", "TIG:pirate", "TIG:escape", "SK"]


def test_black_is_never_forced_unless_led() -> None:
    state = start3(["G9", "B1"], ["G1", "G2"], ["B14", "Y5"])
    play(state, "G9")
    assert legal_cards(state) == ["G1", "G2"]
    play(state, "G1")
    assert legal_cards(state) == ["Y5", "B14"]


def test_black_lead_must_be_followed() -> None:
    state = start3(["B1", "Y2"], ["B4", "G1"], ["B7", "G14"])
    play(state, "B1")
    assert legal_cards(state) == ["B4"]


@pytest.mark.parametrize("lead", ["ESC", "TIG:escape", "LOOT"])
def test_escape_lead_the_next_numbered_card_sets_the_suit(lead: str) -> None:
    state = start3([lead.split(":")[0], "G2"], ["Y4", "G1"], ["Y7", "P3"], advanced=True)
    play(state, lead)
    assert state.view(2)["lead_suit"] is None
    assert legal_cards(state) == ["G1", "Y4"]
    play(state, "Y4")
    assert state.view(0)["lead_suit"] == "Y"
    assert legal_cards(state) == ["Y7"]


def test_escapes_then_numbered_card_decides_the_lead() -> None:
    state = start3(["ESC", "P2"], ["ESC", "G1"], ["Y7", "G9"])
    play(state, "ESC")
    assert legal_cards(state) == ["G1", "ESC"]
    play(state, "ESC")
    assert legal_cards(state) == ["G9", "Y7"]
    play(state, "G9")
    assert state.won == [1, 0, 0] and state.turn == 0
    state = start3(["ESC", "G2"], ["ESC", "G1"], ["Y7", "G9"])
    play(state, "ESC", "G1")
    assert legal_cards(state) == ["G9"]


@pytest.mark.parametrize("lead", ["PIR", "MER", "SK", "TIG:pirate", "KRAKEN", "WHALE"])
def test_character_lead_means_no_suit_to_follow(lead: str) -> None:
    state = start3([lead.split(":")[0], "Y2"], ["Y4", "G1"], ["Y7", "P3"], advanced=True)
    play(state, lead, "Y4")
    assert state.view(0)["lead_suit"] is None
    assert legal_cards(state) == ["Y7", "P3"]


def test_escape_then_character_means_no_lead_suit() -> None:
    state = start3(["ESC", "Y2"], ["PIR", "G1"], ["Y7", "P3"])
    play(state, "ESC", "PIR")
    assert legal_cards(state) == ["Y7", "P3"]


# ------------------------------------------------------------------ actions
def test_identical_cards_are_one_action_and_tigress_two() -> None:
    state = start(
        [["ESC", "ESC", "ESC", "PIR", "PIR"], ["MER", "MER", "TIG", "G1", "Y1"]], round_=5
    )
    bid(state, 0, 0)
    assert state.turn == 0  # round 5 of 2 players: dealer 1
    assert legal_cards(state) == ["ESC", "PIR"]
    assert state.legal(1) == []
    play(state, "ESC")
    assert legal_cards(state) == ["G1", "Y1", "TIG:pirate", "TIG:escape", "MER"]


def test_last_escape_leaves_the_actions() -> None:
    state = start([["ESC", "ESC"], ["G1", "G2"]], round_=2)
    bid(state, 0, 0)
    assert state.turn == 1  # round 2 of 2 players: dealer 0
    play(state, "G1", "ESC")  # seat 1 wins and leads
    play(state, "G2")
    assert legal_cards(state) == ["ESC"]
    play(state, "ESC")
    assert state.phase == "bidding" and state.round == 3


# ------------------------------------------------------------------ tricks in play
def test_winner_takes_the_trick_and_leads_next() -> None:
    state = start([["Y12", "G1"], ["Y5", "G2"], ["B2", "G3"]], round_=2)
    bid(state, 0, 0, 2)
    play(state, "G2", "G3", "G1")  # seat 1 leads green 2, seat 2 wins
    assert state.won == [0, 0, 1] and state.turn == 2
    play(state, "B2", "Y12", "Y5")
    assert state.round == 3
    assert state.round_scores[-1] == (20, 20, 40)


def test_vector_4_in_play_mermaid_gets_fifty_bonus() -> None:
    hands = [["Y14"], ["PIR"], ["SK"], ["MER"]]
    for bids, points in (((0, 0, 0, 1), 70), ((0, 0, 0, 0), -10)):
        state = start(hands)
        bid(state, *bids)
        play(state, "Y14", "PIR", "SK", "MER")
        assert state.round_scores[0][3] == points


def test_vector_6_in_play_kraken_nobody_wins_and_would_be_winner_leads() -> None:
    state = start(
        [["KRAKEN", "G4"], ["Y12", "G1"], ["B3", "G2"], ["WHALE", "G3"]], round_=2, advanced=True
    )
    bid(state, 0, 0, 0, 0)
    assert state.turn == 1  # round 2 of 4 players: dealer 0
    play(state, "Y12", "B3", "WHALE", "KRAKEN")
    assert state.won == [0, 0, 0, 0]
    assert state.turn == 2  # P2 (black 3) leads next
    trick = state.view(0)["tricks"][0]
    assert trick == {
        "leader": 1,
        "cards": ("Y12", "B3", "WHALE", "KRAKEN"),
        "winner": None,
        "next": 2,
    }


def test_whale_without_numbers_its_player_leads() -> None:
    state = start3(["SK", "G1"], ["PIR", "G2"], ["WHALE", "G3"], advanced=True)
    play(state, "SK", "PIR", "WHALE")
    assert state.won == [0, 0, 0] and state.turn == 0


def test_vector_5_in_play() -> None:
    state = start([["B2"], ["PIR"], ["Y14"], ["SK"], ["WHALE"]], advanced=True)
    bid(state, 0, 0, 1, 0, 0)
    play(state, "B2", "PIR", "Y14", "SK", "WHALE")
    assert state.round_scores[0] == (10, 10, 30, 10, 10)  # 20 + 10 for the yellow 14


# ------------------------------------------------------------------ bonuses, exact and missed
BONUS_TRICKS = [
    # hands (one card each, seat 0 leads), the winner, its bonus
    ([["G14"], ["G2"]], 0, 10),
    ([["P3"], ["P14"]], 1, 10),
    ([["B14"], ["PIR"]], 1, 20),
    ([["Y2"], ["B14"]], 1, 20),
    ([["PIR"], ["MER"]], 0, 20),
    ([["MER"], ["TIG:pirate"]], 1, 20),
    ([["PIR"], ["SK"]], 1, 30),
    ([["TIG:pirate"], ["SK"]], 1, 30),
    ([["TIG:escape"], ["SK"]], 1, 0),
    ([["SK"], ["MER"]], 1, 40),
]


@pytest.mark.parametrize("cards, winner, bonus", BONUS_TRICKS)
def test_bonus_counts_with_an_exact_bid_only(
    cards: list[list[str]], winner: int, bonus: int
) -> None:
    hands = [[c.split(":")[0] for c in hand] for hand in cards]
    for exact in (True, False):
        state = start(hands)
        bid(state, *[(1 if exact else 0) if s == winner else 0 for s in range(2)])
        assert state.turn == 0  # round 1 of 2: dealer 1, seat 0 leads
        play(state, cards[0][0], cards[1][0])
        assert [e["winner"] for e in state.events if e["type"] == "trick"] == [winner]
        expected = 20 + bonus if exact else -10
        assert state.round_scores[0][winner] == expected
        assert state.round_scores[0][1 - winner] == 10


@pytest.mark.parametrize("cards, winner, bonus", BONUS_TRICKS)
def test_rascal_bonus_full_exact_half_off_by_one(
    cards: list[list[str]], winner: int, bonus: int
) -> None:
    hands = [[c.split(":")[0] for c in hand] for hand in cards]
    for winner_bid, share in ((1, 1.0), (0, 0.5)):
        state = start(hands, scoring="rascal")
        bid(state, *[winner_bid if s == winner else 0 for s in range(2)])
        play(state, cards[0][0], cards[1][0])
        assert state.round_scores[0][winner] == int((10 + bonus) * share)


def test_rascal_off_by_two_scores_nothing() -> None:
    state = start([["G1", "G2"], ["G3", "G4"]], round_=2, scoring="rascal")
    bid(state, 2, 2)
    play(state, "G3", "G1", "G4", "G2")
    assert state.round_scores[0] == (0, 20)


def test_loot_alliance_both_exact_twenty_each() -> None:
    hands = [["Y5"], ["LOOT"], ["Y9"]]
    state = start(hands, advanced=True)
    bid(state, 0, 0, 1)
    assert state.turn == 0
    play(state, "Y5", "LOOT", "Y9")
    assert [e["loot"] for e in state.events if e["type"] == "trick"] == [[[1, 2]]]
    assert state.round_scores[0] == (10, 30, 40)
    state = start(hands, advanced=True)
    bid(state, 0, 1, 1)  # the Loot player misses: no alliance bonus for anyone
    play(state, "Y5", "LOOT", "Y9")
    assert state.round_scores[0] == (10, -10, 20)


def test_loot_alliance_in_rascal_needs_exact_bids() -> None:
    state = start([["Y5"], ["LOOT"], ["Y9"]], advanced=True, scoring="rascal")
    bid(state, 0, 0, 1)
    play(state, "Y5", "LOOT", "Y9")
    assert state.round_scores[0] == (10, 30, 30)
    state = start([["Y5"], ["LOOT"], ["Y9"]], advanced=True, scoring="rascal")
    bid(state, 0, 0, 0)
    play(state, "Y5", "LOOT", "Y9")
    assert state.round_scores[0] == (10, 10, 5)


def test_no_loot_alliance_when_loot_wins_or_kraken() -> None:
    state = start([["LOOT"], ["ESC"], ["TIG"]], advanced=True)
    bid(state, 1, 0, 0)
    play(state, "LOOT", "ESC", "TIG:escape")
    assert state.round_scores[0] == (20, 10, 10)
    assert [e["loot"] for e in state.events if e["type"] == "trick"] == [[]]
    state = start([["Y5"], ["LOOT"], ["KRAKEN"]], advanced=True)
    bid(state, 0, 0, 0)
    play(state, "Y5", "LOOT", "KRAKEN")
    trick = [e for e in state.events if e["type"] == "trick"][0]
    assert trick["winner"] is None and trick["next"] == 0 and trick["loot"] == []
    assert state.round_scores[0] == (10, 10, 10)


# ------------------------------------------------------------------ views and information
def test_view_shows_own_hand_public_play_and_nothing_else() -> None:
    state = start([["B2", "ESC"], ["SK", "P9"], ["Y3", "TIG"]], round_=2)
    bid(state, 1, 0, 1)
    play(state, "SK", "TIG:pirate")
    view = state.view(0)
    assert view["hand"] == ("B2", "ESC")
    assert view["trick"] == ("SK", "TIG:pirate")
    assert view["leader"] == 1 and view["turn"] == 0 and view["seat"] == 0
    assert view["bids"] == (1, 0, 1) and view["won"] == (0, 0, 0)
    assert view["round"] == 2 and view["cards"] == 2 and view["dealer"] == 0
    text = msgpack.packb(view)
    for hidden in (b"Y3", b"P9"):
        assert hidden not in text
    play(state, "ESC")
    view = state.view(2)
    assert view["tricks"] == (
        {"leader": 1, "cards": ("SK", "TIG:pirate", "ESC"), "winner": 1, "next": 1},
    )
    assert view["trick"] == () and view["won"] == (0, 1, 0) and view["hand"] == ("Y3",)


def test_view_scores_per_round_and_game_end() -> None:
    state = random_game(3, 11)
    view = state.view(0)
    assert view["phase"] == "over" and view["turn"] is None
    assert len(view["round_scores"]) == 10
    assert list(view["scores"]) == [sum(r[s] for r in view["round_scores"]) for s in range(3)]
    assert state.outcome().scores == tuple(float(s) for s in view["scores"])


def test_equal_totals_share_a_place() -> None:
    state = random_game(4, 2)
    state.scores = (50, 120, 50, -10)
    assert state.outcome().places == (2, 1, 2, 4)


def test_resample_respects_revealed_voids() -> None:
    state = start([["B2", "P6", "P7"], ["Y9", "Y11", "P1"], ["Y3", "G4", "G5"]], round_=3)
    bid(state, 1, 1, 1)
    assert state.turn == 2  # round 3 of 3 players: dealer 1
    play(state, "Y3", "P6")  # seat 0 shows it has no yellow
    assert state.voids() == [{"Y"}, set(), set()]
    rng = random.Random(3)
    for _ in range(50):
        other = state.resample(1, rng)
        assert other.hands[1] == state.hands[1]
        assert not any(card.suit == "Y" for card in other.hands[0])
        assert [len(h) for h in other.hands] == [len(h) for h in state.hands]
        assert msgpack.packb(other.view(1)) == msgpack.packb(state.view(1))
        assert other.events == [] and not other.recording, "a search's copy records nothing"


def test_format_event_every_kind() -> None:
    state = random_game(3, 4, advanced=True)
    kinds = set()
    for event in state.events:
        line = GAME.format_event(event)
        assert isinstance(line, str) and line
        kinds.add(event["type"])
    assert kinds == {"deal", "bids", "play", "trick", "round", "end"}


def test_a_rigged_deal_is_what_the_views_and_legal_lists_show() -> None:
    state = GAME.new(3, 0)
    assert state.legal(0) == ["bid:0", "bid:1"]  # (asked before the deal is rigged)
    state.rig_deal([["G2", "G3", "Y1"], ["G1", "G4", "Y2"], ["G5", "G6", "Y3"]], 3)
    view = state.view(0)
    assert (view["round"], view["cards"], view["dealer"]) == (3, 3, state.dealer)
    assert view["hand"] == ("G2", "G3", "Y1")
    assert state.legal(0) == ["bid:0", "bid:1", "bid:2", "bid:3"]


def test_rig_deal_checks_its_hands() -> None:
    state = GAME.new(3, 0)
    with pytest.raises(GameError):
        state.rig_deal([["SK"], ["SK"], ["G1"]])
    with pytest.raises(GameError):
        state.rig_deal([["G2"], ["G1"]])
    with pytest.raises(GameError):
        state.rig_deal([["G2", "G3"], ["G1", "G4"], ["G5", "G6"]])
    assert state.round == 1 and [len(h) for h in state.hands] == [1, 1, 1]
    bid(state, 0, 0, 0)
    with pytest.raises(GameError):
        state.rig_deal([["G2"], ["G1"], ["G3"]])
