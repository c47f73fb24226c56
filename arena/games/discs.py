"""What the two face-down disc games, ``skull`` and ``skull-bank``, share.

Both games give every player four discs (three good ones -- flowers or roses -- and one skull),
have them put discs face down on a personal pile (Skull's *stack*, the bank variant's *row*),
and end a round with one player turning discs over: their own pile first, top first and
automatically, then one disc of another pile per decision, stopping at the first skull. Discs
are lost either blind (drawn at random with the game's generator, only the loser learns which)
or by the loser's own choice, and a player without discs is eliminated. See
``docs/games/skull.md`` and ``docs/games/skull-bank.md``.

``DiscState`` holds seats and eliminations, the round's public log, placing, turning over,
taking and giving up discs, the common part of a view, ``full``, ``resample`` and ``outcome``;
the two games add their phases and actions on top. The discs themselves (``Kit``) and the
turning over (``Challenge``) are in ``arena.games.discs_kit``; what a view shows of them, read
for a state rebuilt from it, in ``arena.games.discs_view``.
"""

from __future__ import annotations

import copy
import itertools
import random
from abc import abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar

from arena.games import discs_words
from arena.games.base import Game, Outcome, State, places_from_keys
from arena.games.discs_kit import (
    DISCS_EACH,
    GOOD,
    GOODS_EACH,
    SKULL,
    Challenge,
    Flip,
    Kit,
    redraw_others,
)
from arena.games.discs_view import RoundEnd, ViewWords, shown_challenge, shown_kits

__all__ = [
    "DISCS_EACH",
    "MOVES",
    "OVER",
    "GOOD",
    "GOODS_EACH",
    "SKULL",
    "DiscGame",
    "DiscState",
    "Kit",
    "parse_move",
]

#: Most seats at a disc game.
MAX_SEATS = 6
#: The phase of a finished game, in both games.
OVER = "over"
#: The disc kinds by the names the actions give them (either game's good disc, the skull).
DISC_KINDS = {"flower": GOOD, "rose": GOOD, "skull": SKULL}
#: The start of a note in a round's public log by seat (``NOTED_BY[2]`` is ``"2:"``): adding
#: it to the note is several times faster than formatting the seat's number.
NOTED_BY = tuple(f"{seat}:" for seat in range(MAX_SEATS))
#: The actions parsed so far, by ``parse_move``.
MOVES: dict[str, tuple[str, Any]] = {}


def parse_move(action: str) -> tuple[str, Any]:
    """An action's verb and argument: a disc kind for a disc's name, a number, a pair of
    numbers for ``owner,position``, or None (``"bid:3"`` is ``("bid", 3)``), kept in ``MOVES``
    so that each action is parsed once (read it as ``MOVES.get(action) or
    parse_move(action)``)."""
    verb, _, text = action.partition(":")
    argument: Any
    if text in DISC_KINDS:
        argument = DISC_KINDS[text]
    elif "," in text:
        argument = tuple(int(part) for part in text.split(","))
    else:
        argument = int(text) if text else None
    move = MOVES[action] = (verb, argument)
    return move


def numbered(verb: str) -> tuple[str, ...]:
    """The actions ``verb:0`` ... ``verb:N`` for every number up to the discs of a full table
    (``numbered(verb)[n]`` is ``verb:n``)."""
    return tuple(f"{verb}:{n}" for n in range(DISCS_EACH * MAX_SEATS + 1))


def phase_of(view: Mapping[str, Any], phases: tuple[str, ...]) -> str:
    """The phase a view shows, one of ``phases`` (else ValueError)."""
    if view["phase"] not in phases:
        raise ValueError(f"no such phase: {view['phase']!r}")
    return str(view["phase"])


