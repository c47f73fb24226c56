"""Shared machinery of the face-down disc bluffing games: ``skull`` and ``skull-bank``.

Both games give every player four discs (three good ones -- flowers or roses -- and one skull),
have them put discs face down on a personal pile (Skull's *stack*, the bank variant's *row*),
and end a round with one player turning discs over: their own pile first, top first and
automatically, then the top face-down disc of any other pile, one decision each, stopping at the
first skull. Discs are lost either blind (drawn at random by the referee, only the loser learns
which) or by the loser's own choice, and a player without discs is eliminated.

This module holds what the two games really share:

* ``Kit``: one player's discs (hand, face-down pile, flipped count, removed discs) and what the
  public knows about where that player's skull can be, so ``resample`` redraws hidden
  identities consistently with everything that was ever shown;
* ``Challenge``: the turning-over of N discs (Skull's challenge, the bank's showdown);
* ``DiscState``: a ``State`` base with seats, elimination bookkeeping, the public round log,
  the flip/take/drop steps with their events, the common parts of a view, ``resample``,
  ``full`` and ``outcome``. The two games add their own phases on top.
"""

from __future__ import annotations

import random
from abc import abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from arena.games.base import Game, Outcome, State, places_from_keys

#: Disc kinds. A player owns ``GOODS_EACH`` good discs and one skull.
GOOD, SKULL = 0, 1
GOODS_EACH = 3
DISCS_EACH = GOODS_EACH + 1


@dataclass
class Kit:
    """One player's discs and the public knowledge about where that player's skull is.

    ``hand`` counts the discs in hand by kind (``[good, skull]``); ``pile`` is the face-down
    pile, bottom first, whose top ``shown`` discs have been turned face up this round; ``lost``
    are the removed discs in order of loss (their identities are known only to the owner).
    ``lost[:known_lost]`` are publicly known to be good (the skull was seen after those losses);
    when ``gone_by`` is set the skull is publicly known to be among ``lost[:gone_by]`` (every disc
    the player owned was once shown good). ``out`` is the round of elimination.
    """

    hand: list[int] = field(default_factory=lambda: [GOODS_EACH, 1])
    pile: list[int] = field(default_factory=list)
    shown: int = 0
    lost: list[int] = field(default_factory=list)
    known_lost: int = 0
    gone_by: int | None = None
    out: int | None = None

    @property
    def in_hand(self) -> int:
        return self.hand[GOOD] + self.hand[SKULL]

    @property
    def owned(self) -> int:
        return self.in_hand + len(self.pile)

    @property
    def hidden(self) -> int:
        """Face-down discs still on the pile (flippable)."""
        return len(self.pile) - self.shown

    def place(self, kind: int) -> None:
        self.hand[kind] -= 1
        self.pile.append(kind)

    def flip(self) -> int:
        """Turn the top face-down disc of the pile; return its kind."""
        self.shown += 1
        return self.pile[-self.shown]

    def skull_shown(self) -> bool:
        return self.shown > 0 and SKULL in self.pile[-self.shown:]

    def observe(self) -> None:
        """Record what the public learnt about the skull from this round's flips."""
        if self.skull_shown():
            self.known_lost = len(self.lost)
        elif (self.gone_by is None and self.pile and self.shown == len(self.pile)
              and self.in_hand == 0):
            self.gone_by = len(self.lost)

    def gather(self) -> None:
        """Take the pile back into the hand."""
        for kind in self.pile:
            self.hand[kind] += 1
        self.pile.clear()
        self.shown = 0

    def remove(self, kind: int) -> None:
        """Remove one disc of ``kind`` from the hand (after ``gather``)."""
        self.hand[kind] -= 1
        self.lost.append(kind)

    def remove_random(self, rng: random.Random) -> int:
        """Remove one disc from the hand drawn uniformly at random; return its kind."""
        kind = GOOD if rng.randrange(self.in_hand) < self.hand[GOOD] else SKULL
        self.remove(kind)
        return kind

    def redraw(self, rng: random.Random) -> None:
        """Move the skull to a random place the public cannot rule out.

        Shown discs and ``lost[:known_lost]`` stay; the skull goes to one of the removed discs it
        may be, or (unless it is known to be gone) to the hand or a face-down pile position.
        """
        if self.skull_shown():
            return
        lo = self.known_lost
        hi = len(self.lost) if self.gone_by is None else self.gone_by
        owned_slots = 0 if self.gone_by is not None else self.in_hand + self.hidden
        pick = rng.randrange(hi - lo + owned_slots)
        self.lost[lo:] = [GOOD] * (len(self.lost) - lo)
        self.hand = [self.in_hand, 0]
        self.pile[:self.hidden] = [GOOD] * self.hidden
        if pick < hi - lo:
            self.lost[lo + pick] = SKULL
            return
        pick -= hi - lo
        if pick < self.in_hand:
            self.hand = [self.in_hand - 1, 1]
        else:
            self.pile[pick - self.in_hand] = SKULL

    def full(self) -> dict[str, Any]:
        return {"hand": list(self.hand), "pile": list(self.pile), "shown": self.shown,
                "lost": list(self.lost), "known_lost": self.known_lost,
                "gone_by": self.gone_by, "out": self.out}


