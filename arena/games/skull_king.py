"""Skull King (game id ``skull-king``): ten rounds of simultaneous bids and trick taking.

The rules are ``docs/games/skull-king.md``; the numbers in the comments below (rule 5, ...)
refer to its "Rules as implemented" section. The cards, the trick judge and the scoring live
in ``arena.games.skull_king_cards``; this module holds the rounds, bids, tricks and views.
"""

from __future__ import annotations

import copy
import enum
import logging
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from arena.errors import GameError
from arena.games import register
from arena.games.base import Game, OptionSpec, Outcome, State, places_from_keys
from arena.games.skull_king_cards import (
    CARDS,
    PLAYS,
    ROUNDS,
    TIG_ESCAPE,
    TIG_PIRATE,
    Card,
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
    names,
    rascal_points,
    standard_points,
)

log = logging.getLogger(__name__)

#: The cards a rigged deal may name: every hand card.
HAND_CARDS = {name: card for name, card in CARDS.items() if card not in (TIG_PIRATE, TIG_ESCAPE)}


class Phase(str, enum.Enum):
    """Where a round stands."""

    BIDDING = "bidding"
    PLAYING = "playing"
    OVER = "over"


class SkullKingState(State):
    """A game of Skull King in progress (see the module docstring).

    ``hands`` hold each seat's cards in hand order; ``trick`` the table cards of the current
    trick in play order; ``tricks`` the finished tricks of this round as views show them.
    """

    def __init__(self, players: int, seed: int, options: dict[str, Any]) -> None:
        self.players = players
        self.seed = seed
        self.options = options
        self.rng = random.Random(seed)
        self.events = []
        self.steps = 0
        self.advanced = bool(options["advanced"])
        self.scoring: str = options["scoring"]
        self.deck = deck(self.advanced)
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
        dealt, rest = draw(self.rng, self.deck, n * self.cards)
        self.hands = [
            in_hand_order(dealt[s * self.cards : (s + 1) * self.cards]) for s in self.seats
        ]
        self.undealt = in_hand_order(rest)
        self.log(
            "deal",
            round=round_,
            dealer=self.dealer,
            cards=self.cards,
            hands=[names(hand) for hand in self.hands],
        )
        self.phase = Phase.BIDDING
        self.bids: tuple[int, ...] | None = None
        self.won = [0] * n
        self.bonus = [0] * n
        self.alliances: list[tuple[int, int]] = []
        self.tricks: list[dict[str, Any]] = []
        self.trick: list[Card] = []
        self.leader = self.turn = (self.dealer + 1) % n

    def _bid(self, actions: Mapping[int, str]) -> None:
        """Rule 3: all bids at once; then they are public and the leader plays."""
        self.bids = tuple(int(actions[seat].removeprefix("bid:")) for seat in self.seats)
        self.log("bids", round=self.round, bids=list(self.bids))
        self.phase = Phase.PLAYING

    def _play(self, seat: int, card: Card) -> None:
        """Rule 4: the seat plays a card; the next seat clockwise plays, or the trick ends."""
        self.hands[seat].remove(hand_card(card))
        self.trick.append(card)
        self.log("play", seat=seat, card=card.name)
        if len(self.trick) == self.players:
            self._finish_trick()
        else:
            self.turn = (seat + 1) % self.players

    def _finish_trick(self) -> None:
        """Rule 4: the trick is taken; its winner (or the next leader rule 8 names) leads the
        next one, or the round ends."""
        leader = self.leader
        taken = self._take_trick(leader, tuple(self.trick))
        self.log(
            "trick",
            leader=leader,
            cards=taken["cards"],
            winner=taken["winner"],
            next=taken["next"],
            bonus=taken["bonus"],
            loot=[list(pair) for pair in taken["loot"]],
        )
        self.leader = self.turn = taken["next"]
        self.trick = []
        if not self.hands[self.leader]:
            self._finish_round()

    def _take_trick(self, leader: int, trick: tuple[Card, ...]) -> dict[str, Any]:
        """Rules 7 to 11: judge a complete trick led by ``leader``; its winner takes it and its
        bonus, Loot alliances form, and it joins the round's tricks as views show it. Returns
        that entry with the trick's ``bonus`` and ``loot`` alliances added."""
        seats = [(leader + i) % self.players for i in range(self.players)]
        result = judge(trick)
        loot = loot_alliances(seats, trick, result)
        self.alliances.extend(loot)
        winner, bonus = None, 0
        if result.winner is not None:
            winner = seats[result.winner]
            bonus = capture_bonus(trick, result.winner)
            self.won[winner] += 1
            self.bonus[winner] += bonus
        shown = {
            "leader": leader,
            "cards": names(trick),
            "winner": winner,
            "next": seats[result.leader],
        }
        self.tricks.append(shown)
        return {**shown, "bonus": bonus, "loot": loot}

    def round_points(self) -> list[int]:
        """Each seat's points for the current round as it stands (all bids must be in)."""
        assert self.bids is not None
        bids, won, cards = self.bids, self.won, self.cards
        loot = [0] * self.players
        for a, b in self.alliances:
            if bids[a] == won[a] and bids[b] == won[b]:
                loot[a] += 20
                loot[b] += 20
        if self.scoring == "rascal":
            return [
                rascal_points(bids[s], won[s], cards, self.bonus[s], loot[s]) for s in self.seats
            ]
        return [
            standard_points(bids[s], won[s], cards, self.bonus[s] + loot[s]) for s in self.seats
        ]

    def _finish_round(self) -> None:
        """Score the round; deal the next one, or end the game after round 10."""
        points = self.round_points()
        self.scores = tuple(total + p for total, p in zip(self.scores, points))
        self.round_scores += (tuple(points),)
        self.log(
            "round",
            round=self.round,
            bids=list(self.bids or ()),
            won=list(self.won),
            points=points,
            scores=list(self.scores),
        )
        log.debug("skull-king round %d points %s", self.round, points)
        if self.round == ROUNDS:
            self.phase = Phase.OVER
            self.log("end", scores=list(self.scores), places=list(self.outcome().places))
        else:
            self._start_round(self.round + 1)

    # ----------------------------------------------------------------- the State interface
    def to_act(self) -> tuple[int, ...]:
        if self.phase is Phase.PLAYING:
            return (self.turn,)
        if self.phase is Phase.BIDDING:
            return self.seats
        return ()

    def _legal(self, seat: int) -> list[str]:
        if self.phase is Phase.PLAYING and seat == self.turn:
            return [action for card in self._playable(self.hands[seat]) for action in card.plays]
        if self.phase is Phase.BIDDING and seat in self.seats:
            return [f"bid:{bid}" for bid in range(self.cards + 1)]
        return []

    def _playable(self, hand: list[Card]) -> list[Card]:
        """Rule 5: the cards of a hand that may be played now, identical cards once, in hand
        order. A numbered card must follow the lead suit if the hand holds it; special cards
        may always be played."""
        suit = lead_suit(self.trick)
        if suit is not None and suit in [card.suit for card in hand]:
            hand = [card for card in hand if card.suit is None or card.suit == suit]
        return list(dict.fromkeys(hand))

    def _apply(self, actions: Mapping[int, str]) -> None:
        if self.phase is Phase.BIDDING:
            self._bid(actions)
        else:
            self._play(self.turn, PLAYS[actions[self.turn]])

    def view(self, seat: int) -> dict[str, Any]:
        return {
            "players": self.players,
            "advanced": self.advanced,
            "scoring": self.scoring,
            "round": self.round,
            "rounds": ROUNDS,
            "cards": self.cards,
            "dealer": self.dealer,
            "phase": self.phase.value,
            "bids": self.bids,
            "scores": self.scores,
            "round_scores": self.round_scores,
            "won": tuple(self.won),
            "leader": self.leader,
            "tricks": tuple(self.tricks),
            "seat": seat,
            "hand": names(self.hands[seat]),
            "turn": self.turn if self.phase is Phase.PLAYING else None,
            "lead_suit": lead_suit(self.trick),
            "trick": names(self.trick),
        }

    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    def outcome(self) -> Outcome:
        if self.phase is not Phase.OVER:
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
            "phase": self.phase.value,
            "hands": [[card.name for card in hand] for hand in self.hands],
            "undealt": [card.name for card in self.undealt],
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
        """An independent copy (cards are immutable and shared; its generator continues
        identically)."""
        other = copy.copy(self)
        other.rng = random.Random()
        other.rng.setstate(self.rng.getstate())
        other.events = list(self.events)
        other.hands = [list(hand) for hand in self.hands]
        other.undealt = list(self.undealt)
        other.won = list(self.won)
        other.bonus = list(self.bonus)
        other.alliances = list(self.alliances)
        other.tricks = list(self.tricks)
        other.trick = list(self.trick)
        return other

    # ----------------------------------------------------------------- hidden information
    def _round_plays(self) -> list[list[tuple[int, Card]]]:
        """(seat, table card) of each trick of this round, the current (maybe empty) one last."""
        tricks = [(t["leader"], [CARDS[name] for name in t["cards"]]) for t in self.tricks]
        tricks.append((self.leader, self.trick))
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
        other = self.clone()
        other.rng = random.Random(rng.getrandbits(64))
        if self.phase is not Phase.OVER:
            other._deal_hidden(seat, [len(hand) for hand in self.hands], rng)
            other._rewrite_deal_event()
        return other

    def _deal_hidden(self, seat: int, sizes: Sequence[int], rng: random.Random) -> None:
        """Deal what ``seat`` cannot see (the other hands, ``sizes[s]`` cards each, and the
        undealt rest) at random from those cards, keeping the voids this round revealed."""
        others = [s for s in self.seats if s != seat]
        voids = self.voids()
        pool = list(self.undealt)
        for s in others:
            pool.extend(self.hands[s])
        room = [sizes[s] for s in others]
        room.append(len(pool) - sum(room))
        piles = deal_constrained(pool, room, [voids[s] for s in others] + [set()], rng)
        for s, pile in zip(others, piles):
            self.hands[s] = in_hand_order(pile)
        self.undealt = in_hand_order(piles[-1])

    @classmethod
    def rebuild(
        cls,
        view: Mapping[str, Any],
        seat: int,
        players: int,
        options: dict[str, Any],
        rng: random.Random,
    ) -> SkullKingState:
        """The state behind ``seat``'s ``view``, its hidden cards drawn by ``rng`` (see
        ``SkullKing.from_view``). Raises KeyError, TypeError or ValueError on a bad view."""
        state = cls.__new__(cls)
        state.players, state.seed, state.options = players, rng.getrandbits(64), options
        state.rng = random.Random(state.seed)
        state.events, state.steps = [], 0
        state.advanced, state.scoring = bool(options["advanced"]), options["scoring"]
        state.deck, state.seats = deck(state.advanced), tuple(range(players))
        state.scores = tuple(int(points) for points in view["scores"])
        state.round_scores = tuple(tuple(points) for points in view["round_scores"])
        state.round, state.cards, state.dealer = view["round"], view["cards"], view["dealer"]
        state.phase = Phase(view["phase"])
        state.bids = None if view["bids"] is None else tuple(view["bids"])
        state.won, state.bonus, state.alliances, state.tricks = [0] * players, [0] * players, [], []
        for shown in view["tricks"]:
            taken = state._take_trick(shown["leader"], tuple(CARDS[n] for n in shown["cards"]))
            if (taken["winner"], taken["next"]) != (shown["winner"], shown["next"]):
                raise ValueError(f"trick {list(shown['cards'])} was not taken as shown")
        if state.won != list(view["won"]):
            raise ValueError("the tricks won do not add up")
        state.leader, state.trick = view["leader"], [CARDS[n] for n in view["trick"]]
        state.turn = state.leader if view["turn"] is None else view["turn"]
        state._redeal_from_view(seat, [CARDS[n] for n in view["hand"]], rng)
        return state

    def _redeal_from_view(self, seat: int, hand: list[Card], rng: random.Random) -> None:
        """Give ``seat`` its ``hand``, every other seat as many cards as it has not played this
        round, and the undealt rest, the unseen cards drawn at random (keeping the voids)."""
        played = [0] * self.players
        seen = Counter(hand)
        for trick in self._round_plays():
            for s, card in trick:
                played[s] += 1
                seen[hand_card(card)] += 1
        sizes = [self.cards - count for count in played]
        if len(hand) != sizes[seat]:
            raise ValueError(f"seat {seat} holds {len(hand)} cards, not {sizes[seat]}")
        self.undealt = []
        for card in self.deck:
            if seen[card]:
                seen[card] -= 1
            else:
                self.undealt.append(card)
        if any(seen.values()):
            raise ValueError(f"the deck has no more {', '.join(c.name for c in +seen)}")
        self.hands = [[] for _ in self.seats]
        self.hands[seat] = in_hand_order(hand)
        self._deal_hidden(seat, sizes, rng)
        self.log("deal", round=self.round, dealer=self.dealer, cards=self.cards, hands=[])
        self._rewrite_deal_event()

    def _deal_index(self) -> int:
        """Index in the event log of this round's deal event."""
        return max(i for i, event in enumerate(self.events) if event["type"] == "deal")

    def _rewrite_deal_event(self) -> None:
        """Make this round's deal event agree with the hands and the cards played so far."""
        dealt = [list(hand) for hand in self.hands]
        for trick in self._round_plays():
            for seat, card in trick:
                dealt[seat].append(hand_card(card))
        index = self._deal_index()
        event = dict(self.events[index])
        event["hands"] = [[card.name for card in in_hand_order(hand)] for hand in dealt]
        self.events[index] = event

    def rig_deal(self, hands: Sequence[Sequence[str]], round_: int | None = None) -> None:
        """Replace this round's deal (scenario tests and puzzles; bidding phase only).

        ``hands`` are card names per seat (``"Y14"``, ``"ESC"``, ``"TIG"``); ``round_`` jumps
        to that round first (dealer and cards follow it). The rest of the deck stays undealt.
        """
        if self.phase is not Phase.BIDDING:
            raise GameError("rig_deal only before the bids of a round")
        round_ = self.round if round_ is None else round_
        cards = cards_in_round(round_, self.players)
        if len(hands) != self.players or any(len(hand) != cards for hand in hands):
            raise GameError(f"round {round_} deals {cards} cards to each of {self.players} seats")
        unknown = sorted({name for hand in hands for name in hand} - set(HAND_CARDS))
        if unknown:
            raise GameError(f"no such cards: {', '.join(unknown)}")
        rest = list(self.deck)
        new_hands = [in_hand_order(HAND_CARDS[name] for name in hand) for hand in hands]
        for hand in new_hands:
            for card in hand:
                if card not in rest:
                    raise GameError(f"the deck has no more {card.name} to deal")
                rest.remove(card)
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


