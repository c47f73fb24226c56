"""Shared machinery of the face-down disc bluffing games: ``skull`` and ``skull-bank``.

Both games give every player four discs (three good ones -- flowers or roses -- and one skull),
have them put discs face down on a personal pile (Skull's *stack*, the bank variant's *row*),
and end a round with one player turning discs over: their own pile first, top first and
automatically, then one disc of another pile per decision (Skull: the top face-down disc of a
stack; the bank variant: any face-down bill of any other row), stopping at the first skull. Discs
are lost either blind (drawn at random by the referee, only the loser learns
which) or by the loser's own choice, and a player without discs is eliminated.

This module holds what the two games really share:

* ``Kit``: one player's discs (hand, face-down pile, flipped count, removed discs) and what the
  public knows about where that player's skull can be, so ``resample`` redraws hidden
  identities consistently with everything that was ever shown;
* ``Challenge``: the turning-over of N discs (Skull's challenge, the bank's showdown);
* ``DiscState``: a ``State`` base with seats, elimination bookkeeping, the public round log,
  the flip/take/drop steps with their events, the common parts of a view, ``resample``,
  ``full`` and ``outcome``. The two games add their own phases on top.

Speed: one decision (``to_act``, ``legal``, ``view``, ``apply``) is on the referee's critical
path, so ``DiscState`` keeps caches, all built lazily. Per step (dropped by every ``apply``):
the acting seats, the legal lists and the public part of a view. Per seat (dropped when that
seat's discs, answer or pass change, and for everyone at the simultaneous step and when the piles
are gathered): the seat's own-disc lists and its public counts. Views share these (never
mutated) lists and maps with each other and with the state, and legal lists are the cached
ones: callers must not mutate them. ``clone`` copies the state and starts with empty caches.
"""

from __future__ import annotations

import copy
import itertools
import random
from abc import abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from arena.games.base import Game, Outcome, State, places_from_keys

#: Disc kinds. A player owns ``GOODS_EACH`` good discs and one skull.
GOOD, SKULL = 0, 1
GOODS_EACH = 3
DISCS_EACH = GOODS_EACH + 1
#: Most seats at a disc game (sizes the tables of action strings).
MAX_SEATS = 6
#: One-seat ``to_act`` tuples by seat.
ONE_SEAT = tuple((seat,) for seat in range(MAX_SEATS))


@dataclass(slots=True)
class Kit:
    """One player's discs and the public knowledge about where that player's skull is.

    ``hand`` counts the discs in hand by kind (``[good, skull]``); ``pile`` is the face-down
    pile, bottom first; ``up`` lists the positions in it turned face up this round (position 0
    is the bottom, the first disc put down), in the order they were turned; ``lost``
    are the removed discs in order of loss (their identities are known only to the owner).
    ``lost[:known_lost]`` are publicly known to be good (the skull was seen after those losses);
    when ``gone_by`` is set the skull is publicly known to be among ``lost[:gone_by]`` (every disc
    the player owned was once shown good). ``out`` is the round of elimination.
    """

    hand: list[int] = field(default_factory=lambda: [GOODS_EACH, 1])
    pile: list[int] = field(default_factory=list)
    up: list[int] = field(default_factory=list)
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
        return len(self.pile) - len(self.up)

    def face_down(self) -> list[int]:
        """The positions of the pile still face down, bottom first."""
        up = self.up
        return [i for i in range(len(self.pile)) if i not in up]

    def top_down(self) -> int:
        """The position of the topmost face-down disc (the pile has one)."""
        up, at = self.up, len(self.pile) - 1
        while at in up:
            at -= 1
        return at

    def skull_up(self) -> bool:
        """Whether this pile's skull lies face up."""
        pile = self.pile
        return any(pile[i] == SKULL for i in self.up)

    def close(self) -> None:
        """End of the round's turning-over: record what the public learnt about the skull
        from the flips, then take the pile back into the hand."""
        pile, hand = self.pile, self.hand
        if not pile:
            return
        if self.skull_up():
            self.known_lost = len(self.lost)
        elif self.gone_by is None and len(self.up) == len(pile) and hand[GOOD] + hand[SKULL] == 0:
            self.gone_by = len(self.lost)
        skulls = pile.count(SKULL)
        hand[SKULL] += skulls
        hand[GOOD] += len(pile) - skulls
        pile.clear()
        self.up = []

    def remove(self, kind: int) -> None:
        """Remove one disc of ``kind`` from the hand (after ``close``)."""
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
        if self.skull_up():
            return
        lo = self.known_lost
        hi = len(self.lost) if self.gone_by is None else self.gone_by
        down = self.face_down()
        owned_slots = 0 if self.gone_by is not None else self.in_hand + len(down)
        pick = rng.randrange(hi - lo + owned_slots)
        self.lost[lo:] = [GOOD] * (len(self.lost) - lo)
        self.hand = [self.in_hand, 0]
        for at in down:
            self.pile[at] = GOOD
        if pick < hi - lo:
            self.lost[lo + pick] = SKULL
            return
        pick -= hi - lo
        if pick < self.in_hand:
            self.hand = [self.in_hand - 1, 1]
        else:
            self.pile[down[pick - self.in_hand]] = SKULL

    def copy(self) -> Kit:
        """An independent copy."""
        return Kit(list(self.hand), list(self.pile), list(self.up), list(self.lost),
                   self.known_lost, self.gone_by, self.out)

    def full(self) -> dict[str, Any]:
        return {"hand": list(self.hand), "pile": list(self.pile), "shown": len(self.up),
                "lost": list(self.lost), "known_lost": self.known_lost,
                "gone_by": self.gone_by, "out": self.out}


