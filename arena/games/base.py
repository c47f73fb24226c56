"""The game interface every rules engine implements: metadata, options, states, outcomes.

A game module is pure: it knows nothing of sockets, processes or databases. Chance comes only
from the state's own ``random.Random(seed)``, so a seed and the list of joint actions replay a
game exactly. ``State.view(seat)`` is the only place that reads hidden information for a seat.
"""

from __future__ import annotations

import copy
import functools
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from arena.errors import (
    GameError,
    GameOver,
    IllegalAction,
    NotYourTurn,
    OptionError,
    PlayerCountError,
)

S = TypeVar("S", bound="State")
T = TypeVar("T")

#: ``to_act`` of a step in which one seat acts: ``ALONE[seat]`` (one tuple per seat, made once;
#: tables of up to 16 seats, twice the most any game here allows).
ALONE = tuple((seat,) for seat in range(16))


@dataclass(frozen=True)
class OptionSpec:
    """One game option: its default, its allowed values and a help line.

    ``kind`` is ``bool``, ``int`` or ``str``; ``choices`` restricts a ``str`` option;
    ``minimum``/``maximum`` bound an ``int`` option.
    """

    default: Any
    help: str
    kind: type = str
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None

    def parse(self, name: str, raw: Any) -> Any:
        """Return the typed value of ``raw`` (a string from the CLI or a typed value)."""
        value: Any
        if self.kind is bool:
            if isinstance(raw, bool):
                value = raw
            elif isinstance(raw, str) and raw.lower() in ("1", "true", "yes", "on"):
                value = True
            elif isinstance(raw, str) and raw.lower() in ("0", "false", "no", "off"):
                value = False
            else:
                raise OptionError(f"option {name!r} takes true or false, not {raw!r}")
        elif self.kind is int:
            try:
                if isinstance(raw, bool):
                    raise ValueError
                value = int(raw)
            except (TypeError, ValueError):
                raise OptionError(f"option {name!r} takes a whole number, not {raw!r}") from None
            if self.minimum is not None and value < self.minimum:
                raise OptionError(f"option {name!r} must be at least {self.minimum}")
            if self.maximum is not None and value > self.maximum:
                raise OptionError(f"option {name!r} must be at most {self.maximum}")
        else:
            value = str(raw)
            if self.choices and value not in self.choices:
                raise OptionError(
                    f"option {name!r} takes one of {', '.join(self.choices)}, not {raw!r}"
                )
        return value


def options_text(options: Mapping[str, Any]) -> str:
    """Game options as they are given (``--option KEY=VALUE``): ``advanced=false, rounds=10``,
    sorted by name; ``defaults`` for none."""

    def value(v: Any) -> str:
        return ("true" if v else "false") if isinstance(v, bool) else str(v)

    return ", ".join(f"{k}={value(v)}" for k, v in sorted(options.items())) or "defaults"


@dataclass(frozen=True)
class Outcome:
    """The result of a finished game: a score per seat and a place per seat (1 = best).

    Equal players share a place (standard competition ranking: 1, 1, 3).
    """

    scores: tuple[float, ...]
    places: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"scores": list(self.scores), "places": list(self.places)}


def places_from_keys(keys: Sequence[Any]) -> tuple[int, ...]:
    """Places from per-seat sort keys where a *smaller* key is better; equal keys share a place."""
    order = sorted(range(len(keys)), key=lambda s: keys[s])
    places = [0] * len(keys)
    for rank, seat in enumerate(order):
        if rank > 0 and keys[seat] == keys[order[rank - 1]]:
            places[seat] = places[order[rank - 1]]
        else:
            places[seat] = rank + 1
    return tuple(places)


def per_step(method: Callable[[S], T]) -> Callable[[S], T]:
    """Decorator for a fact a game derives from the current step (a method without arguments,
    e.g. the part of a view all seats share): computed on first use after each ``apply`` and
    kept in the step memo until the next ``apply``. Callers treat the value as read-only.

    A fact describes the step between two ``apply`` calls, for its readers (views, legal
    lists, ``apply``'s checks); rule steps (``_apply``) change the state and must not read it."""
    name = method.__name__

    @functools.wraps(method)
    def fact(self: S) -> T:
        memo = self._step_memo
        if memo is None:
            memo = self._step_memo = {}
        value = memo.get(name, memo)  # (the memo itself stands for "not computed yet")
        if value is memo:
            value = memo[name] = method(self)
        return value  # type: ignore[no-any-return]

    return fact


