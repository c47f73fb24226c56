"""Skull King (game id ``skull-king``): ten rounds of simultaneous bids and trick taking.

Rules: ``docs/games/skull-king.md`` (from the project's rules file). Card logic (deck, trick
judge, scoring, constrained redeals) lives in ``arena.games.skull_king_cards``; this module
holds the state machine. The hot path (``legal``, ``view``, ``apply``) is kept lean: legal
actions are cached per decision, hand names and finished tricks are kept ready for views.
"""

from __future__ import annotations

import copy
import enum
import logging
import random
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from typing import Any

from arena.errors import GameError
from arena.games import register
from arena.games.base import Game, OptionSpec, Outcome, State, places_from_keys
from arena.games.skull_king_cards import (
    ACTION_CODES,
    CODE_KINDS,
    CODE_NAMES,
    KIND_ACTIONS,
    KRAKEN,
    LOOT,
    NUMBERED,
    ROUNDS,
    SUITS,
    UNDECIDED,
    WHALE,
    capture_bonus,
    cards_in_round,
    deal_constrained,
    deck,
    draw,
    hand_actions,
    hand_names,
    judge,
    loot_alliances,
    next_lead,
    ordinary_winner,
    rascal_points,
    standard_points,
)

log = logging.getLogger(__name__)

#: ``bid:0`` .. ``bid:c`` for each number of cards c.
BID_ACTIONS: tuple[tuple[str, ...], ...] = tuple(
    tuple(f"bid:{b}" for b in range(c + 1)) for c in range(ROUNDS + 1)
)
BID_VALUES = {action: int(action[4:]) for action in BID_ACTIONS[-1]}
LEAD_NAMES = {s: SUITS[s] for s in range(4)}


class Phase(str, enum.Enum):
    """Where a round stands."""

    BIDDING = "bidding"
    PLAYING = "playing"
    OVER = "over"


BIDDING, PLAYING, OVER = Phase.BIDDING, Phase.PLAYING, Phase.OVER  # fast global lookups