@dataclass
class Challenge:
    """Seat ``by`` turning over ``target`` discs; ``flips`` are ``(owner, kind)`` in order."""

    by: int
    target: int
    flips: list[tuple[int, int]] = field(default_factory=list)
    skull_of: int | None = None

    @property
    def left(self) -> int:
        return self.target - len(self.flips)

    @property
    def done(self) -> bool:
        return self.skull_of is not None or self.left == 0


def seat_of(action: str) -> int:
    """The number after the last colon of an action (``flip:3`` -> 3)."""
    return int(action.rpartition(":")[2])


class DiscState(State):
    """Common state of the disc games. Subclasses name their words and add their phases.

    Class words: ``GOOD_NAME`` (flower/rose), ``PILE`` (stack/row, the view key of one's own
    pile), ``PLACE`` (place/add), ``FLIP`` (flip/reveal), ``DROP`` (discard/give),
    ``SHOWN`` (view key of the public list of turned discs).
    """

    GAME: ClassVar[str]
    GOOD_NAME: ClassVar[str]
    PILE: ClassVar[str]
    PLACE: ClassVar[str]
    FLIP: ClassVar[str]
    DROP: ClassVar[str]
    SHOWN: ClassVar[str]

    def __init__(self, players: int, seed: int, options: dict[str, Any]) -> None:
        self.players = players
        self.seed = seed
        self.options = dict(options)
        self.rng = random.Random(seed)
        self.events = []
        self.steps = 0
        self.kits = [Kit() for _ in range(players)]
        self.round = 1
        self.round_log: list[str] = []
        self.results: list[dict[str, Any]] = []
        self.challenge: Challenge | None = None
        self.winner: int | None = None

    # ----- names -------------------------------------------------------------------------
    def disc_name(self, kind: int) -> str:
        return "skull" if kind == SKULL else self.GOOD_NAME

    def kind_of(self, action: str) -> int:
        return SKULL if action.endswith(":skull") else GOOD

    def kind_actions(self, seat: int, verb: str) -> list[str]:
        """``verb:good`` / ``verb:skull`` for the kinds in ``seat``'s hand, good first."""
        hand = self.kits[seat].hand
        actions = []
        if hand[GOOD]:
            actions.append(f"{verb}:{self.GOOD_NAME}")
        if hand[SKULL]:
            actions.append(f"{verb}:skull")
        return actions

    # ----- seats -------------------------------------------------------------------------
    def active(self, seat: int) -> bool:
        return self.kits[seat].out is None

    def active_seats(self) -> tuple[int, ...]:
        return tuple(s for s, kit in enumerate(self.kits) if kit.out is None)

    def next_active(self, seat: int) -> int | None:
        """The first active seat clockwise after ``seat`` (``seat`` itself need not be active)."""
        for step in range(1, self.players + 1):
            other = (seat + step) % self.players
            if self.kits[other].out is None:
                return other
        return None

    def next_seat(self, seat: int) -> int:
        """``next_active`` when some player is known to be still in."""
        nxt = self.next_active(seat)
        assert nxt is not None
        return nxt

    def on_mats(self) -> int:
        return sum(len(kit.pile) for kit in self.kits)

    # ----- steps shared by both games --------------------------------------------------------
    def note(self, seat: int, public: str) -> None:
        """Append ``SEAT:public`` to this round's public log."""
        self.round_log.append(f"{seat}:{public}")

    def place(self, seat: int, action: str) -> None:
        kind = self.kind_of(action)
        self.kits[seat].place(kind)
        self.log(self.PLACE, seat=seat, disc=self.disc_name(kind))
        self.note(seat, self.PLACE)

    def begin_challenge(self, seat: int, target: int) -> None:
        """Start turning ``target`` discs, flipping the challenger's own pile automatically."""
        self.challenge = Challenge(seat, target)
        kit = self.kits[seat]
        while not self.challenge.done and kit.hidden:
            self.flip(seat, auto=True)

    def flip(self, owner: int, *, auto: bool = False) -> None:
        challenge = self.challenge
        assert challenge is not None
        kind = self.kits[owner].flip()
        challenge.flips.append((owner, kind))
        if kind == SKULL:
            challenge.skull_of = owner
        name = self.disc_name(kind)
        self.log(self.FLIP, by=challenge.by, seat=owner, disc=name, auto=auto)
        self.note(challenge.by, f"{self.FLIP}:{owner}:{name}")

    def flip_actions(self) -> list[str]:
        by = self.challenge.by if self.challenge else -1
        return [f"{self.FLIP}:{s}" for s, kit in enumerate(self.kits) if s != by and kit.hidden]

    def close_piles(self) -> None:
        """End of the turning-over: record what was learnt, everyone takes their discs back."""
        for kit in self.kits:
            kit.observe()
            kit.gather()

    def take(self, loser: int, taker: int) -> None:
        """``taker`` draws one of ``loser``'s discs blind (the referee's generator)."""
        kind = self.kits[loser].remove_random(self.rng)
        self.log("take", seat=loser, by=taker, disc=self.disc_name(kind))
        self.note(taker, f"take:{loser}")

    def drop(self, seat: int, kind: int, *, chosen: bool = True) -> None:
        """``seat`` gives up a disc of ``kind`` (its own choice, or forced when it is the last)."""
        self.kits[seat].remove(kind)
        self.log(self.DROP, seat=seat, disc=self.disc_name(kind), chosen=chosen)
        self.note(seat, self.DROP)

    def eliminate_empty(self) -> list[int]:
        """Mark active players without discs as eliminated in this round; return them."""
        gone = [s for s, kit in enumerate(self.kits) if kit.out is None and kit.owned == 0]
        for seat in gone:
            self.kits[seat].out = self.round
            self.log("eliminated", seat=seat, round=self.round)
        return gone

    def new_round_log(self) -> None:
        self.round += 1
        self.round_log = []
        self.challenge = None

    # ----- views -------------------------------------------------------------------------
    def own_view(self, seat: int) -> dict[str, Any]:
        """What ``seat`` knows of its own discs."""
        kit = self.kits[seat]
        name = self.disc_name
        return {
            "hand": {self.GOOD_NAME: kit.hand[GOOD], "skull": kit.hand[SKULL]},
            self.PILE: [name(kind) for kind in kit.pile],
            "lost": [name(kind) for kind in kit.lost],
        }

    def public_seat(self, seat: int) -> dict[str, Any]:
        """Public counts of one seat (games add their own keys)."""
        kit = self.kits[seat]
        return {"owned": kit.owned, "in_hand": kit.in_hand, "placed": len(kit.pile),
                "eliminated": kit.out is not None}

    def challenge_view(self) -> dict[str, Any]:
        challenge = self.challenge
        if challenge is None:
            return {self.SHOWN: [], "left": 0}
        return {self.SHOWN: [[owner, self.disc_name(kind)] for owner, kind in challenge.flips],
                "left": 0 if challenge.done else challenge.left}

    def common_view(self, seat: int) -> dict[str, Any]:
        view: dict[str, Any] = {"game": self.GAME, "seat": seat, "players": self.players,
                                "round": self.round, "to_act": list(self.to_act())}
        view.update(self.own_view(seat))
        view.update(self.challenge_view())
        view["log"] = list(self.round_log)
        view["results"] = list(self.results)
        view["winner"] = self.winner
        return view

    # ----- whole state, resampling, outcome ------------------------------------------------
    def full(self) -> dict[str, Any]:
        challenge = self.challenge
        return {
            "round": self.round, "steps": self.steps, "winner": self.winner,
            "kits": [kit.full() for kit in self.kits],
            "challenge": None if challenge is None else {
                "by": challenge.by, "target": challenge.target,
                "flips": [list(flip) for flip in challenge.flips],
                "skull_of": challenge.skull_of},
            "log": list(self.round_log), "results": list(self.results),
            **self.game_full(),
        }

    @abstractmethod
    def game_full(self) -> dict[str, Any]:
        """The game's own fields for ``full()``."""

    def resample(self, seat: int, rng: random.Random) -> DiscState:
        """Redraw where every other player's skull is (hand, face-down pile or removed discs)
        among the places the public history cannot rule out; reseed the future chance."""
        other = self.clone()
        assert isinstance(other, DiscState)
        for owner, kit in enumerate(other.kits):
            if owner != seat:
                kit.redraw(rng)
        other.rng = random.Random(rng.getrandbits(64))
        other.events = [{"type": "resampled", "seat": seat, "steps": self.steps}]
        return other

    @abstractmethod
    def place_key(self, seat: int) -> tuple[int, ...]:
        """Sort key of ``seat`` for placing (smaller is better, equal keys share a place)."""

    @abstractmethod
    def score(self, seat: int) -> float:
        """The seat's score in the outcome."""

    def outcome(self) -> Outcome:
        seats = range(self.players)
        return Outcome(scores=tuple(self.score(s) for s in seats),
                       places=places_from_keys([self.place_key(s) for s in seats]))


