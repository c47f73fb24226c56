"""Values describing a played game: faults, actions, the game record and how a game ended.

A GameRecord holds everything needed to store, rate and replay a game: the seed, the seating,
every action with who chose it (bot or referee) and how long the bot thought, every fault with
its kind, forfeits, and the outcome (places already adjusted for forfeits). ``Played`` is the
one value a finished game travels back in, from the referee's driver through the workers and
the cluster to the store: its record, or the arena error that kept it from being played.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from arena.games.base import places_from_keys


class FaultKind(enum.StrEnum):
    """Why a bot's turn did not produce a legal action in time."""

    TIMEOUT = "timeout"  # no answer before the deadline
    ILLEGAL = "illegal"  # an action that was not offered
    MALFORMED = "malformed"  # not msgpack, not a map, missing/bad fields, too large
    WRONG_ID = "wrong-id"  # a request id never issued, or another game's id
    CRASH = "crash"  # the bot process died or could not be reached
    PROTOCOL = "protocol"  # a message type that is not allowed at this point
    REFUSED = "refused"  # the arena refused its hello (protocol version, token): it never played
    RESIGNED = "resigned"  # a person left the game (Ctrl-C, end of input): forfeits at once

    def __str__(self) -> str:
        return self.value


class Chooser(enum.StrEnum):
    """Who chose an action: the seat's bot, a person at the terminal (``arena play --human``),
    or the referee's default policy."""

    BOT = "bot"
    PERSON = "person"
    REFEREE = "referee"

    def __str__(self) -> str:
        return self.value


class ActionRecord(NamedTuple):
    """One seat's part of one step: the action, who chose it, and the bot's think time.

    An immutable NamedTuple rather than a frozen dataclass: one is made per decision, on the
    referee's hot path, and a tuple is several times cheaper to build.
    """

    step: int
    seat: int
    action: str
    by: Chooser = Chooser.BOT
    think_us: int = 0

    @classmethod
    def from_list(cls, row: list[Any]) -> ActionRecord:
        return cls(step=row[0], seat=row[1], action=row[2], by=Chooser(row[3]), think_us=row[4])


@dataclass(frozen=True, kw_only=True)
class Fault:
    """A fault of one seat at one step."""

    seat: int
    step: int
    kind: FaultKind
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "step": self.step,
            "kind": self.kind.value,
            "detail": self.detail,
        }


@dataclass(frozen=True, kw_only=True)
class GameRecord:
    """The record of one finished game.

    ``places`` are final places (1 = best, ties share) after forfeits: a forfeiting seat is
    placed behind every seat that did not forfeit. ``game_places`` are the places the rules
    gave. ``bots`` names the bot at each seat.
    """

    game: str
    options: dict[str, Any]
    seed: int
    bots: tuple[str, ...]
    actions: tuple[ActionRecord, ...]
    faults: tuple[Fault, ...]
    forfeits: tuple[int, ...]
    scores: tuple[float, ...]
    game_places: tuple[int, ...]
    places: tuple[int, ...]
    think_us: tuple[int, ...]
    decisions: tuple[int, ...]
    wall_ms: float
    events: tuple[dict[str, Any], ...] = field(default=(), repr=False)

    @property
    def players(self) -> int:
        return len(self.bots)

    def joint_actions(self) -> list[dict[int, str]]:
        """The actions grouped by step, as ``State.apply`` takes them."""
        steps: list[dict[int, str]] = []
        for rec in self.actions:
            while len(steps) <= rec.step:
                steps.append({})
            steps[rec.step][rec.seat] = rec.action
        return steps

    def to_dict(self, *, events: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {
            "game": self.game,
            "options": self.options,
            "seed": self.seed,
            "bots": list(self.bots),
            "actions": [
                {
                    "step": a.step,
                    "seat": a.seat,
                    "action": a.action,
                    "by": a.by.value,
                    "think_us": a.think_us,
                }
                for a in self.actions
            ],
            "faults": [f.to_dict() for f in self.faults],
            "forfeits": list(self.forfeits),
            "scores": list(self.scores),
            "game_places": list(self.game_places),
            "places": list(self.places),
            "think_us": list(self.think_us),
            "decisions": list(self.decisions),
            "wall_ms": self.wall_ms,
        }
        if events:
            data["events"] = list(self.events)
        return data


def final_places(game_places: tuple[int, ...], forfeits: tuple[int, ...]) -> tuple[int, ...]:
    """Places after forfeits: non-forfeiting seats keep their order; forfeiters come last.

    Forfeiting seats are ordered among themselves by their game places (ties share).
    """
    keys = [(1 if seat in forfeits else 0, game_places[seat]) for seat in range(len(game_places))]
    return places_from_keys(keys)


@dataclass(frozen=True)
class Played:
    """A game the referee's driver finished: its record, or the text of the arena error (an
    arena bug, not a seat's fault) that stopped it; a tournament's runner adds the token of the
    process at each seat (``tournaments.run.playing.ProcessRecord``). Plain values: it crosses
    process queues and the Dask cluster as it is."""

    game_id: int
    record: GameRecord | None
    error: str | None = None
    processes: tuple[str | None, ...] = ()  # the process at each seat, by token (runners)
