"""Scenario and property tests of the Skyjo engine (rules: docs/games/skyjo.md).

Scenarios stack the deck: ``arena.games.skyjo.Random`` is replaced by ``StackedRandom``, whose
shuffles follow prepared card orders. A deck order is laid out as the engine deals it: seat
``s`` gets cards ``12s..12s+11`` row-major, then one card starts the discard pile and the rest
is the draw pile with its top *last*.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from random import Random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import IllegalAction, OptionError
from arena.games import get_game, skyjo
from arena.games.skyjo import (
    CELLS,
    DECK,
    Cell,
    SkyjoState,
    first_player,
    round_scores,
    round_winner,
)
from tests.games.conformance import packed

GAME = get_game("skyjo")
Grid = Sequence[Sequence[int]]
TURN_EVENTS = ("take-discard", "swap", "discard-flip")


class StackedRandom(Random):
    """A Random whose shuffles take prepared orders from ``queue`` (then shuffle normally)."""

    queue: list[list[int]] = []

    def shuffle(self, x: list[int]) -> None:  # type: ignore[override]
        if StackedRandom.queue:
            order = StackedRandom.queue.pop(0)
            assert Counter(order) == Counter(x), "a stacked order must hold the same cards"
            x[:] = order
        else:
            super().shuffle(x)


@pytest.fixture
def stack(monkeypatch: pytest.MonkeyPatch) -> list[list[int]]:
    queue: list[list[int]] = []
    monkeypatch.setattr(StackedRandom, "queue", queue)
    monkeypatch.setattr(skyjo, "Random", StackedRandom)
    return queue


def deck_for(
    players: int, grids: dict[int, Grid], discard: int, draws: Sequence[int] = ()
) -> list[int]:
    """A deck order dealing ``grids`` (other seats get leftovers), ``discard``, then ``draws``."""
    rest = Counter(DECK)

    def take(value: int) -> int:
        assert rest[value] > 0, f"the deck has no more {value}s"
        rest[value] -= 1
        return value

    laid = {s: [take(v) for row in g for v in row] for s, g in grids.items()}
    top = take(discard)
    drawn = [take(v) for v in draws]
    filler = sorted(rest.elements())
    Random(1).shuffle(filler)
    deck: list[int] = []
    for seat in range(players):
        deck += laid[seat] if seat in grids else [filler.pop() for _ in range(CELLS)]
    return deck + [top] + filler + drawn[::-1]


def new(players: int, options: dict | None = None, seed: int = 0) -> SkyjoState:
    state = GAME.new(players, seed, options)
    assert isinstance(state, SkyjoState)
    return state


def reveal(state: SkyjoState, *pairs: str) -> None:
    state.apply({seat: f"reveal:{pair}" for seat, pair in enumerate(pairs)})


def play(state: SkyjoState, *actions: str) -> None:
    for action in actions:
        (seat,) = state.to_act()
        state.apply({seat: action})


def first_down(state: SkyjoState, seat: int) -> str:
    index = state.cells[seat].index(Cell.DOWN)
    return f"{index // 4},{index % 4}"


def accounted(state: SkyjoState) -> Counter:
    """Every card: grids (removed columns excluded), discard, draw pile and the drawn card."""
    cards: Counter = Counter()
    for seat in range(state.players):
        cards.update(v for v, c in zip(state.cards[seat], state.cells[seat]) if c is not Cell.GONE)
    cards.update(state.discard)
    cards.update(state.pile)
    if state.drawn is not None:
        cards[state.drawn] += 1
    return cards


def stall(state: SkyjoState, rng: Random) -> str:
    """A policy that never turns a card over (so only the round cap ends a round)."""
    (seat,) = state.to_act()
    up = [
        a
        for a in state.legal(seat)
        if a.startswith(("take-discard:", "swap:"))
        and state.cells[seat][skyjo.parse_action(a).cells[0]] is Cell.UP
    ]
    if state.phase is skyjo.Phase.TURN:
        up.append("draw")
    return rng.choice(up)


# ------------------------------------------------------------------------ deck and deal
def test_deck_holds_150_cards_of_the_right_values() -> None:
    assert len(DECK) == 150
    assert Counter(DECK) == {-2: 5, -1: 10, 0: 15, **{v: 10 for v in range(1, 13)}}


def test_deal_gives_face_down_grids_a_discard_and_a_draw_pile() -> None:
    state = new(4)
    assert [len(g) for g in state.cards] == [12] * 4
    assert len(state.discard) == 1 and len(state.pile) == 150 - 48 - 1
    assert accounted(state) == Counter(DECK)
    view = state.view(2)
    assert view["phase"] == "reveal" and view["turn"] is None and view["starter"] is None
    assert view["grids"][2] == [[None] * 4] * 3
    assert view["discard"] == [view["discard_top"]] == state.discard
    assert view["draw_count"] == 101 and view["drawn"] is None
    assert state.to_act() == (0, 1, 2, 3)
    legal = state.legal(0)
    assert len(legal) == 66 and legal[0] == "reveal:0,0+0,1" and legal[-1] == "reveal:2,2+2,3"


def test_opening_reveal_is_one_simultaneous_step_and_highest_sum_starts(stack) -> None:
    grids = {0: [[1, 2, 3, 4]] * 3, 1: [[9, 9, 0, 0]] * 3, 2: [[5, 5, 8, 8]] * 3}
    stack.append(deck_for(3, grids, discard=7))
    state = new(3)
    reveal(state, "0,0+0,1", "0,0+1,2", "0,1+0,3")
    assert [state.view(0)["grids"][s][0] for s in range(3)] == [
        [1, 2, None, None],
        [9, None, None, None],
        [None, 5, None, 8],
    ]
    assert state.view(0)["grids"][1][1] == [None, None, 0, None]
    assert state.to_act() == (2,) and state.view(0)["starter"] == 2  # 13 beats 9 and 3
    assert state.events[-1] == {
        "type": "starter",
        "round": 1,
        "seat": 2,
        "reason": "highest-reveal",
    }


def test_first_player_ties_go_to_the_lowest_seat() -> None:
    assert first_player([3, 7, 7, -2]) == 1
    assert round_winner([10, 4, 4]) == 1


# ------------------------------------------------------------------------------ turns
def test_take_discard_swaps_with_a_face_down_card_unseen(stack) -> None:
    stack.append(deck_for(2, {0: [[4, 5, 6, 7]] * 3, 1: [[1, 1, 2, 2]] * 3}, discard=-2))
    state = new(2)
    reveal(state, "0,0+0,1", "0,0+0,1")
    assert state.legal(0) == ["draw"] + [
        f"take-discard:{r},{c}" for r in range(3) for c in range(4)
    ]
    play(state, "take-discard:2,3")
    view = state.view(1)
    assert view["grids"][0][2] == [None, None, None, -2]
    assert view["discard"] == [7] and view["discard_top"] == 7
    assert view["turn"] == 1 and view["phase"] == "turn"


def test_drawn_card_is_seen_by_the_drawer_only_then_swapped(stack) -> None:
    stack.append(deck_for(2, {0: [[4, 5, 6, 7]] * 3}, discard=3, draws=[11]))
    state = new(2)
    reveal(state, "0,0+0,1", "0,0+0,1")
    (seat,) = state.to_act()
    assert seat == 0
    play(state, "draw")
    mine, theirs = state.view(0), state.view(1)
    assert mine["drawn"] == 11 and theirs["drawn"] is None
    assert mine["drawer"] == theirs["drawer"] == 0 and theirs["phase"] == "drawn"
    assert state.legal(0)[:12] == [f"swap:{r},{c}" for r in range(3) for c in range(4)]
    assert state.legal(0)[12:] == [
        f"discard-flip:{r},{c}"
        for r in range(3)
        for c in range(4)
        if (r, c) not in ((0, 0), (0, 1))
    ]
    assert state.legal(1) == []
    play(state, "swap:0,1")
    view = state.view(1)
    assert view["grids"][0][0] == [4, 11, None, None] and view["discard"] == [3, 5]
    assert view["drawn"] is None and view["drawer"] is None


def test_discard_flip_discards_then_turns_a_face_down_card(stack) -> None:
    stack.append(deck_for(2, {0: [[4, 5, 6, 7]] * 3}, discard=3, draws=[11]))
    state = new(2)
    reveal(state, "0,0+0,1", "0,0+0,1")
    play(state, "draw", "discard-flip:2,2")
    view = state.view(0)
    assert view["grids"][0][2] == [None, None, 6, None] and view["discard"] == [3, 11]


def test_turning_a_card_after_a_discard_is_mandatory_by_default(stack) -> None:
    state = new(2, seed=4)
    reveal(state, "0,0+0,1", "0,0+0,1")
    play(state, "draw")
    assert "discard" not in state.legal(state.to_act()[0])
    with pytest.raises(IllegalAction):
        play(state, "discard")


def test_discard_flip_optional_lets_the_drawer_discard_and_turn_nothing(stack) -> None:
    stack.append(deck_for(2, {0: [[4, 5, 6, 7]] * 3}, discard=3, draws=[11]))
    state = new(2, {"discard_flip": "optional"})
    reveal(state, "0,0+0,1", "0,0+0,1")
    play(state, "draw")
    legal = state.legal(0)
    assert legal[-1] == "discard" and "discard-flip:2,2" in legal and "swap:2,2" in legal
    play(state, "discard")
    view = state.view(1)
    assert view["grids"][0] == [[4, 5, None, None], [None] * 4, [None] * 4]
    assert view["discard"] == [3, 11] and view["turn"] == 1 and view["phase"] == "turn"
    assert state.events[-1] == {"type": "discard", "seat": 0, "card": 11}
    assert view["options"]["discard_flip"] == "optional"


@pytest.mark.parametrize("action", ["discard-flip:0,0", "take-discard:0,0", "draw"])
def test_illegal_actions_in_the_drawn_phase_change_nothing(action: str) -> None:
    state = new(2, seed=4)
    reveal(state, "0,0+0,1", "0,0+0,1")
    play(state, "draw")
    before = packed(state.full())
    with pytest.raises(IllegalAction):
        play(state, action)
    assert packed(state.full()) == before


# --------------------------------------------------------------------------- columns
def test_vector_b_swap_completing_a_column_discards_the_swapped_card_first(stack) -> None:
    grid = [[9, 1, 2, 3], [9, 4, 5, 6], [-1, 7, 8, 10]]
    stack.append(deck_for(2, {0: grid, 1: [[0, 0, 1, 1]] * 3}, discard=12, draws=[4, 9]))
    state = new(2)
    reveal(state, "0,0+1,0", "0,0+0,1")
    play(state, "draw", "discard-flip:2,0")  # seat 0: the -1 is face up now
    play(state, "draw", "discard-flip:1,1")  # seat 1 discards the 9
    assert state.view(0)["discard_top"] == 9
    play(state, "take-discard:2,0")
    view = state.view(1)
    assert view["discard"][-4:] == [-1, 9, 9, 9] and view["discard_top"] == 9
    assert view["removed"][0] == [{"column": 0, "value": 9}]
    assert [row[0] for row in view["grids"][0]] == [None, None, None]
    assert state.events[-1] == {"type": "remove-column", "seat": 0, "column": 0, "card": 9}
    play(state, "draw", "discard-flip:2,2")
    assert len(state.legal(0)) == 10 and not any(a.endswith(",0") for a in state.legal(0))
    play(state, "draw")
    assert len(state.legal(0)) == 9 + 9 and not any(a.endswith(",0") for a in state.legal(0))
    assert accounted(state) == Counter(DECK)


@pytest.mark.parametrize("columns", [True, False])
def test_a_flip_completing_a_column_removes_it_only_with_the_option(stack, columns) -> None:
    grid = [[5, 1, 2, 3], [5, 4, 6, 7], [5, 8, 10, 11]]
    stack.append(deck_for(2, {0: grid}, discard=0, draws=[12]))
    state = new(2, {"columns": columns})
    reveal(state, "0,0+1,0", "0,0+0,1")
    play(state, "draw", "discard-flip:2,0")
    if columns:
        assert state.discard[-4:] == [12, 5, 5, 5] and state.grid_score(0) == 52
    else:
        assert state.discard[-1] == 12 and state.grid_score(0) == 67
        assert state.view(1)["removed"][0] == []


@pytest.mark.parametrize("columns", [True, False])
def test_columns_completed_at_the_final_reveal_are_removed(stack, columns) -> None:
    grid0 = [[1, 2, 3, 5], [1, 4, 6, 5], [2, 7, 8, 5]]
    grid1 = [[12, 11, 0, 0], [0, 0, 0, 0], [-1, -1, -1, -2]]
    stack.append(deck_for(2, {0: grid0, 1: grid1}, discard=3))
    state = new(2, {"columns": columns})
    reveal(state, "0,0+1,0", "0,0+0,1")  # seat 1 starts (23 > 2)
    while state.round == 1:
        if state.to_act() == (1,):
            play(state, "draw", f"discard-flip:{first_down(state, 1)}")
        else:
            play(state, "draw", "swap:0,0")  # keeps column 3 face down
    end = next(e for e in state.events if e["type"] == "round-end")
    assert end["ender"] == 1
    last_swap = [e for e in state.events if e["type"] == "swap"][-1]
    assert last_swap["seat"] == 0 and last_swap["cell"] == "0,0"
    # columns 0-2 with (0,0) replaced, plus the three 5s unless the column is removed
    assert end["raw"][0] == 34 - 1 + last_swap["card"] + (0 if columns else 15)
    removals = [e for e in state.events if e["type"] == "remove-column"]
    assert bool(removals) == columns


# ---------------------------------------------------------------- end of round, scores
VECTOR_A = {
    0: [[0, 2, 1, -1], [0, -2, 1, 3], [5, 3, 0, -2]],
    1: [[1, 3, 7, 4], [-2, 0, -1, 0], [1, 0, 12, -1]],
    2: [[2, -2, 5, 3], [0, 0, 2, -1], [2, -1, 0, 0]],
}


def play_vector_a(stack: list[list[int]], options: dict | None = None) -> SkyjoState:
    """Everyone draws and turns over a card each turn; seat 0 (A) starts and ends round 1."""
    stack.append(deck_for(3, VECTOR_A, discard=6))
    state = new(3, options)
    reveal(state, "2,0+2,1", "1,0+1,1", "0,1+1,3")  # 8, -2, -3: A starts
    while state.round == 1:
        (seat,) = state.to_act()
        play(state, "draw", f"discard-flip:{first_down(state, seat)}")
    return state


def test_vector_a_ender_tied_for_lowest_is_doubled_under_the_manual_rule(stack) -> None:
    state = play_vector_a(stack, {"doubling": "manual"})
    end = next(e for e in state.events if e["type"] == "round-end")
    assert end["raw"] == [10, 24, 10] and end["scores"] == [20, 24, 10]
    assert end["ender"] == 0 and state.totals == [20, 24, 10]
    assert state.view(1)["round_scores"] == [[20, 24, 10]]


def test_vector_a_ender_tied_for_lowest_is_kept_by_default(stack) -> None:
    state = play_vector_a(stack)
    end = next(e for e in state.events if e["type"] == "round-end")
    assert end["raw"] == [10, 24, 10] and end["scores"] == [10, 24, 10]


def test_after_the_ender_every_other_player_takes_exactly_one_turn(stack) -> None:
    state = play_vector_a(stack)
    ending = next(i for i, e in enumerate(state.events) if e["type"] == "round-ending")
    closing = next(i for i, e in enumerate(state.events) if e["type"] == "round-end")
    turns = [e["seat"] for e in state.events[ending:closing] if e["type"] in TURN_EVENTS]
    assert state.events[ending]["seat"] == 0 and turns == [1, 2]


@pytest.mark.parametrize("rule, starter", [("winner", 2), ("ender", 0)])
def test_later_rounds_start_with_the_winner_or_the_ender(stack, rule, starter) -> None:
    state = play_vector_a(stack, {"next_starter": rule, "doubling": "manual"})
    assert state.round == 2 and state.view(0)["starter"] == starter
    reveal(state, "0,0+0,1", "0,0+0,1", "0,0+0,1")
    assert state.to_act() == (starter,)
    assert state.events[-1] == {"type": "starter", "round": 2, "seat": starter, "reason": rule}


@pytest.mark.parametrize(
    "raw, ender, capped, scores",
    [
        ([10, 24, 10], 0, False, [20, 24, 10]),  # tie for lowest doubles (vector A)
        ([9, 24, 10], 0, False, [9, 24, 10]),  # strictly lowest: kept
        ([12, 24, 10], 0, False, [24, 24, 10]),  # not lowest: doubled
        ([0, -3, 10], 0, False, [0, -3, 10]),  # zero is not positive
        ([-2, -5, 10], 0, False, [-2, -5, 10]),  # negative: never doubled
        ([12, 24, 10], 0, True, [12, 24, 10]),  # the round cap doubles nobody
        ([12, 24, 10], None, False, [12, 24, 10]),
    ],
)
def test_round_scores_doubling_manual(raw, ender, capped, scores) -> None:
    assert round_scores(raw, ender, capped, "manual") == scores


@pytest.mark.parametrize(
    "raw, ender, capped, scores",
    [
        ([10, 24, 10], 0, False, [10, 24, 10]),  # a tie for lowest is the lowest: kept
        ([9, 24, 10], 0, False, [9, 24, 10]),  # strictly lowest: kept
        ([12, 24, 10], 0, False, [24, 24, 10]),  # someone scored strictly less: doubled
        ([0, -3, 10], 0, False, [0, -3, 10]),  # whatever the sign: zero doubles to zero
        ([-2, -5, 10], 0, False, [-4, -5, 10]),  # whatever the sign: -2 doubles to -4
        ([-5, -5, 10], 0, False, [-5, -5, 10]),  # tied lowest below zero: kept
        ([12, 24, 10], 0, True, [12, 24, 10]),  # the round cap doubles nobody
        ([12, 24, 10], None, False, [12, 24, 10]),
    ],
)
def test_round_scores_doubling_unless_lowest(raw, ender, capped, scores) -> None:
    assert round_scores(raw, ender, capped, "unless-lowest") == scores


def test_round_cap_ends_a_stalled_round_without_doubling() -> None:
    state = new(2, {"next_starter": "ender"}, seed=8)
    reveal(state, "0,0+1,0", "0,0+1,0")
    rng = Random(2)
    while state.round == 1:
        play(state, stall(state, rng))
    cap = next(e for e in state.events if e["type"] == "round-cap")
    assert cap["turns"] == 120
    end = next(e for e in state.events if e["type"] == "round-end")
    assert end["capped"] and end["ender"] is None and end["scores"] == end["raw"]
    assert state.round == 2 and state.starter == round_winner(end["scores"])


def test_a_round_ended_on_the_cap_turn_still_plays_its_final_lap(stack) -> None:
    grid0 = [[12, 11, 1, 1], [2, 2, 3, 3], [4, 4, 5, 5]]
    grid1 = [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]
    stack.append(deck_for(2, {0: grid0, 1: grid1}, discard=3))
    state = new(2)
    reveal(state, "0,0+0,1", "0,0+0,1")  # seat 0 starts; seat 1 plays turns 2..120
    rng = Random(5)
    while state.round == 1 and not state.is_over():
        if state.to_act() == (1,) and state.turns >= 101:
            play(state, "draw", f"discard-flip:{first_down(state, 1)}")
        else:
            play(state, stall(state, rng))
    ending = next(e for e in state.events if e["type"] == "round-ending")
    end = next(e for e in state.events if e["type"] == "round-end")
    assert ending["seat"] == 1 and not end["capped"] and end["ender"] == 1
    assert not any(e["type"] == "round-cap" for e in state.events)
    assert sum(e["type"] in TURN_EVENTS for e in state.events) == 121


# ------------------------------------------------------------------ draw pile and game end
def test_eight_players_run_the_draw_pile_out_and_reshuffle_the_discard() -> None:
    state = new(8, seed=11)
    reveal(state, *["0,0+1,0"] * 8)
    assert len(state.pile) == 150 - 97
    while not any(e["type"] == "reshuffle" for e in state.events):
        discard_before = list(state.discard)
        play(state, "draw")
        if state.drawn is not None and not state.pile_public:
            play(state, "swap:0,0")
    event = state.events[-2]
    assert event["type"] == "reshuffle" and event["discard"] == discard_before[-1]
    assert Counter(event["pile"]) == Counter(discard_before[:-1])
    assert state.discard == discard_before[-1:] and len(state.pile) == len(discard_before) - 2
    assert state.view(0)["discard"] == discard_before[-1:]
    assert accounted(state) == Counter(DECK)
    # only the drawer sees the card; after a reshuffle the pile's contents are public
    drawer = state.current
    for seat in range(8):
        other = state.resample(seat, Random(seat))
        assert packed(other.view(seat)) == packed(state.view(seat))
        assert other.events == [] and not other.recording, "a search's copy records nothing"
        assert Counter(other.pile + [other.drawn]) == Counter(state.pile + [state.drawn])
        assert accounted(other) == Counter(DECK)
        if seat == drawer:
            assert other.drawn == state.drawn


def test_resample_hides_face_down_cards_from_their_owner_and_the_drawn_card() -> None:
    state = new(3, seed=21)
    reveal(state, "0,0+0,1", "0,0+0,1", "0,0+0,1")
    play(state, "draw")
    drawer = state.current
    watcher = (drawer + 1) % 3
    own_cards, drawn = set(), set()
    for i in range(30):
        mine = state.resample(drawer, Random(i))
        theirs = state.resample(watcher, Random(i))
        assert mine.drawn == state.drawn and packed(mine.view(drawer)) == packed(state.view(drawer))
        own_cards.add(tuple(mine.cards[drawer]))
        drawn.add(theirs.drawn)
        assert accounted(theirs) == Counter(DECK)
    assert len(own_cards) > 1 and len(drawn) > 1


def test_game_ends_once_a_total_reaches_100_and_places_go_by_lowest_total() -> None:
    state = new(3, seed=5)
    rng = Random(5)
    while not state.is_over():
        state.apply({s: rng.choice(state.legal(s)) for s in state.to_act()})
    assert max(state.totals) >= 100
    assert all(max(total) < 100 for total in _running_totals(state.history)[:-1])
    outcome = state.outcome()
    assert outcome.scores == tuple(float(t) for t in state.totals)
    assert outcome.places == skyjo.places_from_keys(state.totals)
    assert state.view(0)["phase"] == "over" and state.to_act() == ()
    assert state.events[-1]["type"] == "game-end" and not state.events[-1]["round_cap"]


def _running_totals(history: list[list[int]]) -> list[list[int]]:
    totals, running = [0] * len(history[0]), []
    for scores in history:
        totals = [t + s for t, s in zip(totals, scores)]
        running.append(totals)
    return running


def test_equal_totals_share_a_place() -> None:
    state = new(3)
    state.totals = [50, 30, 50]
    assert state.outcome().places == (2, 1, 2)


def test_game_round_cap_ends_the_game(monkeypatch) -> None:
    monkeypatch.setattr(skyjo, "MAX_ROUNDS", 1)
    state = new(2, seed=8)
    reveal(state, "0,0+1,0", "0,0+1,0")
    rng = Random(2)
    while not state.is_over():
        play(state, stall(state, rng))
    assert state.round == 1 and max(state.totals) < 100
    assert state.events[-1]["type"] == "game-end" and state.events[-1]["round_cap"]


# ------------------------------------------------------------------- options, log, bound
def test_options() -> None:
    assert GAME.default_options == {
        "columns": True,
        "next_starter": "winner",
        "doubling": "unless-lowest",
        "discard_flip": "mandatory",
    }
    assert new(2, {"columns": "off"}).options["columns"] is False
    with pytest.raises(OptionError):
        new(2, {"next_starter": "loser"})
    with pytest.raises(OptionError):
        new(2, {"jokers": True})


def test_every_event_formats_as_one_line() -> None:
    state = new(2, seed=8)
    reveal(state, "0,0+1,0", "0,0+1,0")
    rng = Random(2)
    while not state.is_over():
        if state.round == 1:
            play(state, stall(state, rng))
        else:
            state.apply({s: random_policy(state, rng) for s in state.to_act()})
    kinds = {e["type"] for e in state.events}
    assert {
        "deal",
        "reveal",
        "starter",
        "draw",
        "swap",
        "take-discard",
        "round-cap",
        "round-end",
        "game-end",
        "final-reveal",
    } <= kinds
    for event in state.events:
        line = GAME.format_event(event)
        assert isinstance(line, str) and "\n" not in line and line


def test_max_steps_counts_the_round_cap_the_final_lap_and_the_game_cap() -> None:
    assert GAME.max_steps(2, {}) == skyjo.MAX_ROUNDS * (1 + 2 * (120 + 1))


# ------------------------------------------------------------------------- properties
Policy = Callable[[SkyjoState, Random], str]


def random_policy(state: SkyjoState, rng: Random) -> str:
    return rng.choice(state.legal(state.to_act()[0]))


def check_final_laps(state: SkyjoState) -> None:
    """After a round's ender, each other seat plays exactly one turn, in order."""
    ender, turns = None, []
    for event in state.events:
        if event["type"] == "round-ending":
            ender, turns = event["seat"], []
        elif event["type"] in TURN_EVENTS and ender is not None:
            turns.append(event["seat"])
        elif event["type"] == "round-end" and ender is not None:
            n = state.players
            assert turns == [(ender + k) % n for k in range(1, n)]
            ender = None


