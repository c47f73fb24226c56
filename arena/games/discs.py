"""What the two face-down disc games, ``skull`` and ``skull-bank``, share.

Both games give every player four discs (three good ones -- flowers or roses -- and one skull),
have them put discs face down on a personal pile (Skull's *stack*, the bank variant's *row*),
and end a round with one player turning discs over: their own pile first, top first and
automatically, then one disc of another pile per decision, stopping at the first skull. Discs
are lost either blind (drawn at random with the game's generator, only the loser learns which)
or by the loser's own choice, and a player without discs is eliminated. See
``docs/games/skull.md`` and ``docs/games/skull-bank.md``.

* ``Kit``: one player's discs, and what the public knows about where that player's skull can
  be, so that ``resample`` redraws hidden identities consistently with everything shown;
* ``Challenge``: the turning-over of N discs (Skull's challenge, the bank's showdown);
* ``DiscState``: seats and eliminations, the round's public log, placing, turning over, taking
  and giving up discs, the common part of a view, ``full``, ``resample`` and ``outcome``. The
  two games add their phases and actions on top.
"""

from __future__ import annotations

import copy
import random
from abc import abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from arena.errors import GameError
from arena.games.base import Game, Outcome, State, per_step, places_from_keys
from arena.games.discs_events import describe

#: Disc kinds, as ``Kit`` counts and lists them. A player owns ``GOODS_EACH`` good discs and
#: one skull.
GOOD, SKULL = 0, 1
GOODS_EACH = 3
DISCS_EACH = GOODS_EACH + 1


@dataclass
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
        """Face-down discs still on the pile."""
        return len(self.pile) - len(self.up)

    def face_down(self) -> list[int]:
        """The positions of the pile still face down, bottom first."""
        return [at for at in range(len(self.pile)) if at not in self.up]

    def top_down(self) -> int:
        """The position of the topmost face-down disc (the pile has one)."""
        return self.face_down()[-1]

    def skull_up(self) -> bool:
        """Whether this pile's skull lies face up."""
        return any(self.pile[at] == SKULL for at in self.up)

    def close(self) -> None:
        """End of the round's turning-over: record what the public learnt about the skull
        from the flips, then take the pile back into the hand."""
        if not self.pile:
            return
        if self.skull_up():
            self.known_lost = len(self.lost)
        elif self.gone_by is None and len(self.up) == len(self.pile) and self.in_hand == 0:
            self.gone_by = len(self.lost)
        self.hand[SKULL] += self.pile.count(SKULL)
        self.hand[GOOD] += self.pile.count(GOOD)
        self.pile = []
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
        elif pick - (hi - lo) < self.in_hand:
            self.hand = [self.in_hand - 1, 1]
        else:
            self.pile[down[pick - (hi - lo) - self.in_hand]] = SKULL

    def copy(self) -> Kit:
        """An independent copy."""
        return Kit(
            list(self.hand),
            list(self.pile),
            list(self.up),
            list(self.lost),
            self.known_lost,
            self.gone_by,
            self.out,
        )

    def full(self) -> dict[str, Any]:
        return {
            "hand": list(self.hand),
            "pile": list(self.pile),
            "shown": len(self.up),
            "lost": list(self.lost),
            "known_lost": self.known_lost,
            "gone_by": self.gone_by,
            "out": self.out,
        }


@dataclass
class Flip:
    """One disc turned over: whose pile, at which position, and what it was."""

    owner: int
    position: int
    kind: int


@dataclass
class Challenge:
    """Seat ``by`` turning over ``target`` discs; ``skull_of`` is the owner of the skull met."""

    by: int
    target: int
    flips: list[Flip] = field(default_factory=list)
    skull_of: int | None = None

    @property
    def done(self) -> bool:
        return self.skull_of is not None or len(self.flips) == self.target

    @property
    def left(self) -> int:
        """Flips still owed (none once a skull is met)."""
        return 0 if self.skull_of is not None else self.target - len(self.flips)