class SkullKing(Game):
    """Skull King, 2-8 players, ten rounds (see docs/games/skull-king.md)."""

    name = "skull-king"
    title = "Skull King"
    min_players = 2
    max_players = 8
    options = {
        "advanced": OptionSpec(
            False, "add 2 Loot, the Kraken and the White Whale (74 cards)", kind=bool
        ),
        "scoring": OptionSpec(
            "standard", "round scoring: standard or rascal", choices=("standard", "rascal")
        ),
    }

    def _new(self, players: int, seed: int, options: dict[str, Any]) -> SkullKingState:
        return SkullKingState(players, seed, options)

    def max_steps(self, players: int, options: Mapping[str, Any]) -> int:
        plays = sum(cards_in_round(r, players) for r in range(1, ROUNDS + 1))
        return ROUNDS + players * plays

    def from_view(
        self,
        view: Mapping[str, Any],
        seat: int,
        players: int,
        options: Mapping[str, Any],
        rng: random.Random,
    ) -> SkullKingState:
        """A state ``seat`` cannot tell apart from the one that showed it ``view``.

        The round's tricks are judged again from the view (tricks won, capture bonuses, Loot
        alliances); the other hands and the undealt cards are drawn by ``rng`` as ``resample``
        draws them, so no seat holds a suit it has shown it lacks this round. Earlier rounds are
        known by their points, which is all the outcome needs. The state's own generator (the
        later rounds' deals) is drawn too; its event log starts with this round's deal as drawn,
        and ``steps`` counts from the rebuild. Raises GameError if ``view`` is not a view of
        ``seat`` in a game of ``players`` with ``options``.
        """
        self.check_players(players)
        parsed = self.parse_options(options)
        try:
            if (view["seat"], view["players"]) != (seat, players):
                raise ValueError(f"it is seat {view['seat']}'s of {view['players']} players")
            if (view["advanced"], view["scoring"]) != (parsed["advanced"], parsed["scoring"]):
                raise ValueError("its options are not these")
            return SkullKingState.rebuild(view, seat, players, parsed, rng)
        except (KeyError, TypeError, ValueError, IndexError) as error:
            raise GameError(f"not a skull-king view of seat {seat}: {error}") from None

    def format_event(self, event: Mapping[str, Any]) -> str:
        kind = event.get("type")
        if kind == "deal":
            hands = " | ".join(" ".join(h) for h in event["hands"])
            return (
                f"round {event['round']}: dealer {event['dealer']} deals "
                f"{event['cards']} each: {hands}"
            )
        if kind == "bids":
            return f"bids {event['bids']}"
        if kind == "play":
            return f"seat {event['seat']} plays {event['card']}"
        if kind == "trick":
            who = "nobody" if event["winner"] is None else f"seat {event['winner']}"
            extra = f" (+{event['bonus']})" if event.get("bonus") else ""
            loot = f", loot {event['loot']}" if event.get("loot") else ""
            return f"trick to {who}{extra}{loot}; seat {event['next']} leads"
        if kind == "round":
            return f"round {event['round']} points {event['points']} totals {event['scores']}"
        if kind == "end":
            return f"game over: scores {event['scores']} places {event['places']}"
        return super().format_event(event)


register(SkullKing())

__all__ = ["Phase", "SkullKing", "SkullKingState"]