@dataclass(slots=True)
class Challenge:
    """Seat ``by`` turning over ``target`` discs; ``flips`` are ``(owner, kind)`` in order and
    ``positions`` the pile position of each."""

    by: int
    target: int
    flips: list[tuple[int, int]] = field(default_factory=list)
    skull_of: int | None = None
    positions: list[int] = field(default_factory=list)

    @property
    def done(self) -> bool:
        return self.skull_of is not None or len(self.flips) == self.target


def kind_table(verb: str, good: str) -> tuple[tuple[str, ...], ...]:
    """``verb:good`` / ``verb:skull`` actions indexed by ``hand_mask`` of a hand, good first."""
    return ((), (f"{verb}:{good}",), (f"{verb}:skull",), (f"{verb}:{good}", f"{verb}:skull"))


def hand_mask(hand: list[int]) -> int:
    """1 if the hand holds a good disc, plus 2 if it holds the skull."""
    return (hand[GOOD] > 0) + 2 * (hand[SKULL] > 0)


def name_table(good: str) -> dict[tuple[int, ...], tuple[str, ...]]:
    """Disc names of every sequence of kinds up to twice a player's discs (piles and removed
    discs hold at most ``DISCS_EACH``)."""
    names = (good, "skull")
    return {seq: tuple(names[kind] for kind in seq) for length in range(2 * DISCS_EACH + 1)
            for seq in itertools.product((GOOD, SKULL), repeat=length)}