class State(ABC):
    """One game in progress. Mutable; ``clone()`` gives an independent copy.

    Subclasses keep ``self.players``, ``self.seed``, ``self.options``, ``self.rng`` (the only
    source of chance) and ``self.events`` (the full-information event log, chance outcomes
    included; each event a msgpack-able dict with a ``"type"`` key).
    """

    players: int
    seed: int
    options: dict[str, Any]
    rng: random.Random
    events: list[dict[str, Any]]
    steps: int
    #: Whether ``log`` keeps events: the copies a search makes (``resample``, a state rebuilt
    #: from a view) set it to False, as nobody reads their history.
    recording: bool = True
    #: The step memo (see ``step_memo``); None until something is derived from this step.
    _step_memo: dict[Any, Any] | None = None

    @abstractmethod
    def to_act(self) -> tuple[int, ...]:
        """Seats that must act now; several seats make a simultaneous step. Empty when over."""

    @abstractmethod
    def _legal(self, seat: int) -> list[str]:
        """Canonical action strings legal for ``seat`` now, in a fixed deterministic order
        (empty when ``seat`` is not to act)."""

    def legal(self, seat: int) -> list[str]:
        """``_legal(seat)``, computed once per step: callers treat the list as read-only.

        The lists are kept in the step memo (see ``per_step``) under their seat."""
        memo = self._step_memo
        if memo is None:
            memo = self._step_memo = {}
        actions = memo.get(seat)
        if actions is None:
            actions = memo[seat] = self._legal(seat)
        return actions

    def step_memo(self) -> dict[Any, Any]:
        """What was derived from the current step: the legal lists by seat and the ``per_step``
        facts by name. ``apply`` drops it; copies (``clone``, ``resample``) start without it."""
        memo = self._step_memo
        if memo is None:
            memo = self._step_memo = {}
        return memo

    def __getstate__(self) -> dict[str, Any]:
        """What ``copy``, ``deepcopy`` and ``pickle`` take: everything but the step memo."""
        state = self.__dict__.copy()
        state.pop("_step_memo", None)
        return state

    @abstractmethod
    def _apply(self, actions: Mapping[int, str]) -> None:
        """Apply already-checked joint actions (one per acting seat)."""

    @abstractmethod
    def view(self, seat: int) -> dict[str, Any]:
        """Everything ``seat`` may know, as a msgpack-able map (string keys).

        Callers treat a view as read-only."""

    @abstractmethod
    def is_over(self) -> bool:
        """True once the game has ended."""

    @abstractmethod
    def outcome(self) -> Outcome:
        """Scores and places; only valid once ``is_over()``."""

    @abstractmethod
    def full(self) -> dict[str, Any]:
        """The whole state with nothing hidden (for replays, debugging and tests)."""

    @abstractmethod
    def resample(self, seat: int, rng: random.Random) -> State:
        """A copy that ``seat`` cannot tell apart from this state.

        Everything ``seat`` cannot know (other hands, face-down cards, undealt cards, which
        disc was lost, ...) is redrawn at random, consistently with the public history and with
        ``seat``'s own information. Used by the information test and by search-based bots.
        The bundled games' copies do not record events (see ``recording``).
        """

    @classmethod
    def bare(cls: type[S], players: int, seed: int, options: dict[str, Any]) -> S:
        """A state of this class with only the fields every game keeps: ``players``,
        ``options``, ``seed`` and a generator seeded from it, no events, no steps, not recording
        (see ``recording``). ``Game.from_view`` fills the rest in with ``load_view``."""
        state = cls.__new__(cls)
        state.players, state.seed, state.options = players, seed, options
        state.rng = random.Random(seed)
        state.events, state.steps, state.recording = [], 0, False
        return state

    def load_view(self, view: Mapping[str, Any], seat: int, rng: random.Random) -> None:
        """Fill a ``bare`` state in from ``seat``'s ``view``: everything the view shows as
        shown, everything it hides drawn by ``rng`` consistently with it (see
        ``Game.from_view``). Raises KeyError, TypeError, ValueError, IndexError or
        AttributeError when ``view`` is not such a view."""
        raise NotImplementedError(f"{type(self).__name__} cannot rebuild a state from a view")

    def apply(self, actions: Mapping[int, str]) -> None:
        """Apply one joint action ``{seat: action}`` for exactly the seats in ``to_act()``.

        Raises NotYourTurn if the seats do not match, IllegalAction (naming the first illegal
        seat in ``to_act()`` order) if an action is not legal, GameOver once the game is over;
        the state is then unchanged.
        """
        acting = self.to_act()
        memo = self._step_memo
        if not acting or memo is None or len(actions) != len(acting):
            self._check(actions, acting)
        else:
            for seat in acting:  # the usual case: each action is in the legal list asked for
                legal = memo.get(seat)
                if legal is None or actions.get(seat) not in legal:
                    self._check(actions, acting)
                    break
        self._apply(actions)
        self._step_memo = None
        self.steps += 1

    def _check(self, actions: Mapping[int, str], acting: tuple[int, ...]) -> None:
        """Raise the error ``apply`` names for ``actions`` if it is not a legal joint action."""
        if not acting:  # nobody acts exactly when the game is over
            raise GameOver("the game is over")
        if actions.keys() != set(acting):
            raise NotYourTurn(f"expected actions for seats {sorted(acting)}, got {sorted(actions)}")
        for seat in acting:
            action = actions[seat]
            if action not in self.legal(seat):
                raise IllegalAction(f"seat {seat}: {action!r} is not legal now", seat=seat)

    def clone(self) -> State:
        """An independent deep copy (its generator continues identically). Logged events are
        never changed, so the copy's event list holds the same event maps."""
        return copy.deepcopy(self, {id(self.events): list(self.events)})

    def log(self, event: dict[str, Any]) -> None:
        """Append a full-information event, a map whose first key is ``"type"`` (unless the
        state does not record, see ``recording``)."""
        if self.recording:
            self.events.append(event)


