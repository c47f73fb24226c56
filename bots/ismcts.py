"""Information-set Monte Carlo tree search for every game: the arena's strongest reference bot.

Each move, the bot rebuilds a state from its view (``Game.from_view``: everything it sees as
shown, everything hidden drawn at random) and runs iterations of a single-observer search:

* **determinize**: every iteration draws the hidden information afresh
  (``State.resample`` of the rebuilt state, from the bot's own seat);
* **select / expand**: the tree holds only the bot's own decisions. A node is one of its
  information sets: the children of an action are keyed by what the bot sees at its next
  decision (its view then), so the tree never branches on what it cannot see. Actions are
  chosen by UCT over the actions legal in the current determinization, counting for each
  action the visits in which it was available (the subset-armed bandit of ISMCTS);
* **other seats** act by the playout policy, from their own view of the determinized state,
  both in the tree and below it. In a simultaneous step (Skull's setup, the bank's ante, Skull
  King's bids) the bot's own choice comes from its node alone and the others' choices are
  drawn by the policy: the bot never conditions on another seat's choice of the same step;
* **playout**: to the end of the game by the policy (the game's heuristic bot, with a little
  randomness; random where no heuristic exists); the reward is the bot's place, scaled from
  1 (first) to 0 (last). In the bank variant, whose games run long, a playout stops after two
  rounds and scores the standing then (places by bills held); in Skull King it stops at the
  end of the round and scores the places by that round's points;
* **decide**: the most visited action at the root.

Skyjo is searched otherwise (``RoundSearch``): a flat search over the choice of the bot's own
policy (greedy's valuation with stronger weights, ``_skyjo_playout.STRONGER``) and the
heuristic's few best actions (more of them near the round's end), each played out on the same
determinizations to the end of the round (the bot's seat by its policy, the others by the
heuristic) and scored by the totals then; an action replaces the policy's choice only when
the paired differences show it better with confidence. Its
iterations are the moves it simulates (a playout near the round's end is a few moves, early
in a round sixty), so that a fixed ``--iterations`` buys about as much search in every
position as a clock does.

Options (command line, or ``ARENA_BOT_*`` variables, which the arena passes to bots):
``--move-ms`` (``ARENA_BOT_MOVE_MS``, default 200; 0 = no clock) thinking time per move, cut to
the turn's ``deadline_ms`` less a safety margin when that is shorter; ``--iterations``
(``ARENA_BOT_ITERATIONS``, default 100000) the most iterations per move (in Skyjo: simulated
moves; the last playouts it starts are finished); ``--exploration``
(``ARENA_BOT_EXPLORATION``, default 0.7) UCT's constant. With ``--move-ms 0`` and a fixed
``--iterations`` the bot is deterministic per ``start.seed``; with a clock its choices depend
on the machine's speed. See ``docs/bots.md``.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import math
import os
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.games import Game, State, get_game, places_from_keys
from arena.games.skyjo_cards import TARGET as SKYJO_TARGET
from bots import _skyjo_playout as skyjo_playout
from bots import skyjo_greedy
from protocol.sdk import Bot

GAMES = ("*",)

log = logging.getLogger(__name__)

Policy = Callable[[dict[str, Any], list[str]], str]

#: The heuristic bot whose ``act`` plays the other seats and the playouts, per game.
HEURISTICS = {
    "skull": "bots.skull_odds",
    "skull-bank": "bots.skull_bank_odds",
    "skull-king": "bots.skull_king_bidder",
    "skyjo": "bots.skyjo_greedy",
}
#: Rounds a playout looks ahead in a game whose end is far (then it scores the standing of the
#: moment: the place of the bot by ``outcome()``); other games play out to the end.
HORIZONS = {"skull-bank": 2, "skull-king": 1}
#: Games whose cut playouts score the places by the points made during the playout alone
#: rather than the standing (a round changes a standing too little): each seat's running
#: total, as a key where smaller is better.
ROUND_POINTS: dict[str, Callable[[Any], list[float]]] = {
    "skull-king": lambda state: [-score for score in state.scores],
}
#: Games searched by ``RoundSearch`` instead of the tree: the heuristic bot's ranking of the
#: legal actions (best first, one per class of equivalent actions) that the search considers.
RANKINGS: dict[str, Callable[[dict[str, Any], list[str]], list[str]]] = {
    "skyjo": skyjo_greedy.ranked,
}
#: ``RoundSearch``: a decision read from a state for one seat (``decide(state, seat)``).
Decider = Callable[[Any, int], str]
#: ``RoundSearch``: how many of the ranked actions it compares (the heuristic's choice included).
CANDIDATES = 3
#: ``RoundSearch``: how many it compares near the round's end (``near_end``), where the
#: heuristic, which counts points rather than places, is most often wrong.
END_CANDIDATES = 8
#: ``RoundSearch``: the round's end is near once some seat has at most this many face-down
#: cards (or someone has ended it).
END_HIDDEN = 2
#: ``RoundSearch``: how sure (in standard errors of the paired mean) the search must be that an
#: action beats the heuristic's choice before it plays it.
CONFIDENCE = 2.5
#: ``RoundSearch``: the fewest paired samples from which it may play another action than the
#: heuristic's (fewer give too rough an estimate of their spread).
MIN_SAMPLES = 10
#: ``RoundSearch``: spread of one round's score difference between two players (Skyjo, greedy
#: against greedy: about 14 points), which scales the value of a lead at the round's end.
ROUND_SPREAD = 14.0
#: ``RoundSearch``: the fewest points a round is taken to add to the highest total, when the
#: number of rounds left is estimated from the pace so far.
MIN_PACE = 10.0
#: Share of playout moves drawn uniformly instead of by the heuristic (diversity).
EPSILON = 0.1
#: Weight of the bias towards the heuristic's choice (a reward bonus of BIAS / (visits + 1)).
BIAS = 1.0
#: Milliseconds kept free before the arena's deadline (answer, encode, send).
SAFETY_MS = 60
#: A playout stopped after this many steps scores as a middle place (a game that runs long).
MAX_PLAYOUT = 2000


@dataclass(frozen=True)
class Settings:
    """How long and how hard the bot thinks."""

    move_ms: int = 200
    iterations: int = 100_000
    exploration: float = 0.7


def settings_from(argv: Sequence[str], environ: Mapping[str, str]) -> Settings:
    """Settings from the command line, falling back on ``ARENA_BOT_*`` variables (a bad
    value is a usage error, exit status 2)."""
    parser = argparse.ArgumentParser(prog="python -m bots.ismcts", description=__doc__)
    parser.add_argument("--move-ms", type=int, default=environ.get("ARENA_BOT_MOVE_MS"))
    parser.add_argument("--iterations", type=int, default=environ.get("ARENA_BOT_ITERATIONS"))
    parser.add_argument("--exploration", type=float, default=environ.get("ARENA_BOT_EXPLORATION"))
    args = parser.parse_args(list(argv))  # argparse converts string defaults too
    defaults = Settings()
    settings = Settings(
        defaults.move_ms if args.move_ms is None else args.move_ms,
        defaults.iterations if args.iterations is None else args.iterations,
        defaults.exploration if args.exploration is None else args.exploration,
    )
    if settings.move_ms < 0 or settings.iterations < 1 or not settings.exploration >= 0:
        parser.error("--move-ms must be >= 0, --iterations >= 1, --exploration >= 0")
    return settings


def heuristic(game: str) -> Policy | None:
    """The ``act`` of ``game``'s heuristic bot (None: the game has none)."""
    module = HEURISTICS.get(game)
    return importlib.import_module(module).act if module else None  # type: ignore[no-any-return]


