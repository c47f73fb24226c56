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
  end of the round and scores the places by that round's points; in Skyjo it stops there too
  and scores the bot's margin in that round's points over the others' mean;
* **decide**: the most visited action at the root.

Options (command line, or ``ARENA_BOT_*`` variables, which the arena passes to bots):
``--move-ms`` (``ARENA_BOT_MOVE_MS``, default 200; 0 = no clock) thinking time per move, cut to
the turn's ``deadline_ms`` less a safety margin when that is shorter; ``--iterations``
(``ARENA_BOT_ITERATIONS``, default 100000) the most iterations per move; ``--exploration``
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
HORIZONS = {"skull-bank": 2, "skyjo": 1, "skull-king": 1}
#: Games whose cut playouts score the places by the points made during the playout alone
#: rather than the standing (a round changes a standing too little): each seat's running
#: total, as a key where smaller is better.
ROUND_POINTS: dict[str, Callable[[Any], list[float]]] = {
    "skyjo": lambda state: list(state.totals),
    "skull-king": lambda state: [-score for score in state.scores],
}
#: Games whose cut playouts score the margin of those points rather than the places: the bot's
#: points against the others' mean, ``MARGINS[game]`` points apart mapping to 0 and 1. In Skyjo
#: the place in one round ignores how much a round costs (ending a round one is not lowest in
#: doubles one's points but changes no place).
MARGINS = {"skyjo": 40.0}
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
    margin: float | None = None
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

    def scored(self, made: Sequence[float]) -> float:
        """The reward of a cut playout from the points (keys, smaller is better) each seat
        made in it: by places, or by the bot's margin over the others' mean."""
        if self.margin is None:
            return reward_of_places(places_from_keys(made), self.seat)
        others = [points for seat, points in enumerate(made) if seat != self.seat]
        edge = sum(others) / len(others) - made[self.seat]
        return min(1.0, max(0.0, 0.5 + edge / self.margin))

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
            value = self.scored(made)
        else:
            value = 0.5
        for visited, action in path:
            visited.update(action, value)


class Ismcts(Bot):
    """The bot: one search per game, seeded from ``start.seed``."""

    name = "ismcts"

    def __init__(self, settings: Settings | None = None) -> None:
        super().__init__()
        self.settings = settings or Settings()
        self.search: Search | None = None
        self.deadline_ms: int | None = None

    def start(self, info: dict[str, Any]) -> None:
        rng = random.Random(info["seed"])
        game = get_game(info["game"])
        act = heuristic(game.name)
        self.search = Search(
            game=game,
            seat=int(info["seat"]),
            players=int(info["players"]),
            options=game.parse_options(info.get("options") or {}),
            rng=rng,
            settings=self.settings,
            prior=act,
            policy=playout_policy(act, rng),
            horizon=HORIZONS.get(game.name),
            points=ROUND_POINTS.get(game.name),
            margin=MARGINS.get(game.name),
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