def plain_event(event: Mapping[str, Any]) -> str:
    """An event as its type and its fields (``key=value``): the line of an event a game has no
    words for."""
    rest = " ".join(f"{k}={v}" for k, v in event.items() if k != "type")
    return f"{event['type']} {rest}".rstrip()


class Game(ABC):
    """A game's metadata and factory. One instance is registered per game name.

    ``state_class`` is the class of the game's states: ``_new`` builds one with
    ``state_class(players, seed, options)`` unless a game overrides it, and ``from_view``
    rebuilds one with its ``bare`` and ``load_view``. ``lower_score_wins``: a smaller score is
    the better one (Skyjo's points), so that tables of scores sort the best first."""

    name: ClassVar[str]
    title: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    options: ClassVar[Mapping[str, OptionSpec]] = {}
    state_class: ClassVar[type[State] | None] = None
    lower_score_wins: ClassVar[bool] = False

    @property
    def default_options(self) -> dict[str, Any]:
        return {name: spec.default for name, spec in self.options.items()}

    def parse_options(self, raw: Mapping[str, Any] | None) -> dict[str, Any]:
        """Validated, typed options with defaults filled in. Raises OptionError."""
        result = self.default_options
        for name, value in (raw or {}).items():
            spec = self.options.get(name)
            if spec is None:
                known = ", ".join(sorted(self.options)) or "none"
                raise OptionError(f"game {self.name!r} has no option {name!r} (options: {known})")
            result[name] = spec.parse(name, value)
        return result

    def check_players(self, players: int) -> None:
        if not self.min_players <= players <= self.max_players:
            raise PlayerCountError(
                f"{self.name} takes {self.min_players}-{self.max_players} players, not {players}"
            )

    def new(self, players: int, seed: int, options: Mapping[str, Any] | None = None) -> State:
        """A new game for ``players`` seats from ``seed``. Raises PlayerCountError/OptionError."""
        self.check_players(players)
        return self._new(players, int(seed), self.parse_options(options))

    def _new(self, players: int, seed: int, options: dict[str, Any]) -> State:
        """Build the initial state (players and options already checked)."""
        if self.state_class is None:
            raise NotImplementedError(f"{self.name} has no state class")
        return self.state_class(players, seed, options)  # type: ignore[call-arg]

    @abstractmethod
    def max_steps(self, players: int, options: Mapping[str, Any]) -> int:
        """An upper bound on the number of ``apply`` calls in any game (termination bound)."""

    def from_view(
        self,
        view: Mapping[str, Any],
        seat: int,
        players: int,
        options: Mapping[str, Any],
        rng: random.Random,
    ) -> State:
        """A state that ``seat``, whose view this is, cannot tell apart from the true one:
        everything the view shows is as shown, everything it hides is drawn at random,
        consistently with it (search bots determinize with this). The view may come as sent
        (through msgpack) or in process.

        The state is ``state_class.bare`` with a seed drawn from ``rng``, filled in by its
        ``load_view``; it does not record events, and its ``steps`` count from the rebuild.
        Raises GameError if ``view`` is not a view of ``seat`` in a game of ``players`` with
        ``options``; NotImplementedError if the game cannot rebuild a state."""
        self.check_players(players)
        parsed = self.parse_options(options)
        if self.state_class is None:
            raise NotImplementedError(f"{self.name} cannot rebuild a state from a view")
        try:
            if (view["seat"], view["players"]) != (seat, players):
                raise ValueError(f"it is seat {view['seat']}'s of {view['players']} players")
            state = self.state_class.bare(players, rng.getrandbits(64), parsed)
            state.load_view(view, seat, rng)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as error:
            raise GameError(f"not a {self.name} view of seat {seat}: {error}") from None
        return state

    # -- the game's words: each game words its own actions and events (OpenSpiel's
    # ``action_to_string``), in a module of its own beside its rules whose three functions
    # the game takes as these methods (``action_words = staticmethod(skyjo_words.action_words)``).

    #: The rules in short, for a person at the table (``arena play --human``: ``?``); the
    #: whole rules are the game's page under docs/games/.
    rules_summary: ClassVar[str] = ""

    def action_words(self, action: str) -> str:
        """An action in plain words for a move list ("bids 3", "plays the Kraken", "puts the
        drawn card into row 1, column 2"): what the seat that chose it did, read from the
        action alone. The action itself where the game has no words for it."""
        return action

    def format_event(self, event: Mapping[str, Any]) -> str:
        """One readable line for an event of the full log (``arena play``, ``arena replay``):
        every field it holds. Its type and fields where the game has no words for it."""
        return plain_event(event)

    def event_detail(self, event: Mapping[str, Any]) -> str | None:
        """What an event of the full log tells beyond the actions that led to it (the disc
        turned over, the card drawn, who took the trick), in plain words for the referee's
        move list; None for an event the actions' words already tell (and where the game has
        no words for it)."""
        return None
