"""Rebuilding a disc game's state from one seat's view (``Game.from_view`` of the disc games).

A view shows everything public plus the seat's own discs. The rebuilt state takes all of that
as shown and, for every other player, a hand and a pile of good discs only; then, as
``DiscState.resample`` does, each of those players' skull goes to a place the public cannot rule
out (``Kit.redraw``) and the state's own generator is drawn.

What the public knows of a skull's whereabouts (``Kit.known_lost``, ``Kit.gone_by``) is read
back from the view: ``known_lost`` from the rounds whose challenge met that player's skull
(``results``) and the losses before them. ``gone_by`` (every disc a player owned was once shown
good, so their skull is among the discs they lost) depends on the flips of earlier rounds, which
a view no longer shows; it is left unset, so a rebuilt state may keep a skull in a hand where
the full public history would rule it out (a slightly weaker determinization, never an
inconsistent one).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from arena.games.discs_kit import DISCS_EACH, GOOD, SKULL, Challenge, Flip, Kit, redraw_others

if TYPE_CHECKING:
    from arena.games.discs import DiscState


def piles_this_round(log: Sequence[str], verb: str, players: int) -> list[int]:
    """How many discs each seat put down this round, from the round's public log."""
    counts = [0] * players
    for entry in log:
        seat, _, action = entry.partition(":")
        if action == verb:
            counts[int(seat)] += 1
    return counts


def load_view(state: DiscState, view: Mapping[str, Any], seat: int, rng: random.Random) -> None:
    """Fill the ``bare`` ``state`` in from ``seat``'s ``view`` (see ``State.load_view``): the
    common part as shown (others' hidden discs all good), then its game's own part
    (``load_game_view``); then every other player's skull is placed at random."""
    state.round = int(view["round"])
    state.round_log = list(view["log"])
    state.results = [dict(result) for result in view["results"]]
    state.winner = view["winner"]
    state.load_game_view(view)
    state.kits = [_kit(state, view, other, other == seat) for other in range(state.players)]
    state.challenge, state.shown = _challenge(state, view), list(view[state.SHOWN])
    state.seats = []
    state.refresh()
    redraw_others(state.kits, seat, rng)
    state.rng = random.Random(rng.getrandbits(64))


def _kit(state: DiscState, view: Mapping[str, Any], seat: int, mine: bool) -> Kit:
    """``seat``'s discs as the view shows them: one's own exactly, another's all good."""
    entry = view["seats"][seat]
    kit = Kit()
    if mine:
        kit.hand = [int(view["hand"][state.GOOD_NAME]), int(view["hand"]["skull"])]
        kit.pile = [state.KINDS[name] for name in view[state.PILE]]
        kit.lost = [state.KINDS[name] for name in view["lost"]]
    else:
        kit.hand = [int(entry["in_hand"]), 0]
        kit.pile = [GOOD] * int(entry["placed"])
        kit.lost = [GOOD] * (DISCS_EACH - int(entry["owned"]))
    kit.down = list(range(len(kit.pile)))
    losses_before = 0  # this seat's losses in the rounds before the one being read
    for result in state.results:
        if result.get("skull") == seat:
            kit.known_lost = losses_before
        losses_before += state.round_losers(result).count(seat)
        if entry["eliminated"] and kit.out is None and seat in state.round_eliminated(result):
            kit.out = int(result["round"])
    if entry["eliminated"] and kit.out is None:
        kit.out = state.round  # eliminated in the round not yet summed up
    return kit


def _challenge(state: DiscState, view: Mapping[str, Any]) -> Challenge | None:
    """The turning-over of this round, if it has started: flips as shown, and on the piles
    (until they are taken back) the positions turned and the skull met."""
    by, target = state.challenge_of_view(view)
    if by is None:
        return None
    challenge = Challenge(int(by), int(target))
    sizes = piles_this_round(state.round_log, state.PLACE, state.players)
    turned = [0] * state.players
    for shown in view[state.SHOWN]:
        owner, name = int(shown[0]), shown[-1]
        if state.SHOW_POSITION:
            position = int(shown[1])
        else:  # Skull turns the top face-down disc of a stack
            position = sizes[owner] - 1 - turned[owner]
        turned[owner] += 1
        kind = state.KINDS[name]
        challenge.flips.append(Flip(owner, position, kind))
        if kind == SKULL:
            challenge.skull_of = owner
        kit = state.kits[owner]
        if kit.pile:  # still on the table: not yet taken back
            kit.turn_up(position)
            kit.pile[position] = kind
    if challenge.skull_of is not None and not state.kits[challenge.skull_of].pile:
        # the piles are back in the hands: the skull was seen before this round's losses
        owner = challenge.skull_of
        state.kits[owner].known_lost = _losses_before_round(state, owner)
    return challenge


def _losses_before_round(state: DiscState, seat: int) -> int:
    """``seat``'s losses in the rounds before this one (a finished game sums up its last round
    too)."""
    return sum(
        state.round_losers(result).count(seat)
        for result in state.results
        if result["round"] < state.round
    )
