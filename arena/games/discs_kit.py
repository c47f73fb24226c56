"""The discs of the two face-down disc games (``skull``, ``skull-bank``) and their turning over.

* ``Kit``: one player's discs, and what the public knows about where that player's skull can
  be, so that ``resample`` redraws hidden identities consistently with everything shown;
* ``Challenge``: the turning-over of N discs (Skull's challenge, the bank's showdown), made of
  ``Flip``s.

The rules that move them are in ``arena.games.discs`` and the two games' modules.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

#: Disc kinds, as ``Kit`` counts and lists them. A player owns ``GOODS_EACH`` good discs and
#: one skull.
GOOD, SKULL = 0, 1
GOODS_EACH = 3
DISCS_EACH = GOODS_EACH + 1


@dataclass(slots=True)
class Kit:
    """One player's discs and the public knowledge about where that player's skull is.

    ``hand`` counts the discs in hand by kind (``[good, skull]``); ``pile`` is the face-down
    pile, bottom first; ``up`` lists the positions in it turned face up this round (position 0
    is the bottom, the first disc put down), in the order they were turned, and ``down`` the
    positions still face down, bottom first (a list replaced, never changed in place, as views
    show it); ``lost``
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
    down: list[int] = field(default_factory=list)

    @property
    def in_hand(self) -> int:
        return self.hand[GOOD] + self.hand[SKULL]

    @property
    def owned(self) -> int:
        return self.hand[GOOD] + self.hand[SKULL] + len(self.pile)

    def top_down(self) -> int:
        """The position of the topmost face-down disc (the pile has one)."""
        return self.down[-1]

    def skull_up(self) -> bool:
        """Whether this pile's skull lies face up."""
        pile = self.pile
        for at in self.up:
            if pile[at] == SKULL:
                return True
        return False

    def put_down(self, kind: int) -> None:
        """Put a disc of ``kind`` from the hand face down on top of the pile."""
        self.hand[kind] -= 1
        self.down = [*self.down, len(self.pile)]
        self.pile.append(kind)

    def turn_up(self, position: int) -> int:
        """Turn the face-down disc at ``position`` face up; return its kind."""
        self.up.append(position)
        down = list(self.down)
        down.remove(position)
        self.down = down
        return self.pile[position]

    def close(self) -> None:
        """End of the round's turning-over: record what the public learnt about the skull
        from the flips, then take the pile back into the hand."""
        if not self.pile:
            return
        if self.skull_up():
            self.known_lost = len(self.lost)
        elif self.gone_by is None and len(self.up) == len(self.pile) and not any(self.hand):
            self.gone_by = len(self.lost)
        skulls = self.pile.count(SKULL)
        self.hand[SKULL] += skulls
        self.hand[GOOD] += len(self.pile) - skulls
        self.pile = []
        self.up = []
        self.down = []

    def remove(self, kind: int) -> None:
        """Remove one disc of ``kind`` from the hand (after ``close``)."""
        self.hand[kind] -= 1
        self.lost.append(kind)

    def remove_random(self, rng: random.Random) -> int:
        """Remove one disc from the hand drawn uniformly at random; return its kind."""
        kind = GOOD if rng.randrange(self.in_hand) < self.hand[GOOD] else SKULL
        self.remove(kind)
        return kind

    def eliminate(self, round_: int) -> None:
        """The player, without discs, is out of the game from round ``round_``."""
        self.out = round_

    def redraw(self, rng: random.Random) -> None:
        """Move the skull to a random place the public cannot rule out.

        Shown discs and ``lost[:known_lost]`` stay; the skull goes to one of the removed discs it
        may be, or (unless it is known to be gone) to the hand or a face-down pile position.
        """
        if self.skull_up():
            return
        lo = self.known_lost
        hi = len(self.lost) if self.gone_by is None else self.gone_by
        down = self.down
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
            self.down,
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


def redraw_others(kits: list[Kit], seat: int, rng: random.Random) -> None:
    """``Kit.redraw`` for every kit but ``seat``'s, in seat order."""
    for owner, kit in enumerate(kits):
        if owner != seat:
            kit.redraw(rng)


@dataclass(slots=True)
class Flip:
    """One disc turned over: whose pile, at which position, and what it was."""

    owner: int
    position: int
    kind: int


@dataclass(slots=True)
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


__all__ = ["DISCS_EACH", "GOOD", "GOODS_EACH", "SKULL", "Challenge", "Flip", "Kit", "redraw_others"]