class SkullKingState(State):
    """A game of Skull King in progress (see the module docstring)."""

    def __init__(self, players: int, seed: int, options: dict[str, Any]) -> None:
        self.players = players
        self.seed = seed
        self.options = options
        self.rng = random.Random(seed)
        self.events = []
        self.steps = 0
        self.advanced = bool(options["advanced"])
        self.rascal = options["scoring"] == "rascal"
        self.deck = deck(self.advanced)
        self.seats = tuple(range(players))
        self.scores: tuple[int, ...] = (0,) * players
        self.round_scores: tuple[tuple[int, ...], ...] = ()
        self._start_round(1)

    # ----------------------------------------------------------------- rounds and tricks
    def _start_round(self, round_: int) -> None:
        n = self.players
        self.round = round_
        self.cards = c = cards_in_round(round_, n)
        self.dealer = (n - 1 + round_ - 1) % n
        self._dealt = draw(self.rng, self.deck, n * c)
        self.hands = [sorted(self._dealt[s * c:(s + 1) * c]) for s in range(n)]
        names = self._index_hands()
        self._deal_event = len(self.events)
        self.events.append({"type": "deal", "round": round_, "dealer": self.dealer, "cards": c,
                            "hands": names})
        self._enter(BIDDING)
        self.bids: tuple[int, ...] | None = None
        self.won: tuple[int, ...] = (0,) * n
        self.bonus = [0] * n
        self.alliances: list[tuple[int, int]] = []
        self.round_tricks: list[tuple[int, tuple[int, ...]]] = []
        self._tricks_view: tuple[dict[str, Any], ...] = ()
        self.leader = self.turn = (self.dealer + 1) % n
        self._new_trick()

    def _enter(self, phase: Phase) -> None:
        self.phase = phase
        self._view_base: dict[str, Any] | None = None
        self._round_base: dict[str, Any] | None = None

    def _new_trick(self) -> None:
        self.trick_codes: list[int] = []
        self._trick_view: tuple[str, ...] = ()
        self.lead = UNDECIDED
        self._plays: list[str] | None = None

    def _bid(self, actions: Mapping[int, str]) -> None:
        self.bids = tuple([BID_VALUES[actions[seat]] for seat in self.seats])
        self.log("bids", round=self.round, bids=list(self.bids))
        self._enter(PLAYING)

    @property
    def undealt(self) -> list[int]:
        """The kinds of the cards not dealt this round (sorted), from the deck and the deal."""
        rest = list(self.deck)
        for k in self._dealt:
            rest.remove(k)
        return sorted(rest)

    def _play(self, seat: int, code: int) -> None:
        hand = self.hands[seat]
        kind = CODE_KINDS[code]
        i = hand.index(kind)
        del hand[i]
        del self._names[seat][i]
        if kind < NUMBERED:  # numbered kinds are unique: same index in the actions
            del self._acts[seat][i]
        elif kind not in hand:
            self._drop_special(seat, kind)
        codes = self.trick_codes
        codes.append(code)
        name = CODE_NAMES[code]
        self._trick_view += (name,)
        if self.lead == UNDECIDED:
            self.lead = next_lead(UNDECIDED, code)
        self.events.append({"type": "play", "seat": seat, "card": name})
        self._plays = None
        if len(codes) == self.players:
            self._finish_trick()
        else:
            self.turn = (seat + 1) % self.players

    def _finish_trick(self) -> None:
        leader, n = self.leader, self.players
        codes = tuple(self.trick_codes)
        best, first, loot = self._judge(codes)
        winner = None if best is None else (leader + best) % n
        bonus = 0 if winner is None else self._award(winner, codes, best)
        nxt = (leader + first) % n
        self.round_tricks.append((leader, codes))
        cards = self._trick_view
        self._tricks_view += ({"leader": leader, "cards": cards, "winner": winner,
                               "next": nxt},)
        self.events.append({"type": "trick", "leader": leader, "cards": cards,
                            "winner": winner, "next": nxt, "bonus": bonus,
                            "loot": [list(pair) for pair in loot]})
        self.leader = self.turn = nxt
        self._view_base = None
        self._new_trick()
        if not self.hands[nxt]:
            self._finish_round()

    def _judge(self, codes: tuple[int, ...]) -> tuple[int | None, int, list[tuple[int, int]]]:
        """(index of the winning card or None, index of the next leader's card, alliances)."""
        if self.advanced and (KRAKEN in codes or WHALE in codes or LOOT in codes):
            result = judge(codes)
            n, leader = self.players, self.leader
            loot = loot_alliances(tuple((leader + i) % n for i in range(n)), codes, result)
            self.alliances.extend(loot)
            return result.winner, result.leader, loot
        best = ordinary_winner(codes)
        return best, best, []

    def _award(self, winner: int, codes: tuple[int, ...], best: int) -> int:
        """Give the trick to ``winner`` (its card at index ``best``); return the bonus."""
        won = list(self.won)
        won[winner] += 1
        self.won = tuple(won)
        bonus = capture_bonus(codes, best)
        self.bonus[winner] += bonus
        return bonus

    def round_points(self) -> list[int]:
        """Each seat's points for the current round as it stands (all bids must be in)."""
        assert self.bids is not None
        bids, won, c = self.bids, self.won, self.cards
        loot = [0] * self.players
        for a, b in self.alliances:
            if bids[a] == won[a] and bids[b] == won[b]:
                loot[a] += 20
                loot[b] += 20
        if self.rascal:
            return [rascal_points(bids[s], won[s], c, self.bonus[s], loot[s]) for s in self.seats]
        return [standard_points(bids[s], won[s], c, self.bonus[s] + loot[s]) for s in self.seats]

    def _finish_round(self) -> None:
        points = self.round_points()
        self.scores = tuple([total + p for total, p in zip(self.scores, points)])
        self.round_scores += (tuple(points),)
        self.log("round", round=self.round, bids=list(self.bids or ()), won=list(self.won),
                 points=points, scores=list(self.scores))
        log.debug("skull-king round %d points %s", self.round, points)
        if self.round == ROUNDS:
            self._enter(OVER)
            self.log("end", scores=list(self.scores), places=list(self.outcome().places))
        else:
            self._start_round(self.round + 1)

    # ----------------------------------------------------------------- the State interface
    def to_act(self) -> tuple[int, ...]:
        phase = self.phase
        if phase is PLAYING:
            return (self.turn,)
        if phase is BIDDING:
            return self.seats
        return ()

    def _legal(self, seat: int) -> list[str]:
        phase = self.phase
        if phase is PLAYING:
            if seat != self.turn:
                return []
            return list(self._plays or self._compute_legal())
        if phase is BIDDING and 0 <= seat < self.players:
            return list(BID_ACTIONS[self.cards])
        return []

    def _compute_legal(self) -> list[str]:
        """The legal plays of the seat to play: follow the lead suit with numbered cards.

        Hands are sorted and numbered kinds are unique, so a suit is one slice of both the hand
        and its unique actions, and the special cards come last in both.
        """
        seat = self.turn
        acts = self._acts[seat]
        lead = self.lead
        if lead >= 0:
            hand = self.hands[seat]
            specials = bisect_left(hand, NUMBERED)
            lo = bisect_left(hand, lead * 14, 0, specials)
            hi = bisect_left(hand, lead * 14 + 14, lo, specials)
            if lo < hi and hi - lo < specials:
                acts = acts[lo:hi] + acts[specials:]
        self._plays = acts
        return acts

    def _index_hands(self) -> list[tuple[str, ...]]:
        """Recompute every seat's hand names and unique play actions; return the names."""
        names = [hand_names(hand) for hand in self.hands]
        self._names = [list(hand) for hand in names]
        self._acts = [list(hand_actions(hand)) for hand in self.hands]
        return names

    def _drop_special(self, seat: int, kind: int) -> None:
        """Remove the play actions of the last card of special ``kind`` from a seat's hand."""
        acts = self._acts[seat]
        first = KIND_ACTIONS[kind]
        at = acts.index(first[0])
        del acts[at:at + len(first)]

    def _apply(self, actions: Mapping[int, str]) -> None:
        if self.phase is BIDDING:
            self._bid(actions)
        else:
            seat = self.turn
            self._play(seat, ACTION_CODES[actions[seat]])

    def view(self, seat: int) -> dict[str, Any]:
        view = (self._view_base or self._build_view_base()).copy()
        view["seat"] = seat
        view["hand"] = tuple(self._names[seat])
        view["turn"] = self.turn if self.phase is PLAYING else None
        view["lead_suit"] = LEAD_NAMES.get(self.lead)
        view["trick"] = self._trick_view
        return view

    def _build_view_base(self) -> dict[str, Any]:
        """The part of every view that changes only between tricks (cached until then)."""
        self._view_base = base = (self._round_base or self._build_round_base()).copy()
        base["won"] = self.won
        base["leader"] = self.leader
        base["tricks"] = self._tricks_view
        return base

    def _build_round_base(self) -> dict[str, Any]:
        """The part of every view that changes only between phases (cached until then)."""
        self._round_base = base = {
            "players": self.players,
            "advanced": self.advanced,
            "scoring": "rascal" if self.rascal else "standard",
            "round": self.round,
            "rounds": ROUNDS,
            "cards": self.cards,
            "dealer": self.dealer,
            "phase": self.phase.value,
            "bids": self.bids,
            "scores": self.scores,
            "round_scores": self.round_scores,
        }
        return base

    def is_over(self) -> bool:
        return self.phase is OVER

    def outcome(self) -> Outcome:
        if self.phase is not OVER:
            raise GameError("the game is not over")
        scores = tuple(self.scores)
        return Outcome(scores=tuple(float(s) for s in scores),
                       places=places_from_keys([-s for s in scores]))

    def full(self) -> dict[str, Any]:
        names = CODE_NAMES
        return {
            "players": self.players,
            "options": dict(self.options),
            "round": self.round,
            "cards": self.cards,
            "dealer": self.dealer,
            "phase": self.phase.value,
            "hands": [[names[k] for k in hand] for hand in self.hands],
            "undealt": [names[k] for k in self.undealt],
            "bids": None if self.bids is None else list(self.bids),
            "won": list(self.won),
            "bonus": list(self.bonus),
            "alliances": [list(pair) for pair in self.alliances],
            "leader": self.leader,
            "turn": self.turn,
            "trick": [[s, names[c]] for s, c in zip(*self._round_plays()[-1])],
            "tricks": [[[s, names[c]] for s, c in zip(*t)] for t in self._round_plays()[:-1]],
            "scores": list(self.scores),
            "round_scores": [list(r) for r in self.round_scores],
            "steps": self.steps,
        }

    def clone(self) -> SkullKingState:
        other = copy.copy(self)
        other.rng = random.Random()
        other.rng.setstate(self.rng.getstate())
        other.events = list(self.events)
        other.hands = [list(hand) for hand in self.hands]
        other.bonus = list(self.bonus)
        other.alliances = list(self.alliances)
        other.round_tricks = list(self.round_tricks)
        other.trick_codes = list(self.trick_codes)
        other._names = [list(names) for names in self._names]
        other._acts = [list(acts) for acts in self._acts]
        other._plays = None
        return other

    # ----------------------------------------------------------------- hidden information
    def _round_plays(self) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
        """(seats, codes) of each trick of this round, the current (maybe empty) one last."""
        n = self.players
        tricks = self.round_tricks + [(self.leader, tuple(self.trick_codes))]
        return [(tuple((lead + i) % n for i in range(len(codes))), codes)
                for lead, codes in tricks]

    def voids(self) -> list[set[int]]:
        """Suits each seat has shown it lacks this round (played off-suit numbered cards)."""
        voids: list[set[int]] = [set() for _ in self.seats]
        for seats, codes in self._round_plays():
            lead = UNDECIDED
            for seat, code in zip(seats, codes):
                if lead >= 0 and code < NUMBERED and code // 14 != lead:
                    voids[seat].add(lead)
                lead = next_lead(lead, code)
        return voids

    def resample(self, seat: int, rng: random.Random) -> SkullKingState:
        other = self.clone()
        other.rng = random.Random(rng.getrandbits(64))
        if self.phase is OVER:
            return other
        others = [s for s in self.seats if s != seat]
        voids = self.voids()
        pool = list(self.undealt)
        for s in others:
            pool.extend(self.hands[s])
        sizes = [len(self.hands[s]) for s in others] + [len(self.undealt)]
        piles = deal_constrained(pool, sizes, [voids[s] for s in others] + [set()], rng)
        for s, pile in zip(others, piles):
            other.hands[s] = sorted(pile)
        other._index_hands()
        other._dealt = [k for hand in other.hands for k in hand] + [
            CODE_KINDS[code] for _, codes in self._round_plays() for code in codes]
        other._rewrite_deal_event()
        return other

    def _rewrite_deal_event(self) -> None:
        """Make this round's deal event agree with the hands and the cards played so far."""
        dealt = [list(hand) for hand in self.hands]
        for seats, codes in self._round_plays():
            for s, code in zip(seats, codes):
                dealt[s].append(CODE_KINDS[code])
        event = dict(self.events[self._deal_event])
        event["hands"] = [[CODE_NAMES[k] for k in sorted(hand)] for hand in dealt]
        self.events[self._deal_event] = event

    def rig_deal(self, hands: Sequence[Sequence[str]], round_: int | None = None) -> None:
        """Replace this round's deal (scenario tests and puzzles; bidding phase only).

        ``hands`` are card names per seat (``"Y14"``, ``"ESC"``, ``"TIG"``); ``round_`` jumps
        to that round first (dealer and cards follow it). The rest of the deck stays undealt.
        """
        if self.phase is not BIDDING:
            raise GameError("rig_deal only before the bids of a round")
        round_ = self.round if round_ is None else round_
        cards = cards_in_round(round_, self.players)
        kinds = {name: code for code, name in enumerate(CODE_NAMES[:64])}
        rest = list(self.deck)
        new_hands = []
        if len(hands) != self.players or any(len(hand) != cards for hand in hands):
            raise GameError(f"round {round_} deals {cards} cards to each of {self.players} seats")
        for hand in hands:
            new_hands.append(sorted(kinds[name] for name in hand))
            for k in new_hands[-1]:
                if k not in rest:
                    raise GameError(f"the deck has no more {CODE_NAMES[k]} to deal")
                rest.remove(k)
        self.round, self.cards = round_, cards
        self.dealer = (self.players - 1 + round_ - 1) % self.players
        self.leader = self.turn = (self.dealer + 1) % self.players
        self.hands = new_hands
        self._dealt = [k for hand in new_hands for k in hand]
        self._index_hands()
        self._view_base = self._round_base = None
        self.events[self._deal_event] = {
            "type": "deal", "round": self.round, "dealer": self.dealer, "cards": self.cards,
            "hands": [[CODE_NAMES[k] for k in hand] for hand in self.hands]}


class SkullKing(Game):
    """Skull King, 2-8 players, ten rounds (see docs/games/skull-king.md)."""

    name = "skull-king"
    title = "Skull King"
    min_players = 2
    max_players = 8
    options = {
        "advanced": OptionSpec(False, "add 2 Loot, the Kraken and the White Whale (74 cards)",
                               kind=bool),
        "scoring": OptionSpec("standard", "round scoring: standard or rascal",
                              choices=("standard", "rascal")),
    }

    def _new(self, players: int, seed: int, options: dict[str, Any]) -> SkullKingState:
        return SkullKingState(players, seed, options)

    def max_steps(self, players: int, options: Mapping[str, Any]) -> int:
        plays = sum(cards_in_round(r, players) for r in range(1, ROUNDS + 1))
        return ROUNDS + players * plays

    def format_event(self, event: Mapping[str, Any]) -> str:
        kind = event.get("type")
        if kind == "deal":
            hands = " | ".join(" ".join(h) for h in event["hands"])
            return (f"round {event['round']}: dealer {event['dealer']} deals "
                    f"{event['cards']} each: {hands}")
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