def playout_policy(act: Policy | None, rng: random.Random) -> Policy:
    """The heuristic ``act``, with a uniform move now and then (always without one)."""

    def policy(view: dict[str, Any], legal: list[str]) -> str:
        if act is None or rng.random() < EPSILON:
            return legal[rng.randrange(len(legal))]
        return act(view, legal)

    return policy


def reward(state: State, seat: int) -> float:
    """``seat``'s place in the outcome, scaled from 1 (first) to 0 (last)."""
    return reward_of_places(state.outcome().places, seat)


def reward_of_places(places: Sequence[int], seat: int) -> float:
    """``seat``'s place, scaled from 1 (first) to 0 (last)."""
    return (len(places) - places[seat]) / (len(places) - 1)


def current_round(state: State) -> int:
    """The round a game with rounds is in (the bundled games all have one)."""
    return int(getattr(state, "round", 0))


@dataclass
class Node:
    """One of the bot's information sets: per action, visits, total reward and availability;
    the children reached through an action, by what the bot sees next."""

    preferred: str | None = None
    visits: dict[str, int] = field(default_factory=dict)
    total: dict[str, float] = field(default_factory=dict)
    available: dict[str, int] = field(default_factory=dict)
    children: dict[tuple[str, str], Node] = field(default_factory=dict)

    def choose(self, legal: Sequence[str], exploration: float, rng: random.Random) -> str:
        """The preferred action first, then an untried legal action (at random), then the
        best by UCT, with a bias towards the preferred action that fades with its visits."""
        for action in legal:
            self.available[action] = self.available.get(action, 0) + 1
        if self.preferred in legal and self.preferred not in self.visits:
            return self.preferred
        untried = [action for action in legal if action not in self.visits]
        if untried:
            return untried[rng.randrange(len(untried))]

        def score(action: str) -> float:
            n = self.visits[action]
            bonus = math.sqrt(math.log(self.available[action]) / n)
            bias = BIAS / (n + 1) if action == self.preferred else 0.0
            return self.total[action] / n + exploration * bonus + bias

        return max(legal, key=score)

    def update(self, action: str, value: float) -> None:
        self.visits[action] = self.visits.get(action, 0) + 1
        self.total[action] = self.total.get(action, 0.0) + value


