"""Skull King (game id ``skull-king``): ten rounds of simultaneous bids and trick taking.

The rules are ``docs/games/skull-king.md``; the numbers in the comments below (rule 5, ...)
refer to its "Rules as implemented" section. The cards, the hands, the trick judge and the
scoring live in ``arena.games.skull_king_cards``; this module holds the rounds, bids, tricks
and views, and rebuilds a state from a view (``load_view``).
"""

from __future__ import annotations

import copy
import logging
import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from arena.errors import GameError
from arena.games import register, skull_king_words
from arena.games.base import ALONE, Game, OptionSpec, Outcome, State, places_from_keys
from arena.games.skull_king_cards import (
    BIDDING,
    CARDS,
    OVER,
    PHASES,
    PLAYING,
    PLAYS,
    ROUNDS,
    TIG_ESCAPE,
    TIG_PIRATE,
    Card,
    Hand,
    Trick,
    capture_bonus,
    cards_in_round,
    deal_constrained,
    deck,
    draw,
    hand_card,
    in_hand_order,
    judge,
    lead_suit,
    loot_alliances,
    rascal_points,
    standard_points,
)

log = logging.getLogger(__name__)

#: The cards a rigged deal may name: every hand card.
HAND_CARDS = {name: card for name, card in CARDS.items() if card not in (TIG_PIRATE, TIG_ESCAPE)}

#: The most players a game takes.
MAX_PLAYERS = 8

#: The seats in play order from each leader at a table of each size: ``IN_TURN[players][leader]``.
IN_TURN = tuple(
    tuple(tuple((leader + i) % players for i in range(players)) for leader in range(players))
    for players in range(MAX_PLAYERS + 1)
)

#: Every bid action of a round dealing ``cards`` cards: ``BIDS[cards]`` (the legal list of
#: every bidder, shared: legal lists are read-only).
BIDS = tuple([f"bid:{bid}" for bid in range(cards + 1)] for cards in range(ROUNDS + 1))
#: The bid each bid action names.
BID_OF = {action: bid for bid, action in enumerate(BIDS[ROUNDS])}