class DiscState(State):
    """Common state of the disc games. Subclasses name their words and add their phases.

    Class words: ``GAME`` (the game id), ``GOOD_NAME`` (flower/rose), ``PILE`` (stack/row,
    the view key of one's own pile), ``PLACE`` (place/add), ``FLIP`` (flip/reveal), ``DROP``
    (discard/give), ``SHOWN`` (the view key of the discs turned this round); ``SHOW_POSITION``:
    whether a turned disc is named by its pile position too. ``TOGETHER`` is the phase in which
    every player still in puts a disc down at once, ``OVER`` the phase of a finished game.
    Outside ``TOGETHER`` one seat acts at a time: ``self.turn`` while discs are put down one by
    one, else the game's ``acting_seat()``.
    """

    GAME: ClassVar[str]
    GOOD_NAME: ClassVar[str]
    PILE: ClassVar[str]
    PLACE: ClassVar[str]
    FLIP: ClassVar[str]
    DROP: ClassVar[str]
    SHOWN: ClassVar[str]
    SHOW_POSITION: ClassVar[bool] = False
    TOGETHER: ClassVar[Any]
    OVER: ClassVar[Any]
    phase: Any

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
        self.turn = 0
        #: The disc names by kind.
        self.names = (self.GOOD_NAME, "skull")

    # ----- words ---------------------------------------------------------------------------
    def kind(self, name: str) -> int:
        return SKULL if name == "skull" else GOOD

    def kinds_held(self, seat: int, verb: str) -> list[str]:
        """``verb:GOOD_NAME`` and ``verb:skull`` for the kinds in ``seat``'s hand."""
        hand = self.kits[seat].hand
        return [f"{verb}:{self.names[kind]}" for kind in (GOOD, SKULL) if hand[kind]]

    def counts(self, verb: str, above: int) -> list[str]:
        """``verb:N`` for every N above ``above`` up to the discs on all piles."""
        return [f"{verb}:{n}" for n in range(above + 1, self.on_piles() + 1)]

    def on_piles(self) -> int:
        """The discs on all piles."""
        return sum(len(kit.pile) for kit in self.kits)

    # ----- seats ---------------------------------------------------------------------------
    def active_seats(self) -> tuple[int, ...]:
        """The players still in."""
        return tuple(seat for seat, kit in enumerate(self.kits) if kit.out is None)

    def next_active(self, seat: int) -> int | None:
        """The first player still in clockwise after ``seat`` (``seat`` itself last)."""
        for step in range(1, self.players + 1):
            other = (seat + step) % self.players
            if self.kits[other].out is None:
                return other
        return None

    def next_seat(self, seat: int) -> int:
        """``next_active`` when some player is known to be still in."""
        other = self.next_active(seat)
        assert other is not None
        return other

    # ----- the State interface -------------------------------------------------------------
    @per_step
    def to_act(self) -> tuple[int, ...]:
        """Every player still in while all put down together, else the one acting seat
        (asked by the referee, by ``apply``, by each legal list and by the views)."""
        if self.phase is self.TOGETHER:
            return self.active_seats()
        if self.phase is self.OVER:
            return ()
        return (self.acting_seat(),)

    def is_over(self) -> bool:
        return self.phase is self.OVER

    def _legal(self, seat: int) -> list[str]:
        if seat not in self.to_act():
            return []
        if self.phase is self.TOGETHER:
            return self.kinds_held(seat, self.PLACE)
        return self.legal_alone(seat)

    def _apply(self, actions: Mapping[int, str]) -> None:
        if self.phase is self.TOGETHER:
            for seat in sorted(actions):
                self.place(seat, self.kind(actions[seat].partition(":")[2]))
            self._after_put_down()
            return
        ((seat, action),) = actions.items()
        verb, _, argument = action.partition(":")
        if verb == self.PLACE:
            self.place(seat, self.kind(argument))
            self.turn = self.next_seat(seat)
        else:
            self._act(seat, verb, argument)

    @abstractmethod
    def acting_seat(self) -> int:
        """The one seat to act outside the simultaneous step (the game is not over)."""

    @abstractmethod
    def legal_alone(self, seat: int) -> list[str]:
        """The legal list of ``seat``, the one seat to act outside the simultaneous step."""

    @abstractmethod
    def _after_put_down(self) -> None:
        """Start the turns once every disc of the simultaneous step is down."""

    @abstractmethod
    def _act(self, seat: int, verb: str, argument: str) -> None:
        """Apply one seat's legal action ``verb:argument`` other than putting a disc down."""

    # ----- steps shared by both games ------------------------------------------------------
    def note(self, seat: int, public: str) -> None:
        """Append ``SEAT:public`` to this round's public log."""
        self.round_log.append(f"{seat}:{public}")

    def place(self, seat: int, kind: int) -> None:
        """``seat`` puts a disc of ``kind`` face down on top of its pile."""
        kit = self.kits[seat]
        kit.hand[kind] -= 1
        kit.pile.append(kind)
        self.log({"type": self.PLACE, "seat": seat, "disc": self.names[kind]})
        self.note(seat, self.PLACE)

    def begin_challenge(self, seat: int, target: int) -> None:
        """Start turning ``target`` discs, flipping the challenger's own pile automatically."""
        self.challenge = Challenge(seat, target)
        while not self.challenge.done and self.kits[seat].hidden:
            self.flip(seat, self.kits[seat].top_down(), auto=True)
        self._after_flip()

    def turn_over(self, owner: int, position: int) -> None:
        """The challenger's decision: turn over ``owner``'s disc at ``position``."""
        self.flip(owner, position)
        self._after_flip()

    def flip(self, owner: int, position: int, auto: bool = False) -> None:
        """Turn over ``owner``'s disc at ``position``; a skull ends the turning-over."""
        challenge = self.challenge
        assert challenge is not None
        kit = self.kits[owner]
        kit.up.append(position)
        kind = kit.pile[position]
        challenge.flips.append(Flip(owner, position, kind))
        if kind == SKULL:
            challenge.skull_of = owner
        by, name = challenge.by, self.names[kind]
        if self.SHOW_POSITION:
            self.log(
                {
                    "type": self.FLIP,
                    "by": by,
                    "seat": owner,
                    "disc": name,
                    "auto": auto,
                    "position": position,
                }
            )
            self.note(by, f"{self.FLIP}:{owner}:{position}:{name}")
        else:
            self.log({"type": self.FLIP, "by": by, "seat": owner, "disc": name, "auto": auto})
            self.note(by, f"{self.FLIP}:{owner}:{name}")

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

    def take(self, loser: int, taker: int) -> None:
        """``taker`` draws one of ``loser``'s discs blind (the game's generator)."""
        kind = self.kits[loser].remove_random(self.rng)
        self.log({"type": "take", "seat": loser, "by": taker, "disc": self.names[kind]})
        self.note(taker, f"take:{loser}")

    def drop(self, seat: int, kind: int, *, chosen: bool = True) -> None:
        """``seat`` gives up a disc of ``kind`` (its own choice, or forced when it is the last)."""
        self.kits[seat].remove(kind)
        self.log({"type": self.DROP, "seat": seat, "disc": self.names[kind], "chosen": chosen})
        self.note(seat, self.DROP)

    def eliminate_empty(self) -> list[int]:
        """Mark the players still in without discs as eliminated this round; return them."""
        gone = [
            seat
            for seat, kit in enumerate(self.kits)
            if kit.out is None and not kit.pile and kit.in_hand == 0
        ]
        for seat in gone:
            self.kits[seat].out = self.round
            self.log({"type": "eliminated", "seat": seat, "round": self.round})
        return gone

    def new_round_log(self) -> None:
        """The next round starts with an empty public log and no challenge."""
        self.round += 1
        self.round_log = []
        self.challenge = None

    # ----- views ---------------------------------------------------------------------------
    def view(self, seat: int) -> dict[str, Any]:
        kit = self.kits[seat]
        return {
            "seat": seat,
            "hand": {self.GOOD_NAME: kit.hand[GOOD], "skull": kit.hand[SKULL]},
            self.PILE: [self.names[kind] for kind in kit.pile],
            "lost": [self.names[kind] for kind in kit.lost],
            **self.public_view(),
        }

    @per_step
    def public_view(self) -> dict[str, Any]:
        """The part of a view every seat sees alike (shared by the views of one step)."""
        view = {
            "game": self.GAME,
            "players": self.players,
            "round": self.round,
            "to_act": list(self.to_act()),
            self.SHOWN: self.shown(),
            "left": self.challenge.left if self.challenge else 0,
            "log": list(self.round_log),
            "results": list(self.results),
            "winner": self.winner,
        }
        view.update(self.game_view())
        return view

    def shown(self) -> list[list[Any]]:
        """The discs turned this round, in order: ``[owner, (position,) name]``."""
        if self.challenge is None:
            return []
        if self.SHOW_POSITION:
            return [
                [flip.owner, flip.position, self.names[flip.kind]] for flip in self.challenge.flips
            ]
        return [[flip.owner, self.names[flip.kind]] for flip in self.challenge.flips]

    def seats_view(self, **columns: list[Any]) -> list[dict[str, Any]]:
        """The public ``seats`` list of a view: each seat's discs, then its entry of each of
        the game's ``columns`` (per-seat lists, e.g. ``passed=self.passed``)."""
        entries = []
        for seat, kit in enumerate(self.kits):
            in_hand, placed = kit.in_hand, len(kit.pile)
            entry = {
                "owned": in_hand + placed,
                "in_hand": in_hand,
                "placed": placed,
                "eliminated": kit.out is not None,
            }
            for key, values in columns.items():
                entry[key] = values[seat]
            entries.append(entry)
        return entries

    @abstractmethod
    def game_view(self) -> dict[str, Any]:
        """The game's own keys of every view (``seats`` among them)."""

    # ----- rebuilding from a view (see arena.games.discs_view) ----------------------------
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
        """An independent copy, made by hand (a deep copy is most of a search's time): the
        discs and every list of the state are copied; logged events, round summaries and
        flips, never changed once made, are shared. Its generator continues identically."""
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
        other.rng = random.Random()
        other.rng.setstate(self.rng.getstate())
        return other

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
        return Outcome(
            scores=tuple(self.score(s) for s in seats),
            places=places_from_keys([self.place_key(s) for s in seats]),
        )


class DiscGame(Game):
    """Registry entry of a disc game: 3-6 players, no options, readable event lines."""

    state_class: ClassVar[type[DiscState]]
    min_players = 3
    max_players = 6

    def _new(self, players: int, seed: int, options: dict[str, Any]) -> DiscState:
        return self.state_class(players, seed, options)

    def format_event(self, event: Mapping[str, Any]) -> str:
        return describe(event) or super().format_event(event)

    def from_view(
        self,
        view: Mapping[str, Any],
        seat: int,
        players: int,
        options: Mapping[str, Any],
        rng: random.Random,
    ) -> DiscState:
        """Everything the view shows as shown, then ``resample`` draws where the other players'
        skulls are (see ``arena.games.discs_view`` for what a view cannot tell)."""
        from arena.games.discs_view import rebuild

        self.check_players(players)
        if view.get("seat") != seat or view.get("players") != players:
            raise GameError(f"not a view of seat {seat} at a table of {players}")
        state = self.state_class(players, rng.getrandbits(64), self.parse_options(options))
        try:
            rebuild(state, view, seat)
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise GameError(f"not a {self.name} view: {exc!r}") from None
        return state.resample(seat, rng)