class DiscState(State):
    """Common state of the disc games. Subclasses name their words and add their phases.

    Class words: ``GAME`` (the game id), ``GOOD_NAME`` (flower/rose), ``PILE`` (stack/row,
    the view key of one's own pile), ``PLACE`` (place/add), ``FLIP`` (flip/reveal), ``DROP``
    (discard/give), ``SHOWN`` (the view key of the discs turned this round); ``SHOW_POSITION``:
    whether a turned disc is named by its pile position too. ``TOGETHER`` is the phase in which
    every player still in puts a disc down at once, ``OVER`` the phase of a finished game.
    Outside ``TOGETHER`` one seat acts at a time (the game's ``to_act``). ``NAMES`` (the disc
    names by kind), ``NAME_LISTS`` (the names of every list of kinds a pile or the lost discs
    can be: a player owns ``DISCS_EACH`` discs), ``KINDS`` (the kinds by name), ``PLACES`` and
    ``DROPS`` (the actions that put down or give up a disc, by kind) and ``VIEW_WORDS`` (the
    words as a value, for reading a view) follow from the words.

    ``active`` (the players still in) and ``on_piles`` (the discs on all piles) are kept up to
    date by the steps that change them, and so are the parts of the views the steps change:
    ``entries`` (each seat's public entry) and ``owns`` (what each seat's view shows of its own
    discs), both dropped by the steps that change them (see ``show``) and made again for the
    next view, and ``shown`` (the discs turned this round). ``shown``,
    ``seats`` (the list of entries views show) and ``results`` (the rounds' summaries) are
    replaced, never changed in place, so views share them. ``acting`` is what the game's
    ``to_act`` answered this step (None until it is asked; every step drops it): views and legal
    lists read it as ``self.acting or self.to_act()``, a call fewer. ``public`` is the part of
    this step's views every seat sees alike (None until a view is asked; every step, a copy and
    a rebuild drop it): views read it as ``self.public or self.public_view()``.
    """

    GAME: ClassVar[str]
    GOOD_NAME: ClassVar[str]
    PILE: ClassVar[str]
    PLACE: ClassVar[str]
    FLIP: ClassVar[str]
    DROP: ClassVar[str]
    SHOWN: ClassVar[str]
    SHOW_POSITION: ClassVar[bool] = False
    TOGETHER: ClassVar[str]
    OVER: ClassVar[str]
    NAMES: ClassVar[tuple[str, str]]
    NAME_LISTS: ClassVar[dict[tuple[int, ...], tuple[str, ...]]]
    KINDS: ClassVar[dict[str, int]]
    PLACES: ClassVar[tuple[str, str]]
    DROPS: ClassVar[tuple[str, str]]
    VIEW_WORDS: ClassVar[ViewWords]
    phase: str

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "GOOD_NAME" in vars(cls):
            cls.NAMES = (cls.GOOD_NAME, "skull")
            cls.KINDS = {cls.GOOD_NAME: GOOD, "skull": SKULL}
            cls.PLACES = (f"{cls.PLACE}:{cls.GOOD_NAME}", f"{cls.PLACE}:skull")
            cls.DROPS = (f"{cls.DROP}:{cls.GOOD_NAME}", f"{cls.DROP}:skull")
            cls.VIEW_WORDS = ViewWords(
                cls.GOOD_NAME, cls.PILE, cls.PLACE, cls.SHOWN, cls.SHOW_POSITION, cls.KINDS
            )
            cls.NAME_LISTS = {
                kinds: tuple(cls.NAMES[kind] for kind in kinds)
                for length in range(DISCS_EACH + 1)
                for kinds in itertools.product((GOOD, SKULL), repeat=length)
            }

    def __init__(self, players: int, seed: int, options: dict[str, Any]) -> None:
        self.players = players
        self.seed = seed
        self.options = dict(options)
        self.rng = random.Random(seed)
        self.events = []
        self.steps = 0
        self.kits = [Kit() for _ in range(players)]
        self.active = tuple(range(players))
        self.on_piles = 0
        self.round = 1
        self.round_log: list[str] = []
        self.results: list[dict[str, Any]] = []
        self.challenge: Challenge | None = None
        self.shown: list[list[Any]] = []
        self.winner: int | None = None
        self.turn = 0
        self.acting: tuple[int, ...] | None = None
        self.public: dict[str, Any] | None = None
        self.entries: list[dict[str, Any] | None] = [None] * players
        self.owns: list[tuple[dict[str, int], list[str], list[str]] | None] = [None] * players
        self.seats: list[dict[str, Any]] | None = None

    # ----- words ---------------------------------------------------------------------------
    def kinds_held(self, seat: int, actions: tuple[str, str]) -> list[str]:
        """Of ``actions`` (``PLACES`` or ``DROPS``), those of the kinds in ``seat``'s hand."""
        good, skull = self.kits[seat].hand
        if good and skull:
            return list(actions)
        return [actions[GOOD]] if good else [actions[SKULL]] if skull else []

    # ----- seats ---------------------------------------------------------------------------
    def next_active(self, seat: int) -> int | None:
        """The first player still in clockwise after ``seat`` (``seat`` itself last)."""
        return self.next_seat(seat) if self.active else None

    def next_seat(self, seat: int) -> int:
        """``next_active`` when some player is known to be still in."""
        for other in self.active:
            if other > seat:
                return other
        return self.active[0]

    # ----- the State interface -------------------------------------------------------------
    def is_over(self) -> bool:
        return self.phase == OVER

    def _apply(self, actions: Mapping[int, str]) -> None:
        self.acting = self.public = None  # (the step changes who acts and what views show)
        if self.phase == self.TOGETHER:
            for seat in sorted(actions):
                _, kind = MOVES.get(actions[seat]) or parse_move(actions[seat])
                self.place(seat, kind)
            self._after_put_down()
            return
        ((seat, action),) = actions.items()
        verb, argument = MOVES.get(action) or parse_move(action)
        if verb == self.PLACE:
            self.place(seat, argument)
            self.turn = self.next_seat(seat)
        else:
            self._act(seat, verb, argument)

    @abstractmethod
    def _after_put_down(self) -> None:
        """Start the turns once every disc of the simultaneous step is down."""

    @abstractmethod
    def _act(self, seat: int, verb: str, argument: Any) -> None:
        """Apply one seat's legal action other than putting a disc down: its ``verb`` and its
        ``argument`` as ``parse_move`` reads it (a disc kind, a number, a pair of numbers)."""

    # ----- steps shared by both games ------------------------------------------------------
    def note(self, seat: int, public: str, event: dict[str, Any]) -> None:
        """Log ``event`` (as ``log`` does) and append ``SEAT:public``, what everyone saw of it,
        to this round's public log."""
        if self.recording:
            self.events.append(event)
        self.round_log.append(NOTED_BY[seat] + public)

    def place(self, seat: int, kind: int) -> None:
        """``seat`` puts a disc of ``kind`` face down on top of its pile."""
        self.kits[seat].put_down(kind)
        self.on_piles += 1
        self.show(seat)
        verb = self.PLACE
        self.note(seat, verb, {"type": verb, "seat": seat, "disc": self.NAMES[kind]})

    def begin_challenge(self, seat: int, target: int) -> None:
        """Start turning ``target`` discs, flipping the challenger's own pile automatically."""
        challenge = self.challenge = Challenge(seat, target)
        own = self.kits[seat]
        while not challenge.done and own.down:  # (its face-down discs, top first)
            self.flip(seat, own.top_down(), auto=True)
        self._after_flip()

    def turn_over(self, owner: int, position: int) -> None:
        """The challenger's decision: turn over ``owner``'s disc at ``position``."""
        self.flip(owner, position)
        self._after_flip()

    def flip(self, owner: int, position: int, auto: bool = False) -> None:
        """Turn over ``owner``'s disc at ``position``; a skull ends the turning-over."""
        challenge = self.challenge
        assert challenge is not None
        kind = self.kits[owner].turn_up(position)
        challenge.flips.append(Flip(owner, position, kind))
        if kind == SKULL:
            challenge.skull_of = owner
        by, name, verb = challenge.by, self.NAMES[kind], self.FLIP
        event = {"type": verb, "by": by, "seat": owner, "disc": name, "auto": auto}
        if self.SHOW_POSITION:
            event["position"] = position
            self.shown = [*self.shown, [owner, position, name]]
            self.note(by, f"{verb}:{owner}:{position}:{name}", event)
        else:
            self.shown = [*self.shown, [owner, name]]
            self.note(by, f"{verb}:{owner}:{name}", event)

    def _after_flip(self) -> None:
        """Once N good discs or a skull are shown, everyone takes their discs back and the
        challenger has succeeded or failed."""
        challenge = self.challenge
        assert challenge is not None
        if not challenge.done:
            return
        self.close_piles()
        if challenge.skull_of is None:
            self.log({"type": "success", "seat": challenge.by})
            self.succeeded(challenge.by)
        else:
            self.log({"type": "failure", "seat": challenge.by, "skull": challenge.skull_of})
            self.failed(challenge.by, challenge.skull_of)

    @abstractmethod
    def succeeded(self, seat: int) -> None:
        """``seat`` turned over N good discs."""

    @abstractmethod
    def failed(self, seat: int, owner: int) -> None:
        """``seat`` met ``owner``'s skull."""

    def close_piles(self) -> None:
        """End of the turning-over: record what was learnt, everyone takes their discs back."""
        for kit in self.kits:
            kit.close()
        self.on_piles = 0
        self.show_all()

    def take(self, loser: int, taker: int) -> None:
        """``taker`` draws one of ``loser``'s discs blind (the game's generator)."""
        kind = self.kits[loser].remove_random(self.rng)
        self.show(loser)
        event = {"type": "take", "seat": loser, "by": taker, "disc": self.NAMES[kind]}
        self.note(taker, f"take:{loser}", event)

    def drop(self, seat: int, kind: int, *, chosen: bool = True) -> None:
        """``seat`` gives up a disc of ``kind`` (its own choice, or forced when it is the last)."""
        self.kits[seat].remove(kind)
        self.show(seat)
        verb = self.DROP
        event = {"type": verb, "seat": seat, "disc": self.NAMES[kind], "chosen": chosen}
        self.note(seat, verb, event)

    def eliminate_empty(self) -> list[int]:
        """Mark the players still in without discs as eliminated this round; return them."""
        kits = self.kits  # (a player without discs holds none and has none down)
        gone = [seat for seat in self.active if not any(kits[seat].hand) and not kits[seat].pile]
        for seat in gone:
            self.kits[seat].eliminate(self.round)
            self.log({"type": "eliminated", "seat": seat, "round": self.round})
        if gone:
            self.active = tuple(seat for seat in self.active if seat not in gone)
            for seat in gone:
                self.show(seat)
        return gone

    def new_round_log(self) -> None:
        """The next round starts with an empty public log and no challenge."""
        self.round += 1
        self.round_log = []
        self.challenge = None
        self.shown = []

    # ----- views ---------------------------------------------------------------------------
    def view(self, seat: int) -> dict[str, Any]:
        view = (self.public or self.public_view()).copy()
        view["seat"] = seat
        view["hand"], view[self.PILE], view["lost"] = self.owns[seat] or self.own_discs(seat)
        return view

    def own_discs(self, seat: int) -> tuple[dict[str, int], list[str], list[str]]:
        """What ``seat``'s view shows of its own discs: its hand by name, its pile and the discs
        it lost; kept in ``owns`` until a step changes them (``show``)."""
        kit, names = self.kits[seat], self.NAME_LISTS
        own = self.owns[seat] = (
            {self.GOOD_NAME: kit.hand[GOOD], "skull": kit.hand[SKULL]},
            list(names[tuple(kit.pile)]),
            list(names[tuple(kit.lost)]),
        )
        return own

    @abstractmethod
    def public_view(self) -> dict[str, Any]:
        """The part of a view every seat sees alike, made once per step and kept in ``public``:
        the whole view with places for the seat's own keys (``seat``, ``hand``, its pile,
        ``lost``), which ``view`` fills in."""

    def refresh(self) -> None:
        """Derive the kept parts (``active``, ``on_piles``, ``entries``) from the discs anew, after
        the discs were set by other means than the rule steps (a rebuild, a test's position)."""
        self.active = tuple(seat for seat, kit in enumerate(self.kits) if kit.out is None)
        self.acting = self.public = None
        self.on_piles = sum(len(kit.pile) for kit in self.kits)
        self.show_all()

    def show(self, seat: int) -> None:
        """A step changed ``seat``'s discs or the game's own entries of ``seat``: its entry in
        ``seats`` and what its view shows of its own discs (``owns``) are made again for the
        next view (``seat_entries``, ``own_discs``)."""
        self.entries[seat] = self.owns[seat] = self.seats = None

    def show_all(self) -> None:
        """``show`` for every seat."""
        self.entries = [None] * self.players
        self.owns = [None] * self.players
        self.seats = None

    def seat_entries(self) -> list[dict[str, Any]]:
        """The ``seats`` list of the views, made again after a step changed an entry (``show``
        drops the entry and the list; views read ``self.seats or self.seat_entries()``): each
        dropped entry is made anew. The list is replaced, never changed in place."""
        entries = self.entries
        for seat, entry in enumerate(entries):
            if entry is None:
                kit = self.kits[seat]
                in_hand, placed = kit.hand[GOOD] + kit.hand[SKULL], len(kit.pile)
                owned, out = in_hand + placed, kit.out
                entries[seat] = self.seat_entry(seat, owned, in_hand, placed, out)
        seats = self.seats = list(entries)
        return seats

    @abstractmethod
    def seat_entry(
        self, seat: int, owned: int, in_hand: int, placed: int, out: int | None
    ) -> dict[str, Any]:
        """``seat``'s entry in ``seats``: the discs it ``owned``, has ``in_hand`` and
        ``placed``, whether it is eliminated (``out``), then the game's own keys."""

    # ----- rebuilding from a view ----------------------------------------------------------
    def load_view(self, view: Mapping[str, Any], seat: int, rng: random.Random) -> None:
        """The common part of ``seat``'s ``view`` as shown (others' hidden discs all good, see
        ``arena.games.discs_view``), then its game's own part (``load_game_view``); then every
        other player's skull is placed at random by ``rng`` (see ``State.load_view``)."""
        self.round = int(view["round"])
        self.round_log = list(view["log"])
        self.results = [dict(result) for result in view["results"]]
        self.winner = view["winner"]
        self.load_game_view(view)
        ends = [
            RoundEnd(
                int(result["round"]),
                result.get("skull"),
                self.round_losers(result),
                self.round_eliminated(result),
            )
            for result in self.results
        ]
        words = self.VIEW_WORDS
        self.kits = shown_kits(view, seat, self.players, words, ends)
        self.challenge = shown_challenge(view, self.challenge_of_view(view), words, self.kits, ends)
        self.shown = list(view[self.SHOWN])
        self.refresh()
        redraw_others(self.kits, seat, rng)
        self.rng = random.Random(rng.getrandbits(64))

    @abstractmethod
    def load_game_view(self, view: Mapping[str, Any]) -> None:
        """Set the game's own fields (phase, turn, bids, per-seat columns) from a view."""

    @abstractmethod
    def challenge_of_view(self, view: Mapping[str, Any]) -> tuple[int | None, int]:
        """The challenger and the number of discs to turn, as a view shows them (None: the
        turning-over of this round has not started)."""

    @abstractmethod
    def round_losers(self, result: Mapping[str, Any]) -> list[int]:
        """The seats that lost a disc in the round ``result`` sums up (one entry per disc)."""

    @abstractmethod
    def round_eliminated(self, result: Mapping[str, Any]) -> list[int]:
        """The seats eliminated in the round ``result`` sums up."""

    # ----- whole state, resampling, outcome ------------------------------------------------
    def full(self) -> dict[str, Any]:
        challenge = self.challenge
        return {
            "round": self.round,
            "steps": self.steps,
            "winner": self.winner,
            "kits": [kit.full() for kit in self.kits],
            "challenge": None
            if challenge is None
            else {
                "by": challenge.by,
                "target": challenge.target,
                "flips": [[flip.owner, flip.kind] for flip in challenge.flips],
                "skull_of": challenge.skull_of,
            },
            "log": list(self.round_log),
            "results": list(self.results),
            **self.game_full(),
        }

    @abstractmethod
    def game_full(self) -> dict[str, Any]:
        """The game's own fields for ``full()``."""

    def clone(self) -> DiscState:
        """An independent copy (its generator continues identically)."""
        return self._copy(copy.copy(self.rng))

    def _copy(self, rng: random.Random) -> DiscState:
        """An independent copy whose chance comes from ``rng``, made by hand (a deep copy is
        most of a search's time): the discs and every list of the state are copied; logged
        events, round summaries and flips, never changed once made, are shared."""
        other = copy.copy(self)
        for name, value in vars(self).items():
            if type(value) is list:
                setattr(other, name, list(value))
        other.kits = [kit.copy() for kit in self.kits]
        if self.challenge is not None:
            challenge = self.challenge
            other.challenge = Challenge(
                challenge.by, challenge.target, list(challenge.flips), challenge.skull_of
            )
        other.rng, other.public = rng, None
        return other

    def resample(self, seat: int, rng: random.Random) -> DiscState:
        """Redraw where every other player's skull is (hand, face-down pile or removed discs)
        among the places the public history cannot rule out; reseed the future chance. The
        copy does not record events (see ``State.recording``)."""
        other = self._copy(self.rng)  # (its own generator is drawn below)
        redraw_others(other.kits, seat, rng)
        other.owns = [None] * self.players  # (the others' discs were redrawn)
        other.rng = random.Random(rng.getrandbits(64))
        other.events, other.recording = [], False
        return other

    @abstractmethod
    def place_key(self, seat: int) -> tuple[int, ...]:
        """Sort key of ``seat`` for placing (smaller is better, equal keys share a place)."""

    @abstractmethod
    def score(self, seat: int) -> float:
        """The seat's score in the outcome."""

    def outcome(self) -> Outcome:
        seats = range(self.players)
        return Outcome(
            scores=tuple(self.score(s) for s in seats),
            places=places_from_keys([self.place_key(s) for s in seats]),
        )


class DiscGame(Game):
    """Registry entry of a disc game: 3-6 players, no options, its words
    (``arena.games.discs_words``)."""

    state_class: ClassVar[type[DiscState]]
    min_players = 3
    max_players = MAX_SEATS

    # its words (``arena.games.discs_words``)
    action_words = staticmethod(discs_words.action_words)
    format_event = staticmethod(discs_words.format_event)
    event_detail = staticmethod(discs_words.event_detail)
