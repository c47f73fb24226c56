"""A disc game's view, read for a state rebuilt from it (``Game.from_view`` of the disc games).

A view shows everything public plus the seat's own discs. ``DiscState.load_view`` takes all of
that as shown and, for every other player, a hand and a pile of good discs only (``shown_kits``,
``shown_challenge``); then, as ``DiscState.resample`` does, each of those players' skull goes to
a place the public cannot rule out (``Kit.redraw``) and the state's own generator is drawn.

What the public knows of a skull's whereabouts (``Kit.known_lost``, ``Kit.gone_by``) is read
back from the view: ``known_lost`` from the rounds whose challenge met that player's skull
(``RoundEnd``) and the losses before them. ``gone_by`` (every disc a player owned was once shown
good, so their skull is among the discs they lost) depends on the flips of earlier rounds, which
a view no longer shows; it is left unset, so a rebuilt state may keep a skull in a hand where
the full public history would rule it out (a slightly weaker determinization, never an
inconsistent one).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from arena.games.discs_kit import DISCS_EACH, GOOD, SKULL, Challenge, Flip, Kit


@dataclass(frozen=True)
class ViewWords:
    """What a disc game's views call things (``DiscState``'s class words): the good disc, the
    key of one's own pile, the verb that puts a disc down, the key of the discs turned this
    round, whether a turned disc is named by its pile position too, and the disc kinds by
    name."""

    good: str
    pile: str
    place: str
    shown: str
    show_position: bool
    kinds: Mapping[str, int]


class RoundEnd(NamedTuple):
    """What a view's summary of a finished round tells of the discs: the round, whose skull its
    challenge met (None: none), who lost a disc (one entry per disc) and who was eliminated. (A
    named tuple: a rebuild makes one a round, and a search bot rebuilds at every move.)"""

    round: int
    skull_of: int | None
    losers: list[int]
    eliminated: list[int]


def piles_this_round(log: Sequence[str], verb: str, players: int) -> list[int]:
    """How many discs each seat put down this round, from the round's public log."""
    counts = [0] * players
    for entry in log:
        seat, _, action = entry.partition(":")
        if action == verb:
            counts[int(seat)] += 1
    return counts


def shown_kits(
    view: Mapping[str, Any], seat: int, players: int, words: ViewWords, ends: Sequence[RoundEnd]
) -> list[Kit]:
    """Every player's discs as ``seat``'s ``view`` shows them (``ends``: its finished rounds)."""
    return [_kit(view, other, other == seat, words, ends) for other in range(players)]


def _kit(
    view: Mapping[str, Any], seat: int, mine: bool, words: ViewWords, ends: Sequence[RoundEnd]
) -> Kit:
    """``seat``'s discs as the view shows them: one's own exactly, another's all good."""
    entry = view["seats"][seat]
    kit = Kit()
    if mine:
        kit.hand = [int(view["hand"][words.good]), int(view["hand"]["skull"])]
        kit.pile = [words.kinds[name] for name in view[words.pile]]
        kit.lost = [words.kinds[name] for name in view["lost"]]
    else:
        kit.hand = [int(entry["in_hand"]), 0]
        kit.pile = [GOOD] * int(entry["placed"])
        kit.lost = [GOOD] * (DISCS_EACH - int(entry["owned"]))
    kit.down = list(range(len(kit.pile)))
    losses_before = 0  # this seat's losses in the rounds before the one being read
    for end in ends:
        if end.skull_of == seat:
            kit.known_lost = losses_before
        losses_before += end.losers.count(seat)
        if entry["eliminated"] and kit.out is None and seat in end.eliminated:
            kit.out = end.round
    if entry["eliminated"] and kit.out is None:
        kit.out = int(view["round"])  # eliminated in the round not yet summed up
    return kit


def shown_challenge(
    view: Mapping[str, Any],
    challenger: tuple[int | None, int],
    words: ViewWords,
    kits: Sequence[Kit],
    ends: Sequence[RoundEnd],
) -> Challenge | None:
    """The turning-over of this round, if it has started (``challenger``: who turns how many
    discs, as the game's view shows them; None: not started): flips as shown, and on the piles
    in ``kits`` (until they are taken back) the positions turned and the skull met."""
    by, target = challenger
    if by is None:
        return None
    challenge = Challenge(int(by), int(target))
    sizes = piles_this_round(view["log"], words.place, len(kits))
    turned = [0] * len(kits)
    for shown in view[words.shown]:
        owner, name = int(shown[0]), shown[-1]
        if words.show_position:
            position = int(shown[1])
        else:  # Skull turns the top face-down disc of a stack
            position = sizes[owner] - 1 - turned[owner]
        turned[owner] += 1
        kind = words.kinds[name]
        challenge.flips.append(Flip(owner, position, kind))
        if kind == SKULL:
            challenge.skull_of = owner
        kit = kits[owner]
        if kit.pile:  # still on the table: not yet taken back
            kit.turn_up(position)
            kit.pile[position] = kind
    if challenge.skull_of is not None and not kits[challenge.skull_of].pile:
        # the piles are back in the hands: the skull was seen before this round's losses
        owner = challenge.skull_of
        this_round = int(view["round"])
        kits[owner].known_lost = sum(
            end.losers.count(owner) for end in ends if end.round < this_round
        )
    return challenge


__all__ = ["RoundEnd", "ViewWords", "piles_this_round", "shown_challenge", "shown_kits"]
