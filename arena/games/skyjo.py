"""Skyjo: lowest score wins; 3x4 grids of face-down cards, swapped and turned over.

Rules as implemented: ``docs/games/skyjo.md``. Grid cells
are addressed ``R,C`` with rows 0-2 (top to bottom) and columns 0-3 (left to right); a grid is
stored row-major (index ``R*4+C``). Piles are lists whose *last* element is the top.

The opening reveal is one simultaneous step in which each seat picks a pair of its cells
(``reveal:R,C+R,C``), so nobody sees another seat's first card before choosing a second one.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from random import Random
from typing import Any

from arena.games import register, skyjo_words
from arena.games.base import ALONE, Game, OptionSpec, Outcome, State, per_step, places_from_keys
from arena.games.skyjo_actions import (
    CELL_NAMES,
    CELLS,
    COLS,
    COLUMN_CELLS,
    DISCARD_FLIP_ACTIONS,
    REVEAL_ACTIONS,
    ROW_CELLS,
    SWAP_ACTIONS,
    TAKE_DISCARD_ACTIONS,
    parse_action,
)
from arena.games.skyjo_cards import (
    DECK,
    MAX_ROUNDS,
    TARGET,
    TURNS_PER_PLAYER_CAP,
    Cell,
    Phase,
    first_player,
    round_scores,
    round_winner,
)
from arena.games.skyjo_view import check_view, lay_out, starter_reason


class SkyjoState(State):
    """A Skyjo game in progress. See the module docstring for the conventions."""

    def __init__(self, players: int, seed: int, options: dict[str, Any]) -> None:
        self.players = players
        self.seed = seed
        self.options = options
        self.rng = Random(seed)
        self.events = []
        self.steps = 0
        self.round = 0
        self.totals = [0] * players
        self.history: list[list[int]] = []
        self.last_ender: int | None = None
        self.last_winner: int | None = None
        self._start_round()

    # ----------------------------------------------------------------- round set-up and end
    def _start_round(self) -> None:
        self.round += 1
        deck = list(DECK)
        self.rng.shuffle(deck)
        n = self.players
        self.cards = [deck[s * CELLS : (s + 1) * CELLS] for s in range(n)]
        self.cells = [[Cell.DOWN] * CELLS for _ in range(n)]
        self.removed: list[list[tuple[int, int]]] = [[] for _ in range(n)]
        self.discard = [deck[n * CELLS]]
        self.pile = deck[n * CELLS + 1 :]
        self.pile_public = False  # True once a reshuffle made the pile's contents known
        self.drawn: int | None = None
        self.ender: int | None = None
        self.lap_left = 0
        self.turns = 0
        self.phase = Phase.REVEAL
        self.starter, self.starter_reason = (
            self._later_starter() if self.round > 1 else (None, "highest-reveal")
        )
        self.current = -1
        self.log(
            {
                "type": "deal",
                "round": self.round,
                "grids": [list(g) for g in self.cards],
                "discard": self.discard[0],
                "pile": list(self.pile),
            }
        )

    def _later_starter(self) -> tuple[int, str]:
        """The starter of rounds after the first; a capped round has no ender: its winner."""
        if self.options["next_starter"] == "ender" and self.last_ender is not None:
            return self.last_ender, "ender"
        assert self.last_winner is not None
        return self.last_winner, "winner"

    def _begin_turns(self, starter: int, reason: str) -> None:
        self.starter = self.current = starter
        self.phase = Phase.TURN
        self.log({"type": "starter", "round": self.round, "seat": starter, "reason": reason})

    def _end_round(self, capped: bool) -> None:
        for seat in range(self.players):
            self._final_reveal(seat)
        raw = [self.grid_score(seat) for seat in range(self.players)]
        ender = self.ender
        scores = round_scores(raw, ender, capped, self.options["doubling"])
        self.totals = [t + s for t, s in zip(self.totals, scores)]
        self.history.append(scores)
        self.last_ender = ender
        self.last_winner = round_winner(scores)
        self.log(
            {
                "type": "round-end",
                "round": self.round,
                "ender": ender,
                "capped": capped,
                "raw": raw,
                "scores": scores,
                "totals": list(self.totals),
            }
        )
        if max(self.totals) >= TARGET or self.round >= MAX_ROUNDS:
            self.phase = Phase.OVER
            self.current = -1
            self.log(
                {
                    "type": "game-end",
                    "totals": list(self.totals),
                    "places": list(self.outcome().places),
                    "round_cap": max(self.totals) < TARGET,
                }
            )
        else:
            self._start_round()

    def _final_reveal(self, seat: int) -> None:
        cells = self.cells[seat]
        down = [i for i in range(CELLS) if cells[i] is Cell.DOWN]
        for i in down:
            cells[i] = Cell.UP
        if down:
            self.log(
                {
                    "type": "final-reveal",
                    "seat": seat,
                    "cells": [CELL_NAMES[i] for i in down],
                    "cards": [self.cards[seat][i] for i in down],
                }
            )
        for col in range(COLS):
            self._check_column(seat, col)

    def grid_score(self, seat: int) -> int:
        """The sum of ``seat``'s cards still in play (face-down ones included)."""
        return sum(v for v, c in zip(self.cards[seat], self.cells[seat]) if c is not Cell.GONE)

    # ----------------------------------------------------------------------- the interface
    def to_act(self) -> tuple[int, ...]:
        if self.phase is Phase.REVEAL:
            return tuple(range(self.players))
        if self.phase is Phase.OVER:
            return ()
        return ALONE[self.current]

    def _legal(self, seat: int) -> list[str]:
        if self.phase is Phase.REVEAL:
            return list(REVEAL_ACTIONS) if 0 <= seat < self.players else []
        if self.phase is Phase.OVER or seat != self.current:
            return []
        cells = self.cells[seat]
        gone, down = Cell.GONE, Cell.DOWN  # (an enum member is slow to look up in a loop)
        if self.phase is Phase.TURN:
            return ["draw"] + [a for a, c in zip(TAKE_DISCARD_ACTIONS, cells) if c is not gone]
        skip = ["discard"] if self.options["discard_flip"] == "optional" else []
        return (
            [a for a, c in zip(SWAP_ACTIONS, cells) if c is not gone]
            + [a for a, c in zip(DISCARD_FLIP_ACTIONS, cells) if c is down]
            + skip
        )

    def _apply(self, actions: Mapping[int, str]) -> None:
        if self.phase is Phase.REVEAL:
            self._opening_reveal(actions)
            return
        seat = self.current
        move = parse_action(actions[seat])
        if move.kind == "draw":
            self._draw(seat)
        elif move.kind == "take-discard":
            card = self.discard.pop()
            self._swap_in(seat, move.cells[0], card, "take-discard")
            self._end_turn(seat)
        elif move.kind == "swap":
            card, self.drawn = self.drawn, None
            assert card is not None
            self._swap_in(seat, move.cells[0], card, "swap")
            self._end_turn(seat)
        elif move.kind == "discard":
            self._discard(seat)
            self._end_turn(seat)
        else:
            self._discard_flip(seat, move.cells[0])
            self._end_turn(seat)

    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    def outcome(self) -> Outcome:
        return Outcome(
            scores=tuple(float(t) for t in self.totals), places=places_from_keys(self.totals)
        )

    # ------------------------------------------------------------------------ the moves
    def _opening_reveal(self, actions: Mapping[int, str]) -> None:
        for seat in range(self.players):
            cells = parse_action(actions[seat]).cells
            for i in cells:
                self.cells[seat][i] = Cell.UP
            self.log(
                {
                    "type": "reveal",
                    "seat": seat,
                    "cells": [CELL_NAMES[i] for i in cells],
                    "cards": [self.cards[seat][i] for i in cells],
                }
            )
        if self.starter is None:
            self.starter = first_player([self._face_up_sum(s) for s in range(self.players)])
        self._begin_turns(self.starter, self.starter_reason)

    def _face_up_sum(self, seat: int) -> int:
        return sum(v for v, c in zip(self.cards[seat], self.cells[seat]) if c is Cell.UP)

    def _draw(self, seat: int) -> None:
        if not self.pile:
            self._reshuffle()
        self.drawn = self.pile.pop()
        self.phase = Phase.DRAWN
        self.log({"type": "draw", "seat": seat, "card": self.drawn})

    def _reshuffle(self) -> None:
        """[arena] The discard pile except its top card becomes the new draw pile."""
        top = self.discard.pop()
        self.pile = self.discard
        self.rng.shuffle(self.pile)
        self.discard = [top]
        self.pile_public = True
        self.log({"type": "reshuffle", "pile": list(self.pile), "discard": top})

    def _swap_in(self, seat: int, index: int, card: int, kind: str) -> None:
        replaced = self.cards[seat][index]
        self.cards[seat][index] = card
        self.cells[seat][index] = Cell.UP
        self.discard.append(replaced)
        self.log(
            {
                "type": kind,
                "seat": seat,
                "cell": CELL_NAMES[index],
                "card": card,
                "replaced": replaced,
            }
        )
        self._check_column(seat, index % COLS)

    def _discard_flip(self, seat: int, index: int) -> None:
        card, self.drawn = self.drawn, None
        assert card is not None
        self.discard.append(card)
        self.cells[seat][index] = Cell.UP
        self.log(
            {
                "type": "discard-flip",
                "seat": seat,
                "cell": CELL_NAMES[index],
                "card": card,
                "flipped": self.cards[seat][index],
            }
        )
        self._check_column(seat, index % COLS)

    def _discard(self, seat: int) -> None:
        """Option ``discard_flip: optional``: discard the drawn card and turn nothing over."""
        card, self.drawn = self.drawn, None
        assert card is not None
        self.discard.append(card)
        self.log({"type": "discard", "seat": seat, "card": card})

    def _check_column(self, seat: int, col: int) -> None:
        """Remove ``col`` if it holds three face-up cards of one value (option ``columns``)."""
        if not self.options["columns"]:
            return
        cells, cards = self.cells[seat], self.cards[seat]
        indices = top, middle, bottom = COLUMN_CELLS[col]
        if not (cells[top] is cells[middle] is cells[bottom] is Cell.UP):
            return
        value = cards[top]
        if not (value == cards[middle] == cards[bottom]):
            return
        for i in indices:
            self.cells[seat][i] = Cell.GONE
            self.discard.append(value)
        self.removed[seat].append((col, value))
        self.log({"type": "remove-column", "seat": seat, "column": col, "card": value})

    def _end_turn(self, seat: int) -> None:
        self.phase = Phase.TURN
        self.turns += 1
        if self.ender is None and Cell.DOWN not in self.cells[seat]:
            self.ender = seat
            self.lap_left = self.players - 1
            self.log({"type": "round-ending", "seat": seat})
        elif self.ender is not None:
            self.lap_left -= 1
        if self.ender is not None and self.lap_left == 0:
            self._end_round(capped=False)
        elif self.ender is None and self.turns >= TURNS_PER_PLAYER_CAP * self.players:
            self.log({"type": "round-cap", "round": self.round, "turns": self.turns})
            self._end_round(capped=True)
        else:
            self.current = (seat + 1) % self.players

    # ------------------------------------------------------------------- information
    def view(self, seat: int) -> dict[str, Any]:
        """Every seat's view shares the public part of the step (``_public_view``); only the
        drawer sees its drawn card."""
        public = self._public_view()
        drawn = self.drawn if public["drawer"] == seat else None
        return {"game": "skyjo", "seat": seat, **public, "drawn": drawn}

    @per_step
    def _public_view(self) -> dict[str, Any]:
        """What every seat's view shows alike."""
        return {
            "players": self.players,
            "options": dict(self.options),
            "round": self.round,
            "phase": self.phase.value,
            "turn": self.current if self.current >= 0 else None,
            "starter": self.starter,
            "ender": self.ender,
            "turns": self.turns,
            "turn_cap": TURNS_PER_PLAYER_CAP * self.players,
            "grids": [self._public_grid(s) for s in range(self.players)],
            "removed": [
                [{"column": c, "value": v} for c, v in self.removed[s]] for s in range(self.players)
            ],
            "discard": list(self.discard),
            "discard_top": self.discard[-1] if self.discard else None,
            "draw_count": len(self.pile),
            "pile_cards": self._known_pile(),
            "drawer": self.current if self.drawn is not None else None,
            "round_scores": [list(r) for r in self.history],
            "totals": list(self.totals),
        }

    def _known_pile(self) -> list[int] | None:
        """After a reshuffle in this round, what everyone knows of the draw pile: its cards,
        with a drawn card not yet shown, in ascending order (they were the discard pile, face
        up for all; the order is hidden). None before a reshuffle."""
        if not self.pile_public:
            return None
        return sorted(self.pile if self.drawn is None else [*self.pile, self.drawn])

    def _public_grid(self, seat: int) -> list[list[int | None]]:
        """``seat``'s grid row by row, face-up cards by value, other cells ``None``."""
        cards, cells, up = self.cards[seat], self.cells[seat], Cell.UP
        return [[cards[i] if cells[i] is up else None for i in row] for row in ROW_CELLS]

    def full(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "phase": self.phase.value,
            "current": self.current,
            "starter": self.starter,
            "ender": self.ender,
            "lap_left": self.lap_left,
            "turns": self.turns,
            "cards": [list(g) for g in self.cards],
            "cells": [[int(c) for c in g] for g in self.cells],
            "removed": [[list(r) for r in rs] for rs in self.removed],
            "discard": list(self.discard),
            "pile": list(self.pile),
            "pile_public": self.pile_public,
            "drawn": self.drawn,
            "history": [list(r) for r in self.history],
            "totals": list(self.totals),
        }

    def clone(self) -> SkyjoState:
        """An independent copy (its generator continues identically)."""
        return self._copy(copy.copy(self.rng))

    def _copy(self, rng: Random) -> SkyjoState:
        """An independent copy whose chance comes from ``rng`` (logged events are never
        changed, so the copy's log holds the same maps)."""
        other = copy.copy(self)
        other.rng = rng
        other.events = list(self.events)
        other.cards = [list(cards) for cards in self.cards]
        other.cells = [list(cells) for cells in self.cells]
        other.removed = [list(removed) for removed in self.removed]
        other.discard = list(self.discard)
        other.pile = list(self.pile)
        other.totals = list(self.totals)
        other.history = [list(scores) for scores in self.history]
        return other

    def resample(self, seat: int, rng: Random) -> SkyjoState:
        """Redraw every card ``seat`` cannot see, keeping each card's publicly known pool.

        Face-down grid cards (everyone's, ``seat``'s own included) come from the deal. The draw
        pile shares their pool until a reshuffle in this round; after one, its contents are
        public (the old discard pile) and only its order is redrawn. Another seat's drawn card
        belongs to the draw pile's pool. The copy's future chance is redrawn as well. It does
        not record events (see ``State.recording``).
        """
        other = self._copy(self.rng)  # (a placeholder: its generator is drawn below)
        other._redraw_hidden(seat, rng)
        other.rng = Random(rng.getrandbits(64))
        other.events, other.recording = [], False
        return other

    def load_view(self, view: Mapping[str, Any], seat: int, rng: Random) -> None:
        """Everything ``seat``'s ``view`` shows as shown (the table read by ``lay_out``), the
        hidden cards drawn by ``rng`` (see ``State.load_view``)."""
        players, options = self.players, self.options
        check_view(view, options)
        self.round, self.phase = view["round"], Phase(view["phase"])
        self.totals = [int(total) for total in view["totals"]]
        self.history = [list(scores) for scores in view["round_scores"]]
        # the previous round's ender and winner are read only when the next round starts, after
        # the end of this one has set them again
        self.last_ender = None
        self.last_winner = round_winner(self.history[-1]) if self.history else None
        self.current = -1 if view["turn"] is None else view["turn"]
        self.starter, self.ender, self.turns = view["starter"], view["ender"], view["turns"]
        self.starter_reason = starter_reason(self.round, options)
        self.lap_left = 0
        if self.ender is not None and self.phase is not Phase.OVER:
            self.lap_left = players - (self.current - self.ender) % players
        self.discard = list(view["discard"])
        self.pile_public = view["pile_cards"] is not None
        table = lay_out(view, seat, players)
        self.cards, self.cells, self.removed = table.cards, table.cells, table.removed
        self.drawn, self.pile = table.drawn, table.pile
        self._redraw_hidden(seat, rng)

    def _redraw_hidden(self, seat: int, rng: Random) -> None:
        """Deal the cards ``seat`` cannot see again at random, each within its pool (see
        ``resample``)."""
        grid_slots = [
            (s, i)
            for s in range(self.players)
            for i in range(CELLS)
            if self.cells[s][i] is Cell.DOWN
        ]
        hidden_drawn = self.drawn is not None and self.current != seat
        pile_cards = self.pile + ([self.drawn] if hidden_drawn else [])
        grid_cards = [self.cards[s][i] for s, i in grid_slots]
        if self.pile_public:
            rng.shuffle(grid_cards)
            rng.shuffle(pile_cards)
        else:
            pool = grid_cards + pile_cards
            rng.shuffle(pool)
            grid_cards, pile_cards = pool[: len(grid_cards)], pool[len(grid_cards) :]
        for (s, i), card in zip(grid_slots, grid_cards):
            self.cards[s][i] = card
        if hidden_drawn:
            self.drawn = pile_cards.pop()
        self.pile = pile_cards


