"""The search's Skyjo playout policies (``bots._skyjo_playout``): the state-reading copy of
``skyjo_greedy`` chooses exactly what ``skyjo_greedy.act`` chooses from the seat's view, at
every turn of whole games (every table size, every option that changes a decision), so that
the search's playouts play the heuristic they claim to; the stronger policy (ismcts's own)
plays legal moves from the seat's view alone, and ends rounds as its weights say."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable

import pytest

from arena.games import State, get_game
from arena.games.skyjo import SkyjoState
from arena.games.skyjo_cards import DECK, Cell, Phase
from bots import _skyjo_playout, skyjo_greedy

GAME = get_game("skyjo")
#: A decision at a turn: (the state, the seat to play, its legal actions) -> an action.
Decide = Callable[[State, int, list[str]], str]
#: Option sets that change what greedy weighs: column removal off, the manual doubling rule
#: and the optional flip (whose ``discard`` answer only then exists).
OPTIONS = (
    {},
    {"columns": False},
    {"doubling": "manual", "discard_flip": "optional", "next_starter": "ender"},
)


def play_out(state: State, rng: random.Random, decide: Decide, keep: float) -> None:
    """Play ``state`` to its end: the opening reveals at random, every turn by ``decide``, whose
    choice is kept with probability ``keep`` (otherwise a random legal action)."""
    while not state.is_over():
        joint = {}
        for seat in state.to_act():
            legal = state.legal(seat)
            if state.view(seat)["phase"] == "reveal":
                joint[seat] = rng.choice(legal)
                continue
            chosen = decide(state, seat, legal)
            joint[seat] = chosen if rng.random() < keep else rng.choice(legal)
        state.apply(joint)


@pytest.mark.parametrize("options", OPTIONS)
@pytest.mark.parametrize("players", [2, 3, 5, 8])
def test_it_chooses_what_the_greedy_bot_chooses(players: int, options: dict) -> None:
    """Two games per case; a seat plays a random legal action one time in four, so that the
    positions stray from greedy's own play (pairs broken, cards thrown, rounds ended by
    others, reshuffles at large tables). Every turn of every seat is compared."""
    seen: list[str] = []

    def compare(state: State, seat: int, legal: list[str]) -> str:
        chosen = skyjo_greedy.act(state.view(seat), legal)
        assert _skyjo_playout.decide(state, seat) == chosen, state.full()
        seen.append(chosen.partition(":")[0])
        return chosen

    for seed in range(2):
        random.seed(seed)
        play_out(
            GAME.new(players, 100 * players + seed, options), random.Random(seed), compare, 0.75
        )
    assert len(seen) > 100 and len(set(seen)) >= 4  # draw, take-discard, swap, discard-flip


@pytest.mark.parametrize("players", range(2, 9))
def test_the_stronger_policy_plays_legal_moves_that_depend_on_the_view_alone(players: int) -> None:
    """ismcts's own policy (``STRONGER``) in whole games at every table size, beside greedy and
    random moves: every choice is legal, and the same from a state whose hidden cards (the
    seat's own face-down cards, the others', the pile, another's drawn card) are redrawn."""
    decided: list[str] = []

    def check(state: State, seat: int, legal: list[str]) -> str:
        chosen = _skyjo_playout.stronger(state, seat)
        assert chosen in legal
        other = state.resample(seat, random.Random(len(decided)))
        assert other.view(seat) == state.view(seat)
        assert _skyjo_playout.stronger(other, seat) == chosen
        decided.append(chosen)
        return _skyjo_playout.decide(state, seat) if seat % 2 else chosen

    for seed in range(2):
        state = GAME.new(players, 300 + 10 * players + seed, OPTIONS[seed])
        play_out(state, random.Random(seed), check, 0.9)
    assert len(decided) > 100


def one_card_left(totals: list[int], rival: list[int]) -> SkyjoState:
    """Two players, round 2: seat 0 holds a drawn 9, 10 points face up (a 3 at 0,0, its highest
    card) and its last face-down card at 2,3, so turning that card over ends the round at
    about 15 points; the rival (seat 1) shows the nine cards ``rival`` on its first rows and
    has three face down."""
    state = GAME.new(2, 1)
    assert isinstance(state, SkyjoState)
    mine = [3, 1, 0, 2, 1, 0, 1, -1, 2, 0, 1, 5]
    rest = Counter(DECK)
    rest.subtract([*mine, *rival, 9])
    unseen = list(rest.elements())
    random.Random(3).shuffle(unseen)
    state.cards = [mine, rival + unseen[:3]]
    state.cells = [[Cell.UP] * 11 + [Cell.DOWN], [Cell.UP] * 9 + [Cell.DOWN] * 3]
    state.discard, state.pile = unseen[3:8], unseen[8:]
    state.drawn, state.phase, state.current, state.ender = 9, Phase.DRAWN, 0, None
    state.round, state.starter = 2, 0
    state.history, state.totals = [list(totals)], list(totals)
    return state


def test_the_stronger_policy_ends_a_round_only_when_clearly_lowest() -> None:
    """Seat 0 can end the round at about 15 points; the rival shows 7 points and three cards
    face down, about 23 points, 20 after its last turn: greedy (a margin of 2 points) turns its
    last card over, the stronger policy (6 points) keeps the round going and puts the 9 where
    it costs least. Far from the game's end, whatever the totals."""
    for totals in ([20, 20], [50, 10], [10, 50]):
        state = one_card_left(totals, [1, 0, 2, 1, 0, 1, 2, 0, 0])
        assert _skyjo_playout.decide(state, 0) == "discard-flip:2,3"
        assert _skyjo_playout.stronger(state, 0) == "swap:0,0"


def test_the_stronger_policy_ends_the_last_round_while_it_keeps_the_lead() -> None:
    """The rival (at 90) shows 0 points and three cards face down (about 16 points): this round
    ends the game. Seat 0 (at 40) would end it at about 15, not lowest, so doubled, 70 in all:
    still ahead, so the stronger policy ends it (the rival gets one turn rather than many);
    greedy, counting the round's points alone, does not. At 80 the lead would not survive a
    doubling: it does not end it either."""
    rival = [0, 0, 1, 0, -1, 0, 1, 0, -1]
    state = one_card_left([40, 90], rival)
    assert _skyjo_playout.decide(state, 0) == "swap:0,0"
    assert _skyjo_playout.stronger(state, 0) == "discard-flip:2,3"
    assert _skyjo_playout.stronger(one_card_left([80, 90], rival), 0) == "swap:0,0"