class DiscGame(Game):
    """Registry entry of a disc game: 3-6 players, no options, readable event lines."""

    state_class: ClassVar[type[DiscState]]
    min_players = 3
    max_players = 6

    def _new(self, players: int, seed: int, options: dict[str, Any]) -> DiscState:
        return self.state_class(players, seed, options)

    def format_event(self, event: Mapping[str, Any]) -> str:
        return describe(event) or super().format_event(event)


_TEMPLATES = {
    "round": "round {round}: {first_word} is seat {starter}",
    "place": "seat {seat} places a {disc}",
    "add": "seat {seat} adds a {disc}",
    "bid": "seat {seat} bids {n}",
    "claim": "seat {seat} claims {n}",
    "raise": "seat {seat} raises to {n}",
    "pass": "seat {seat} passes",
    "agree": "seat {seat} agrees",
    "disagree": "seat {seat} disagrees",
    "button": "the button passes to seat {seat}, who must raise",
    "flip": "seat {by} flips seat {seat}'s disc: {disc}{auto_word}",
    "reveal": "seat {by} reveals seat {seat}'s bill: {disc}{auto_word}",
    "success": "seat {seat} succeeds",
    "failure": "seat {seat} fails on seat {skull}'s skull",
    "take": "seat {by} draws blind from seat {seat}: {disc}",
    "discard": "seat {seat} discards a {disc}",
    "give": "seat {seat} gives up a {disc}",
    "eliminated": "seat {seat} is eliminated",
    "first": "seat {seat} chooses seat {chosen} to start",
    "win": "seat {seat} wins",
    "end": "the game ends: {why}",
    "resampled": "state resampled for seat {seat}",
}


def describe(event: Mapping[str, Any]) -> str | None:
    """One readable line for a disc-game event, or None for an unknown type."""
    template = _TEMPLATES.get(str(event.get("type")))
    if template is None:
        return None
    fields = dict(event)
    fields["auto_word"] = " (automatic)" if event.get("auto") else ""
    fields.setdefault("first_word", "dealer" if "dealer" in event else "first player")
    fields.setdefault("starter", event.get("dealer", event.get("first")))
    try:
        return template.format(**fields)
    except (KeyError, IndexError):
        return None