class SkyjoGame(Game):
    """Skyjo for 2-8 players."""

    name = "skyjo"
    title = "Skyjo"
    state_class = SkyjoState
    lower_score_wins = True  # the lowest total wins
    min_players = 2
    max_players = 8
    options = {
        "columns": OptionSpec(True, "remove a column of three equal face-up cards", kind=bool),
        "next_starter": OptionSpec(
            "winner",
            "who starts rounds after the first: the previous "
            "round's winner or the player who ended it",
            choices=("winner", "ender"),
        ),
        "doubling": OptionSpec(
            "unless-lowest",
            "the round's ender is doubled unless strictly "
            "lowest, or (manual) only if positive and not strictly lowest",
            choices=("unless-lowest", "manual"),
        ),
        "discard_flip": OptionSpec(
            "mandatory",
            "after discarding a drawn card, turning a face-down card over is mandatory or optional",
            choices=("mandatory", "optional"),
        ),
    }

    def max_steps(self, players: int, options: Mapping[str, Any]) -> int:
        # Per round: the reveal step, then at most cap*n turns before someone ends the round
        # (else the cap ends it) plus n-1 final turns; a turn is at most two steps.
        turns = TURNS_PER_PLAYER_CAP * players + players - 1
        return MAX_ROUNDS * (1 + 2 * turns)

    # its words (``arena.games.skyjo_words``)
    action_words = staticmethod(skyjo_words.action_words)
    format_event = staticmethod(skyjo_words.format_event)
    event_detail = staticmethod(skyjo_words.event_detail)
    rules_summary = skyjo_words.RULES


register(SkyjoGame())
