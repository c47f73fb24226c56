"""Skull King: a state rebuilt from one seat's view, the hidden cards drawn at random.

Search bots determinize with this (``Game.from_view``). The round's finished tricks are judged
again from the view (tricks won, capture bonuses, Loot alliances), so the round scores as it
really will; earlier rounds are known by their points, which is all the outcome needs. The
other hands and the undealt cards are drawn from the cards out of sight as ``resample`` draws
them, so no seat holds a suit it has shown it lacks this round.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from arena.games.skull_king_cards import CARDS, PHASES, Card, Hand, Trick, hand_card

if TYPE_CHECKING:
    from arena.games.skull_king import SkullKingState


def load_view(
    state: SkullKingState, view: Mapping[str, Any], seat: int, rng: random.Random
) -> None:
    """Fill the ``bare`` ``state`` in from ``seat``'s ``view`` (see ``State.load_view``)."""
    options = state.options
    if (view["advanced"], view["scoring"]) != (options["advanced"], options["scoring"]):
        raise ValueError("its options are not these")
    if view["phase"] not in PHASES:
        raise ValueError(f"it shows no phase of the game: {view['phase']!r}")
    state.advanced = bool(options["advanced"])
    state.seats = tuple(range(state.players))
    state.scores = tuple(int(points) for points in view["scores"])
    state.round_scores = tuple(tuple(points) for points in view["round_scores"])
    state.round, state.cards, state.dealer = view["round"], view["cards"], view["dealer"]
    state.phase = view["phase"]
    state.bids = None if view["bids"] is None else tuple(view["bids"])
    state.won, state.bonus = [0] * state.players, [0] * state.players
    state.alliances, state.tricks = [], ()
    for shown in view["tricks"]:
        taken = state._take_trick(shown["leader"], Trick(CARDS[n] for n in shown["cards"]))
        if (taken["winner"], taken["next"]) != (shown["winner"], shown["next"]):
            raise ValueError(f"trick {list(shown['cards'])} was not taken as shown")
    if state.won != list(view["won"]):
        raise ValueError("the tricks won do not add up")
    state.leader, state.trick = view["leader"], Trick(CARDS[n] for n in view["trick"])
    state.turn = state.leader if view["turn"] is None else view["turn"]
    _redeal(state, seat, [CARDS[n] for n in view["hand"]], rng)
    state._settle()


def _redeal(state: SkullKingState, seat: int, hand: list[Card], rng: random.Random) -> None:
    """Give ``seat`` its ``hand``, every other seat as many cards as it has not played this
    round, and the undealt rest, the unseen cards drawn at random (keeping the voids)."""
    played = [0] * state.players
    known = list(hand)
    for trick in state._round_plays():
        for s, card in trick:
            played[s] += 1
            known.append(hand_card(card))
    sizes = [state.cards - count for count in played]
    if len(hand) != sizes[seat]:
        raise ValueError(f"seat {seat} holds {len(hand)} cards, not {sizes[seat]}")
    state.undealt = state.deck_without(known)
    state.hands = [Hand(()) for _ in state.seats]
    state.hands[seat] = Hand(hand)
    state.deal_hidden(seat, sizes, rng)


__all__ = ["load_view"]