class SkullKingState(State):
    """A game of Skull King in progress (see the module docstring).

    ``hands`` hold each seat's ``Hand``; ``undealt`` the cards not dealt this round, in no
    particular order; ``trick`` is the current ``Trick``; ``tricks`` the finished tricks of this
    round as views show them (a tuple replaced, never changed in place). ``public`` is the part
    of every view that all seats see alike and that changes only with a deal, the bids or a
    trick taken: the rule steps that change it bring it up to date (``_publish``); its part
    that a trick taken leaves as it is, ``settled``, is made again only by a deal, the bids
    and the end (``_settle``).
    """

    def __init__(self, players: int, seed: int, options: dict[str, Any]) -> None:
        self.players = players
        self.seed = seed
        self.options = options
        self.rng = random.Random(seed)
        self.events = []
        self.steps = 0
        self.advanced = bool(options["advanced"])
        self.seats = tuple(range(players))
        self.scores: tuple[int, ...] = (0,) * players
        self.round_scores: tuple[tuple[int, ...], ...] = ()
        self._start_round(1)

    # ----------------------------------------------------------------- rounds and tricks
    def _start_round(self, round_: int) -> None:
        """Rules 1 and 2: deal ``min(round, 70 // players)`` cards each from the whole deck;
        the dealer moves one seat on every round and the seat after the dealer leads."""
        n = self.players
        self.round = round_
        self.cards = cards_in_round(round_, n)
        self.dealer = (n - 1 + round_ - 1) % n
        dealt, rest = draw(self.rng, deck(self.advanced), n * self.cards)
        self.hands = [Hand(dealt[s * self.cards : (s + 1) * self.cards]) for s in self.seats]
        self.undealt = rest
        self.log(
            {
                "type": "deal",
                "round": round_,
                "dealer": self.dealer,
                "cards": self.cards,
                "hands": [hand.names for hand in self.hands],
            }
        )
        self.phase = BIDDING
        self.bids: tuple[int, ...] | None = None
        self.won = [0] * n
        self.bonus = [0] * n
        self.alliances: list[list[int]] = []
        self.tricks: tuple[dict[str, Any], ...] = ()
        self.trick = Trick()
        self.leader = self.turn = (self.dealer + 1) % n
        self._settle()

    def _bid(self, actions: Mapping[int, str]) -> None:
        """Rule 3: all bids at once; then they are public and the leader plays."""
        self.bids = tuple([BID_OF[actions[seat]] for seat in self.seats])
        self.log({"type": "bids", "round": self.round, "bids": list(self.bids)})
        self.phase = PLAYING
        self._settle()

    def _finish_trick(self) -> None:
        """Rule 4: the trick is taken; its winner (or the next leader rule 8 names) leads the
        next one, or the round ends."""
        taken = self._take_trick(self.leader, self.trick)
        self.log(taken)
        self.leader = self.turn = taken["next"]
        self.trick.clear()
        if self.hands[self.leader].cards:
            self._publish()
        else:
            self._finish_round()

    def _take_trick(self, leader: int, trick: Trick) -> dict[str, Any]:
        """Rules 7 to 11: judge a complete trick led by ``leader``; its winner takes it and its
        bonus, Loot alliances form, and it joins the round's tricks as views show it. Returns
        the trick's event: that entry with the trick's ``bonus`` and ``loot`` alliances."""
        seats = IN_TURN[self.players][leader]
        result = judge(trick.cards)
        # (the indexes in the trick of the winning card, if any, and of the next leader's)
        best, leads, _ = result
        winner, bonus, loot = None, 0, []
        if best is not None:
            winner = seats[best]
            bonus = capture_bonus(trick.cards, best)
            self.won[winner] += 1
            self.bonus[winner] += bonus
        if self.advanced:
            loot = loot_alliances(seats, trick.cards, result)
            self.alliances.extend(loot)
        after = seats[leads]
        self.tricks += ({"leader": leader, "cards": trick.names, "winner": winner, "next": after},)
        return {
            "type": "trick",
            "leader": leader,
            "cards": trick.names,
            "winner": winner,
            "next": after,
            "bonus": bonus,
            "loot": loot,
        }

    def round_points(self) -> list[int]:
        """Each seat's points for the current round as it stands (all bids must be in)."""
        assert self.bids is not None
        bids, won, cards = self.bids, self.won, self.cards
        loot = [0] * self.players
        for a, b in self.alliances:
            if bids[a] == won[a] and bids[b] == won[b]:
                loot[a] += 20
                loot[b] += 20
        if self.options["scoring"] == "rascal":
            return [
                rascal_points(bids[s], won[s], cards, self.bonus[s], loot[s]) for s in self.seats
            ]
        return [
            standard_points(bids[s], won[s], cards, self.bonus[s] + loot[s]) for s in self.seats
        ]

    def _finish_round(self) -> None:
        """Score the round; deal the next one, or end the game after round 10."""
        points = self.round_points()
        self.scores = tuple([total + p for total, p in zip(self.scores, points)])
        self.round_scores += (tuple(points),)
        self.log(
            {
                "type": "round",
                "round": self.round,
                "bids": list(self.bids or ()),
                "won": list(self.won),
                "points": points,
                "scores": list(self.scores),
            }
        )
        log.debug("skull-king round %d points %s", self.round, points)
        if self.round == ROUNDS:
            self.phase = OVER
            self.log(
                {"type": "end", "scores": list(self.scores), "places": list(self.outcome().places)}
            )
            self._settle()
        else:
            self._start_round(self.round + 1)

    # ----------------------------------------------------------------- the State interface
    def to_act(self) -> tuple[int, ...]:
        if self.phase == PLAYING:
            return ALONE[self.turn]
        if self.phase == BIDDING:
            return self.seats
        return ()

    def _legal(self, seat: int) -> list[str]:
        if self.phase == PLAYING and seat == self.turn:
            # rule 5: a numbered card must follow the lead suit if the hand holds it; special
            # cards may always be played
            hand, lead = self.hands[seat], self.trick.lead_suit
            if lead is None or lead not in hand.suits:
                return hand.actions
            return hand.following(lead)
        if self.phase == BIDDING and seat in self.seats:
            return BIDS[self.cards]
        return []

    def _apply(self, actions: Mapping[int, str]) -> None:
        """The bids (rule 3), or rule 4: the seat to play plays a card; the next seat
        clockwise plays, or the trick ends."""
        if self.phase == BIDDING:
            self._bid(actions)
            return
        seat = self.turn
        card = PLAYS[actions[seat]]
        self.hands[seat].remove(card)
        trick = self.trick
        trick.add(card)
        self.log({"type": "play", "seat": seat, "card": card.name})
        if len(trick.cards) == self.players:
            self._finish_trick()
        else:
            self.turn = (seat + 1) % self.players

    def view(self, seat: int) -> dict[str, Any]:
        view = self.public.copy()
        view["seat"] = seat
        view["hand"] = self.hands[seat].names
        view["turn"] = self.turn if self.phase == PLAYING else None
        trick = self.trick
        view["lead_suit"] = trick.lead_suit
        view["trick"] = trick.names
        return view

    def _settle(self) -> None:
        """Make ``settled`` again, the part of every view that changes only with a deal, the
        bids or the end (called by those rule steps), and bring ``public`` up to date."""
        self.settled = {
            "players": self.players,
            "advanced": self.advanced,
            "scoring": self.options["scoring"],
            "round": self.round,
            "rounds": ROUNDS,
            "cards": self.cards,
            "dealer": self.dealer,
            "phase": self.phase,
            "bids": self.bids,
            "scores": self.scores,
            "round_scores": self.round_scores,
        }
        self._publish()

    def _publish(self) -> None:
        """Bring ``public``, the part of every view all seats see alike, up to date: called by
        the rule steps that change it (a trick taken, and ``_settle``): ``settled`` and what a
        trick changes."""
        public = self.public = self.settled.copy()
        public["won"] = tuple(self.won)
        public["leader"] = self.leader
        public["tricks"] = self.tricks

    def is_over(self) -> bool:
        return self.phase == OVER

    def outcome(self) -> Outcome:
        if self.phase != OVER:
            raise GameError("the game is not over")
        return Outcome(
            scores=tuple(float(s) for s in self.scores),
            places=places_from_keys([-s for s in self.scores]),
        )

    def full(self) -> dict[str, Any]:
        plays = [[[seat, card.name] for seat, card in trick] for trick in self._round_plays()]
        return {
            "players": self.players,
            "options": dict(self.options),
            "round": self.round,
            "cards": self.cards,
            "dealer": self.dealer,
            "phase": self.phase,
            "hands": [[card.name for card in hand] for hand in self.hands],
            "undealt": [card.name for card in in_hand_order(self.undealt)],
            "bids": None if self.bids is None else list(self.bids),
            "won": list(self.won),
            "bonus": list(self.bonus),
            "alliances": [list(pair) for pair in self.alliances],
            "leader": self.leader,
            "turn": self.turn,
            "trick": plays[-1],
            "tricks": plays[:-1],
            "scores": list(self.scores),
            "round_scores": [list(points) for points in self.round_scores],
            "steps": self.steps,
        }

    def clone(self) -> SkullKingState:
        """An independent copy (its generator continues identically)."""
        return self._copy(copy.copy(self.rng))

    def _copy(self, rng: random.Random) -> SkullKingState:
        """An independent copy whose chance comes from ``rng`` (cards are immutable and
        shared; logged events are never changed, so the copy's log holds the same maps)."""
        other = copy.copy(self)
        other.rng = rng
        other.events = list(self.events)
        other.hands = [hand.copy() for hand in self.hands]
        other.undealt = list(self.undealt)
        other.won = list(self.won)
        other.bonus = list(self.bonus)
        other.alliances = list(self.alliances)
        other.trick = self.trick.copy()
        return other

    # ----------------------------------------------------------------- hidden information
    def _round_plays(self) -> list[list[tuple[int, Card]]]:
        """(seat, table card) of each trick of this round, the current (maybe empty) one last."""
        tricks = [(t["leader"], [CARDS[name] for name in t["cards"]]) for t in self.tricks]
        tricks.append((self.leader, self.trick.cards))
        return [
            [((leader + i) % self.players, card) for i, card in enumerate(cards)]
            for leader, cards in tricks
        ]

    def voids(self) -> list[set[str]]:
        """Suits each seat has shown it lacks this round (played off-suit numbered cards)."""
        voids: list[set[str]] = [set() for _ in self.seats]
        for trick in self._round_plays():
            cards = [card for _, card in trick]
            for i, (seat, card) in enumerate(trick):
                suit = lead_suit(cards[:i])
                if suit is not None and card.suit is not None and card.suit != suit:
                    voids[seat].add(suit)
        return voids

    def resample(self, seat: int, rng: random.Random) -> SkullKingState:
        """A copy whose hidden cards (the other hands and the undealt cards) are drawn again
        by ``rng``, keeping the voids this round revealed; its own chance is drawn too. It
        does not record events (see ``State.recording``)."""
        other = self._copy(random.Random(rng.getrandbits(64)))
        other.events, other.recording = [], False
        if self.phase != OVER:
            other.deal_hidden(seat, [len(hand) for hand in self.hands], rng)
        return other

    def deal_hidden(self, seat: int, sizes: Sequence[int], rng: random.Random) -> None:
        """Deal what ``seat`` cannot see (the other hands, ``sizes[s]`` cards each, and the
        undealt rest) at random from those cards, keeping the voids this round revealed."""
        others = [s for s in self.seats if s != seat]
        voids = self.voids()
        pool = in_hand_order(self.undealt)
        for s in others:
            pool.extend(self.hands[s])
        room = [sizes[s] for s in others]
        room.append(len(pool) - sum(room))
        piles = deal_constrained(pool, room, [voids[s] for s in others] + [set()], rng)
        for s, pile in zip(others, piles):
            self.hands[s] = Hand(pile)
        self.undealt = piles[-1]

    def load_view(self, view: Mapping[str, Any], seat: int, rng: random.Random) -> None:
        """Everything ``seat``'s ``view`` shows as shown, the round's finished tricks judged
        again, the unseen cards drawn by ``rng`` (see ``State.load_view``).

        Search bots determinize with this (``Game.from_view``). Judging the round's finished
        tricks again (tricks won, capture bonuses, Loot alliances) makes the round score as it
        really will; earlier rounds are known by their points, which is all the outcome needs.
        The other hands and the undealt cards are drawn from the cards out of sight as
        ``resample`` draws them, so no seat holds a suit it has shown it lacks this round."""
        options = self.options
        if (view["advanced"], view["scoring"]) != (options["advanced"], options["scoring"]):
            raise ValueError("its options are not these")
        if view["phase"] not in PHASES:
            raise ValueError(f"it shows no phase of the game: {view['phase']!r}")
        self.advanced = bool(options["advanced"])
        self.seats = tuple(range(self.players))
        self.scores = tuple(int(points) for points in view["scores"])
        self.round_scores = tuple(tuple(points) for points in view["round_scores"])
        self.round, self.cards, self.dealer = view["round"], view["cards"], view["dealer"]
        self.phase = view["phase"]
        self.bids = None if view["bids"] is None else tuple(view["bids"])
        self.won, self.bonus = [0] * self.players, [0] * self.players
        self.alliances, self.tricks = [], ()
        for shown in view["tricks"]:
            taken = self._take_trick(shown["leader"], Trick(CARDS[name] for name in shown["cards"]))
            if (taken["winner"], taken["next"]) != (shown["winner"], shown["next"]):
                raise ValueError(f"trick {list(shown['cards'])} was not taken as shown")
        if self.won != list(view["won"]):
            raise ValueError("the tricks won do not add up")
        self.leader, self.trick = view["leader"], Trick(CARDS[name] for name in view["trick"])
        self.turn = self.leader if view["turn"] is None else view["turn"]
        self._redeal(seat, [CARDS[name] for name in view["hand"]], rng)
        self._settle()

    def _redeal(self, seat: int, hand: list[Card], rng: random.Random) -> None:
        """Give ``seat`` its ``hand``, every other seat as many cards as it has not played this
        round, and the undealt rest, the unseen cards drawn at random (keeping the voids)."""
        played = [0] * self.players
        known = list(hand)
        for trick in self._round_plays():
            for s, card in trick:
                played[s] += 1
                known.append(hand_card(card))
        sizes = [self.cards - count for count in played]
        if len(hand) != sizes[seat]:
            raise ValueError(f"seat {seat} holds {len(hand)} cards, not {sizes[seat]}")
        self.undealt = self.deck_without(known)
        self.hands = [Hand(()) for _ in self.seats]
        self.hands[seat] = Hand(hand)
        self.deal_hidden(seat, sizes, rng)

    @property
    def deck(self) -> tuple[Card, ...]:
        """The whole deck of this game, in hand order."""
        return deck(self.advanced)

    def deck_without(self, cards: Iterable[Card]) -> list[Card]:
        """The deck, in hand order, less ``cards`` (hand cards). Raises GameError if the deck
        does not hold them all."""
        rest = list(self.deck)
        for card in cards:
            if card not in rest:
                raise GameError(f"the deck has no more {card.name} to deal")
            rest.remove(card)
        return rest

    def _deal_index(self) -> int:
        """Index in the event log of this round's deal event."""
        return max(i for i, event in enumerate(self.events) if event["type"] == "deal")

    def rig_deal(self, hands: Sequence[Sequence[str]], round_: int | None = None) -> None:
        """Replace this round's deal (scenario tests and puzzles; bidding phase only).

        ``hands`` are card names per seat (``"Y14"``, ``"ESC"``, ``"TIG"``); ``round_`` jumps
        to that round first (dealer and cards follow it). The rest of the deck stays undealt.
        """
        if self.phase != BIDDING:
            raise GameError("rig_deal only before the bids of a round")
        round_ = self.round if round_ is None else round_
        cards = cards_in_round(round_, self.players)
        if len(hands) != self.players or any(len(hand) != cards for hand in hands):
            raise GameError(f"round {round_} deals {cards} cards to each of {self.players} seats")
        unknown = sorted({name for hand in hands for name in hand} - set(HAND_CARDS))
        if unknown:
            raise GameError(f"no such cards: {', '.join(unknown)}")
        new_hands = [Hand(HAND_CARDS[name] for name in hand) for hand in hands]
        rest = self.deck_without(card for hand in new_hands for card in hand)
        self.round, self.cards = round_, cards
        self.dealer = (self.players - 1 + round_ - 1) % self.players
        self.leader = self.turn = (self.dealer + 1) % self.players
        self.hands = new_hands
        self.undealt = rest
        self.events[self._deal_index()] = {
            "type": "deal",
            "round": self.round,
            "dealer": self.dealer,
            "cards": self.cards,
            "hands": [[card.name for card in hand] for hand in self.hands],
        }
        self._settle()
        self._step_memo = None  # (the legal bids may have changed with the round)


class SkullKing(Game):
    """Skull King, 2-8 players, ten rounds (see docs/games/skull-king.md)."""

    name = "skull-king"
    title = "Skull King"
    state_class = SkullKingState
    min_players = 2
    max_players = MAX_PLAYERS
    options = {
        "advanced": OptionSpec(
            False, "add 2 Loot, the Kraken and the White Whale (74 cards)", kind=bool
        ),
        "scoring": OptionSpec(
            "standard", "round scoring: standard or rascal", choices=("standard", "rascal")
        ),
    }

    def max_steps(self, players: int, options: Mapping[str, Any]) -> int:
        plays = sum(cards_in_round(r, players) for r in range(1, ROUNDS + 1))
        return ROUNDS + players * plays

    # its words (``arena.games.skull_king_words``)
    action_words = staticmethod(skull_king_words.action_words)
    format_event = staticmethod(skull_king_words.format_event)
    event_detail = staticmethod(skull_king_words.event_detail)
    rules_summary = skull_king_words.RULES


register(SkullKing())

__all__ = ["BIDDING", "OVER", "PLAYING", "SkullKing", "SkullKingState"]