@settings(max_examples=25)
@given(
    seed=st.integers(0, 2**32),
    players=st.integers(2, 8),
    columns=st.booleans(),
    starter=st.sampled_from(["winner", "ender"]),
    stalling=st.booleans(),
)
def test_property_cards_conserved_games_end_and_replay(
    seed, players, columns, starter, stalling
) -> None:
    options = {"columns": columns, "next_starter": starter}
    state = new(players, options, seed)
    rng = Random(seed)
    bound = GAME.max_steps(players, state.options)
    joints = []
    while not state.is_over():
        if state.phase is skyjo.Phase.REVEAL or not stalling or state.round > 1:
            joint = {s: random_policy(state, rng) for s in state.to_act()}
        else:
            joint = {state.current: stall(state, rng)}
        state.apply(joint)
        joints.append(joint)
        assert accounted(state) == Counter(DECK)
        assert len(joints) <= bound
    check_final_laps(state)
    again = new(players, options, seed)
    for joint in joints:
        again.apply(joint)
    assert packed(again.events) == packed(state.events)


@pytest.mark.parametrize("players", [2, 8])
def test_views_survive_resampling_through_reshuffles_and_round_caps(players: int) -> None:
    state = new(players, seed=players)
    rng = Random(players)
    step = 0
    while not state.is_over():
        if step % 7 == 0:
            for seat in range(players):
                other = state.resample(seat, rng)
                assert packed(other.view(seat)) == packed(state.view(seat))
                assert other.legal(seat) == state.legal(seat)
                assert accounted(other) == Counter(DECK)
        if state.phase is skyjo.Phase.REVEAL or state.round > 1:
            state.apply({s: random_policy(state, rng) for s in state.to_act()})
        else:
            play(state, stall(state, rng))
        step += 1
    assert any(e["type"] == "round-cap" for e in state.events)
    if players == 8:
        assert sum(e["type"] == "reshuffle" for e in state.events) >= 2