def observation(view: Mapping[str, Any]) -> str:
    """What identifies the bot's information set: its whole view, as text."""
    return repr(view)


@dataclass
class Search:
    """The search of one game for one seat."""

    game: Game
    seat: int
    players: int
    options: dict[str, Any]
    rng: random.Random
    settings: Settings
    prior: Policy | None
    policy: Policy
    horizon: int | None = None
    points: Callable[[Any], list[float]] | None = None
    iterations_done: int = 0

    def node(self, view: dict[str, Any], legal: list[str]) -> Node:
        """A new node for the bot's information set with this view: it prefers the
        heuristic's choice."""
        return Node(preferred=self.prior(view, legal) if self.prior else None)

    def decide(self, view: dict[str, Any], legal: list[str], stop_at: float | None) -> str:
        """The most visited root action after the iterations the budget allows."""
        if len(legal) == 1:
            return legal[0]
        base = self.game.from_view(view, self.seat, self.players, self.options, self.rng)
        root = self.node(view, legal)
        done = 0
        started = time.monotonic()
        while done < self.settings.iterations:
            if stop_at is not None and done:
                now = time.monotonic()
                if now + (now - started) / done > stop_at:
                    break
            self.iterate(base.resample(self.seat, self.rng), root)
            done += 1
        self.iterations_done += done
        log.debug("%d iterations in %.0f ms", done, (time.monotonic() - started) * 1000)
        return max(
            legal,
            key=lambda action: (
                root.visits.get(action, 0),
                action == root.preferred,
                -legal.index(action),
            ),
        )

    def iterate(self, state: State, root: Node) -> None:
        """One iteration from a determinized ``state``: descend the bot's information sets,
        expand one, play out, back the reward up the bot's decisions."""
        path: list[tuple[Node, str]] = []
        node: Node | None = root
        pending: tuple[Node, str] | None = None  # the bot's last decision in the tree
        expanded = False
        steps = 0
        last_round = None if self.horizon is None else current_round(state) + self.horizon
        before = self.points(state) if self.points else None
        while not state.is_over() and steps < MAX_PLAYOUT:
            if last_round is not None and current_round(state) >= last_round:
                break
            joint: dict[int, str] = {}
            for seat in state.to_act():
                if seat != self.seat:
                    joint[seat] = self.policy(state.view(seat), state.legal(seat))
                    continue
                if pending is not None:  # which information set is the bot in now?
                    parent, action = pending
                    pending = None
                    view = state.view(seat)
                    key = (action, observation(view))
                    node = parent.children.get(key)
                    if node is None and not expanded:
                        node = parent.children[key] = self.node(view, state.legal(seat))
                        expanded = True
                if node is None:
                    joint[seat] = self.policy(state.view(seat), state.legal(seat))
                    continue
                action = node.choose(state.legal(seat), self.settings.exploration, self.rng)
                joint[seat] = action
                path.append((node, action))
                pending, node = (node, action), None
            state.apply(joint)
            steps += 1
        if state.is_over() or (last_round is not None and before is None):
            value = reward(state, self.seat)
        elif last_round is not None and self.points is not None and before is not None:
            made = [now - then for now, then in zip(self.points(state), before)]
            value = reward_of_places(places_from_keys(made), self.seat)
        else:
            value = 0.5
        for visited, action in path:
            visited.update(action, value)