class DiscState(State):
    """Common state of the disc games. Subclasses name their words and add their phases.

    Class words: ``GOOD_NAME`` (flower/rose), ``PILE`` (stack/row, the view key of one's own
    pile), ``PLACE`` (place/add), ``FLIP`` (flip/reveal), ``DROP`` (discard/give),
    ``SHOWN`` (view key of the public list of turned discs). ``TOGETHER`` is the phase in which
    every player still in puts a disc down at once; ``LISTS`` names the game's own flat lists
    (copied by ``clone``). The action tables ``NAMES``, ``PLACES``, ``DROPS`` and ``FLIPS`` are
    derived from the words when the subclass is created.

    A subclass implements ``to_act`` (cached in ``_acting``) and the hooks ``_seat_legal``,
    ``_act`` (one seat's legal action), ``_after_put_down``, ``_build_base`` and
    ``_build_entry`` (see the module docstring for the caches they fill).
    """

    GAME: ClassVar[str]
    GOOD_NAME: ClassVar[str]
    PILE: ClassVar[str]
    PLACE: ClassVar[str]
    FLIP: ClassVar[str]
    DROP: ClassVar[str]
    SHOWN: ClassVar[str]
    TOGETHER: ClassVar[Any]
    LISTS: ClassVar[tuple[str, ...]] = ()
    #: Whether turned discs are named by pile position too (the bank variant reveals any).
    FLIP_POSITIONS: ClassVar[bool] = False
    NAMES: ClassVar[tuple[str, str]]
    NAME_SEQS: ClassVar[dict[tuple[int, ...], tuple[str, ...]]]
    PLACES: ClassVar[tuple[tuple[str, ...], ...]]
    DROPS: ClassVar[tuple[tuple[str, ...], ...]]
    FLIPS: ClassVar[tuple[str, ...]]
    PLACE_NOTES: ClassVar[tuple[str, ...]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "GOOD_NAME" in vars(cls):
            cls.NAMES = (cls.GOOD_NAME, "skull")
            cls.NAME_SEQS = name_table(cls.GOOD_NAME)
            cls.PLACES = kind_table(cls.PLACE, cls.GOOD_NAME)
            cls.DROPS = kind_table(cls.DROP, cls.GOOD_NAME)
            cls.FLIPS = tuple(f"{cls.FLIP}:{seat}" for seat in range(MAX_SEATS))
            cls.PLACE_NOTES = tuple(f"{seat}:{cls.PLACE}" for seat in range(MAX_SEATS))

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
        self.mats = 0  # discs on all piles: kept by place() and close_piles()
        self._clear_caches()

    # ----- caches ------------------------------------------------------------------------
    def _clear_caches(self) -> None:
        """Drop every cache (a new or cloned state)."""
        n = self.players
        self._acting: tuple[int, ...] | None = None
        self._legal: dict[int, list[str]] | None = None
        self._base: dict[str, Any] | None = None
        self._own: list[tuple[dict[str, int], list[str], list[str]] | None] = [None] * n
        self._entries: list[dict[str, Any] | None] = [None] * n
        self._seats_view: list[dict[str, Any]] | None = None
        self._parts: tuple[list[list[Any]], int, list[dict[str, Any]]] | None = None
        self._ring: list[int | None] | None = None

    def _touch(self, seat: int) -> None:
        """``seat``'s discs changed: drop its cached view parts."""
        self._own[seat] = self._entries[seat] = self._seats_view = None

    def _touch_entry(self, seat: int) -> None:
        """``seat``'s pass or answer changed: drop its public entry."""
        self._entries[seat] = self._seats_view = None

    def _touch_all(self) -> None:
        """Everyone's discs changed."""
        self._own = [None] * self.players
        self._touch_entries()

    def _touch_entries(self) -> None:
        """Everyone's pass or answer changed."""
        self._entries = [None] * self.players
        self._seats_view = None

    def kinds(self, seat: int, table: tuple[tuple[str, ...], ...]) -> tuple[str, ...]:
        """The actions of ``table`` (``PLACES``/``DROPS``) for the kinds in ``seat``'s hand."""
        return table[hand_mask(self.kits[seat].hand)]

    # ----- seats -------------------------------------------------------------------------
    def active_seats(self) -> tuple[int, ...]:
        seats = []
        for seat, kit in enumerate(self.kits):
            if kit.out is None:
                seats.append(seat)
        return tuple(seats)

    def next_active(self, seat: int) -> int | None:
        """The first active seat clockwise after ``seat`` (``seat`` itself need not be active);
        cached until someone is eliminated."""
        return (self._ring or self._build_ring())[seat]

    def next_seat(self, seat: int) -> int:
        """``next_active`` when some player is known to be still in."""
        nxt = (self._ring or self._build_ring())[seat]
        assert nxt is not None
        return nxt

    def _build_ring(self) -> list[int | None]:
        """``next_active`` of every seat, walking the table backwards twice round."""
        kits, n = self.kits, self.players
        ring: list[int | None] = [None] * n
        nxt = None
        for at in range(2 * n - 1, -1, -1):
            seat = at % n
            if at < n:
                ring[seat] = nxt
            if kits[seat].out is None:
                nxt = seat
        self._ring = ring
        return ring

    # ----- the State interface, with fast paths ------------------------------------------
    def legal(self, seat: int) -> list[str]:
        """The cached legal list of ``seat`` this step (do not mutate it)."""
        cache = self._legal
        if cache is None:
            cache = self._legal = self._compute_legal()
        return cache.get(seat) or []

    def _compute_legal(self) -> dict[int, list[str]]:
        """Each acting seat's legal list (cached per step by ``legal``)."""
        acting = self._acting or self.to_act()
        if self.phase is self.TOGETHER:  # the kinds each seat holds
            kits, places = self.kits, self.PLACES
            return {seat: list(places[hand_mask(kits[seat].hand)]) for seat in acting}
        if not acting:  # over
            return {}
        seat = acting[0]
        return {seat: self._seat_legal(seat)}

    def apply(self, actions: Mapping[int, str],
              legal: Mapping[int, Sequence[str]] | None = None) -> None:
        """As ``State.apply``, checking legal joint actions against the cached legal lists.

        ``legal`` is accepted for the interface; anything not plainly legal goes through
        ``State.apply``, which raises the right error."""
        acting = self._acting
        if acting is None:
            acting = self.to_act()
        if acting and len(actions) == len(acting):
            offered = self._legal
            if offered is None:
                offered = self._legal = self._compute_legal()
            if len(acting) == 1:
                seat = acting[0]
                action = actions.get(seat)
                if action is not None and action in offered[seat]:
                    self._act(seat, action)
                    self._acting = self._legal = self._base = None
                    self.steps += 1
                    return
            else:
                for seat in acting:
                    if actions.get(seat) not in offered[seat]:
                        break
                else:
                    self._put_down(actions)
                    self._acting = self._legal = self._base = None
                    self.steps += 1
                    return
        super().apply(actions, legal)

    def _apply(self, actions: Mapping[int, str]) -> None:
        if self.phase is self.TOGETHER:
            self._put_down(actions)
        else:
            ((seat, action),) = actions.items()
            self._act(seat, action)
        self._acting = self._legal = self._base = None

    def _put_down(self, actions: Mapping[int, str]) -> None:
        """The simultaneous step: every acting seat places one disc, in seat order."""
        for seat in sorted(actions):
            self.place(seat, SKULL if actions[seat].endswith(":skull") else GOOD)
        self._touch_all()
        self._ring = None
        self._after_put_down()

    @abstractmethod
    def _seat_legal(self, seat: int) -> list[str]:
        """The legal list of ``seat``, acting alone."""

    @abstractmethod
    def _act(self, seat: int, action: str) -> None:
        """Apply one seat's legal action outside the simultaneous step."""

    @abstractmethod
    def _after_put_down(self) -> None:
        """Start the turns once every disc of the simultaneous step is down."""

    # ----- steps shared by both games --------------------------------------------------------
    def note(self, seat: int, public: str) -> None:
        """Append ``SEAT:public`` to this round's public log."""
        self.round_log.append(f"{seat}:{public}")

    def place(self, seat: int, kind: int) -> None:
        kit = self.kits[seat]
        kit.hand[kind] -= 1
        kit.pile.append(kind)
        self.mats += 1
        self.events.append({"type": self.PLACE, "seat": seat, "disc": self.NAMES[kind]})
        self.round_log.append(self.PLACE_NOTES[seat])
        self._own[seat] = self._entries[seat] = self._seats_view = None

    def begin_challenge(self, seat: int, target: int) -> None:
        """Start turning ``target`` discs, flipping the challenger's own pile automatically."""
        self.challenge = challenge = Challenge(seat, target)
        self._parts = None
        kit = self.kits[seat]
        while not challenge.done and kit.hidden:
            self.flip(seat, True)

    def flip(self, owner: int, auto: bool = False, position: int | None = None) -> None:
        """Turn over ``owner``'s disc at ``position`` (default: its topmost face-down one)."""
        challenge = self.challenge
        assert challenge is not None
        kit = self.kits[owner]
        at = kit.top_down() if position is None else position
        kit.up.append(at)
        kind = kit.pile[at]
        challenge.flips.append((owner, kind))
        challenge.positions.append(at)
        if kind == SKULL:
            challenge.skull_of = owner
        name = self.NAMES[kind]
        by = challenge.by
        event = {"type": self.FLIP, "by": by, "seat": owner, "disc": name, "auto": auto}
        if self.FLIP_POSITIONS:
            event["position"] = at
            self.round_log.append(f"{by}:{self.FLIP}:{owner}:{at}:{name}")
        else:
            self.round_log.append(f"{by}:{self.FLIP}:{owner}:{name}")
        self.events.append(event)
        self._parts = None

    def flip_actions(self) -> list[str]:
        by = self.challenge.by if self.challenge else -1
        flips = self.FLIPS
        actions = []
        for seat, kit in enumerate(self.kits):
            if seat != by and kit.hidden:
                actions.append(flips[seat])
        return actions

    def close_piles(self) -> None:
        """End of the turning-over: record what was learnt, everyone takes their discs back."""
        for kit in self.kits:
            kit.close()
        self.mats = 0
        self._touch_all()

    def take(self, loser: int, taker: int) -> None:
        """``taker`` draws one of ``loser``'s discs blind (the referee's generator)."""
        kind = self.kits[loser].remove_random(self.rng)
        self.events.append({"type": "take", "seat": loser, "by": taker,
                            "disc": self.NAMES[kind]})
        self.note(taker, f"take:{loser}")
        self._touch(loser)

    def drop(self, seat: int, kind: int, *, chosen: bool = True) -> None:
        """``seat`` gives up a disc of ``kind`` (its own choice, or forced when it is the last)."""
        self.kits[seat].remove(kind)
        self.events.append({"type": self.DROP, "seat": seat, "disc": self.NAMES[kind],
                            "chosen": chosen})
        self.note(seat, self.DROP)
        self._touch(seat)

    def eliminate_empty(self) -> list[int]:
        """Mark active players without discs as eliminated in this round; return them."""
        gone = []
        for seat, kit in enumerate(self.kits):
            if kit.out is None and not kit.pile and kit.hand[GOOD] + kit.hand[SKULL] == 0:
                gone.append(seat)
        for seat in gone:
            self.kits[seat].out = self.round
            self.events.append({"type": "eliminated", "seat": seat, "round": self.round})
            self._touch(seat)
            self._ring = None
        return gone

    def new_round_log(self) -> None:
        self.round += 1
        self.round_log = []
        self.challenge = None
        self._parts = None

    def add_result(self, result: dict[str, Any]) -> None:
        """Append the summary of the round that just ended."""
        self.results.append(result)
        self._parts = None

    # ----- views -------------------------------------------------------------------------
    def view(self, seat: int) -> dict[str, Any]:
        view = (self._base or self._build_base()).copy()
        view["seat"] = seat
        view["hand"], view[self.PILE], view["lost"] = self._own[seat] or self._build_own(seat)
        return view

    def _build_own(self, seat: int) -> tuple[dict[str, int], list[str], list[str]]:
        """What ``seat`` knows of its own discs: hand counts, pile and removed discs."""
        kit = self.kits[seat]
        hand, seqs = kit.hand, self.NAME_SEQS
        own = self._own[seat] = ({self.GOOD_NAME: hand[GOOD], "skull": hand[SKULL]},
                                 list(seqs[tuple(kit.pile)]), list(seqs[tuple(kit.lost)]))
        return own

    def shared_parts(self) -> tuple[list[list[Any]], int, list[dict[str, Any]]]:
        """The turned discs, the flips still owed and the earlier rounds' results, as views
        show them (cached until a flip, a result or a new round)."""
        challenge = self.challenge
        if challenge is None:
            parts: tuple[list[list[Any]], int, list[dict[str, Any]]] = (
                [], 0, list(self.results))
        else:
            names = self.NAMES
            flips = challenge.flips
            shown = ([[owner, at, names[kind]] for (owner, kind), at
                      in zip(flips, challenge.positions)] if self.FLIP_POSITIONS
                     else [[owner, names[kind]] for owner, kind in flips])
            parts = (shown,
                     0 if challenge.skull_of is not None else challenge.target - len(flips),
                     list(self.results))
        self._parts = parts
        return parts

    @abstractmethod
    def _build_base(self) -> dict[str, Any]:
        """This step's view with the seat's own keys as placeholders, stored in ``_base``:
        ``game``, ``seat``, ``players``, ``round``, ``to_act``, ``hand``, ``PILE``, ``lost``,
        ``SHOWN``, ``left``, ``log``, ``results``, ``winner``, then the game's keys."""

    def seats_view(self) -> list[dict[str, Any]]:
        """The public ``seats`` list of a view (cached until a seat changes)."""
        seats = self._seats_view
        if seats is None:
            seats = self._seats_view = list(self._entries)
            for seat, entry in enumerate(seats):
                if entry is None:
                    seats[seat] = self._build_entry(seat)
        return seats

    @abstractmethod
    def _build_entry(self, seat: int) -> dict[str, Any]:
        """``seat``'s public entry of ``seats``, stored in ``self._entries[seat]``: ``owned``,
        ``in_hand``, ``placed``, ``eliminated``, then the game's keys."""

    # ----- whole state, copies, resampling, outcome -----------------------------------------
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

    def clone(self) -> DiscState:
        """An independent copy with empty caches (events and results, never mutated once
        logged, are shared)."""
        other = copy.copy(self)
        other.options = dict(self.options)
        other.rng = random.Random()
        other.rng.setstate(self.rng.getstate())
        other.events = list(self.events)
        other.kits = [kit.copy() for kit in self.kits]
        other.round_log = list(self.round_log)
        other.results = list(self.results)
        challenge = self.challenge
        if challenge is not None:
            other.challenge = Challenge(challenge.by, challenge.target, list(challenge.flips),
                                        challenge.skull_of, list(challenge.positions))
        for name in self.LISTS:
            setattr(other, name, list(getattr(self, name)))
        other._clear_caches()
        return other

    def resample(self, seat: int, rng: random.Random) -> DiscState:
        """Redraw where every other player's skull is (hand, face-down pile or removed discs)
        among the places the public history cannot rule out; reseed the future chance."""
        other = self.clone()
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
    max_players = MAX_SEATS

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