def normal_cdf(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def standing_value(state: Any, seat: int, target: float) -> float:
    """``seat``'s expected share of the pairwise results of the game (1: ahead of everyone),
    from the totals at the end of a round (smaller is better). Over, its place. Otherwise each
    rival's lead is weighed by the chance that it lasts: the rounds still to come add a spread
    of ``ROUND_SPREAD`` per round, and at least one round is still to come; the rounds left
    are the highest total's distance to ``target`` at the pace of the rounds so far."""
    if state.is_over():
        return reward(state, seat)
    totals = state.totals
    highest = max(totals)
    pace = max(MIN_PACE, highest / max(1, len(state.history)))
    spread = ROUND_SPREAD * math.sqrt(max(1.0, (target - highest) / pace))
    mine = totals[seat]
    rivals = [total for other, total in enumerate(totals) if other != seat]
    return sum(normal_cdf((total - mine) / spread) for total in rivals) / len(rivals)


def near_end(view: Mapping[str, Any]) -> bool:
    """Whether a Skyjo round may end within a lap or so: someone has ended it, or some seat
    has at most ``END_HIDDEN`` face-down cards (a removed column's cells show as face down)."""
    if view["ender"] is not None:
        return True
    return any(
        sum(card is None for row in grid for card in row) - 3 * len(removed) <= END_HIDDEN
        for grid, removed in zip(view["grids"], view["removed"])
    )


@dataclass
class RoundSearch:
    """The search of one Skyjo game for one seat: a flat search over its policy's choice and
    the heuristic's best actions, compared on common determinizations.

    Each sample draws one determinization (``State.resample``) and one seed for the chance
    after it, and plays every candidate action from that same start: the bot's action, then
    its seat by its own policy (``own``) and the others by the heuristic (``others``), without
    random moves, to the end of the round, scored by ``standing_value``. The candidates are
    compared by their paired differences to the policy's own choice, which cancel part of the
    luck of the deal; an
    action replaces that choice only when its mean difference is ``CONFIDENCE`` standard
    errors above zero, over at least ``MIN_SAMPLES`` determinizations. The budget
    (``Settings.iterations``) counts the moves played, the candidates' own included; at least
    one sample is always completed. See ``docs/bots.md``."""

    game: Game
    seat: int
    players: int
    options: dict[str, Any]
    rng: random.Random
    settings: Settings
    policy: Policy
    ranking: Callable[[dict[str, Any], list[str]], list[str]]
    own: Decider = skyjo_playout.stronger
    others: Decider = skyjo_playout.decide
    target: float = SKYJO_TARGET
    iterations_done: int = 0

    def candidates(self, view: dict[str, Any], legal: list[str], base: State) -> list[str]:
        """The bot's own policy's choice (``own`` on ``base``, the state rebuilt from ``view``),
        then the heuristic's best actions, ``CANDIDATES`` in all (``END_CANDIDATES`` near the
        round's end); the heuristic's choice alone where it has no ranking (the opening
        reveal)."""
        if view["phase"] not in ("turn", "drawn"):
            return [self.policy(view, legal)]
        chosen = self.own(base, self.seat)
        others = [action for action in self.ranking(view, legal) if action != chosen]
        wanted = END_CANDIDATES if near_end(view) else CANDIDATES
        return [chosen, *others[: wanted - 1]]

    def rebuild(self, view: dict[str, Any]) -> State:
        """A state rebuilt from the bot's view (``Game.from_view``), its hidden cards drawn."""
        return self.game.from_view(view, self.seat, self.players, self.options, self.rng)

    def determinized(self, base: State) -> State:
        """One determinization: every card the bot cannot see drawn afresh (``resample``)."""
        return base.resample(self.seat, self.rng)

    def playout(self, state: State, round_: int) -> tuple[float, int]:
        """To the end of round ``round_``, the bot's seat by its own policy (``own``) and the
        others by the heuristic (``others``: ``_skyjo_playout.decide``, the same as
        ``skyjo_greedy.act`` on each seat's view, without building the views): its standing
        value, and the moves played."""
        own, others, me = self.own, self.others, self.seat
        moves = 0
        while not state.is_over() and current_round(state) == round_:
            seat = state.current  # type: ignore[attr-defined]
            state.apply({seat: own(state, seat) if seat == me else others(state, seat)})
            moves += 1
        return standing_value(state, self.seat, self.target), moves

    def decide(self, view: dict[str, Any], legal: list[str], stop_at: float | None) -> str:
        if len(legal) == 1:
            return legal[0]
        base = self.rebuild(view)
        actions = self.candidates(view, legal, base)
        if len(actions) == 1:
            return actions[0]
        round_ = current_round(base)
        sums = [0.0] * len(actions)
        squares = [0.0] * len(actions)
        samples = playouts = moves = 0
        started = time.monotonic()
        while not samples or moves < self.settings.iterations:
            determinized = self.determinized(base)
            chance = self.rng.getrandbits(64)
            values: list[float] = []
            for action in actions:
                if stop_at is not None and playouts:
                    now = time.monotonic()
                    if now + (now - started) / playouts > stop_at:
                        break
                state = determinized.clone()
                state.rng = random.Random(chance)
                state.apply({self.seat: action})
                value, played = self.playout(state, round_)
                values.append(value)
                moves += played + 1
                playouts += 1
            if len(values) < len(actions):
                break
            samples += 1
            for index, value in enumerate(values):
                edge = value - values[0]
                sums[index] += edge
                squares[index] += edge * edge
        self.iterations_done += moves
        best, best_bound = 0, 0.0
        for index in range(1, len(actions)) if samples >= MIN_SAMPLES else ():
            mean = sums[index] / samples
            error = math.sqrt(max(0.0, squares[index] / samples - mean * mean) / (samples - 1))
            bound = mean - CONFIDENCE * error
            if bound > best_bound:
                best, best_bound = index, bound
        log.debug(
            "%d playouts, %d moves in %.0f ms", playouts, moves, (time.monotonic() - started) * 1000
        )
        return actions[best]


class Ismcts(Bot):
    """The bot: one search per game, seeded from ``start.seed``."""

    name = "ismcts"

    def __init__(self, settings: Settings | None = None) -> None:
        super().__init__()
        self.settings = settings or Settings()
        self.search: Search | RoundSearch | None = None
        self.deadline_ms: int | None = None

    def start(self, info: dict[str, Any]) -> None:
        rng = random.Random(info["seed"])
        game = get_game(info["game"])
        act = heuristic(game.name)
        ranking = RANKINGS.get(game.name)
        table = {
            "game": game,
            "seat": int(info["seat"]),
            "players": int(info["players"]),
            "options": game.parse_options(info.get("options") or {}),
            "rng": rng,
            "settings": self.settings,
        }
        if ranking is not None and act is not None:
            self.search = RoundSearch(**table, policy=act, ranking=ranking)
            return
        self.search = Search(
            **table,
            prior=act,
            policy=playout_policy(act, rng),
            horizon=HORIZONS.get(game.name),
            points=ROUND_POINTS.get(game.name),
        )

    def turn(self, message: dict[str, Any]) -> str:
        """A whole ``turn`` message: its ``deadline_ms`` may cut the thinking time."""
        self.deadline_ms = int(message["deadline_ms"])
        return self.act(message["view"], message["legal"])

    def act(self, view: dict[str, Any], legal: list[str]) -> str:
        arrived = time.monotonic()
        if self.search is None:
            raise RuntimeError("a turn before the game's start")
        return self.search.decide(view, legal, self.stop_time(arrived))

    def stop_time(self, arrived: float) -> float | None:
        """When to stop thinking: the move budget, cut by the arena's deadline (less a safety
        margin); None without a clock."""
        budgets = [self.settings.move_ms] if self.settings.move_ms else []
        if self.deadline_ms is not None:
            budgets.append(max(1, self.deadline_ms - SAFETY_MS))
        if not budgets:
            return None
        return arrived + min(budgets) / 1000


def main(argv: Sequence[str] | None = None) -> None:
    import sys

    from protocol.sdk import run_bot

    settings = settings_from(sys.argv[1:] if argv is None else argv, os.environ)
    run_bot(Ismcts(settings), name="ismcts")


if __name__ == "__main__":
    main()
