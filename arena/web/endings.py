"""The end of a round, as a step of its own in a replay.

An engine scores a round, takes the discs back or deals again inside the very step that ends
the round: the state after that step no longer shows how the round ended (Skull's skull face
up, Skyjo's last cards turned, Skull King's last trick and its points). ``ending`` rebuilds the
table *at* the end of the round from the state before the step and the step's events: the
referee's ``full()`` and each seat's ``view`` with the round's public ending applied (the discs
turned over, the cards played and turned, the points). A seat's view only gains what every
seat sees at the end of a round, so seat scenes built from it stay within what the seat knew.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.games.skull_king_cards import CARDS, hand_card
from arena.games.skyjo_actions import COLS, COLUMN_CELLS

__all__ = ["Ending", "ending"]

Data = dict[str, Any]


@dataclass(frozen=True)
class Ending:
    """The table at the end of a round: the referee's data, each seat's, and what happened."""

    full: Data
    views: dict[int, Data]
    banner: str


def _seats(seats: Sequence[int]) -> str:
    words = [f"seat {s}" for s in seats]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


# -- skull and skull-bank -------------------------------------------------------------------


def _disc_banner(game: str, end: Data, result: Data | None, before: Data, after: Data) -> str:
    """What ended the round: from the step's ``end`` event (success or failure), the round's
    ``result`` (None while a loser still has to choose the disc to lose) and the referee's
    data before the step (with the step's bid) and after it."""
    who, skull = end["seat"], end.get("skull")
    text = f"round {before['round']} over: "
    if game == "skull":
        if end["type"] == "success":
            text += f"seat {who} turned {before['bid']} discs without a skull: a success"
        elif skull == who:
            text += f"seat {who} met their own skull"
            text += " and chooses the disc to lose" if result is None else " and lost a disc"
        else:
            text += f"seat {who} met seat {skull}'s skull and loses a disc, drawn blind"
    else:
        if end["type"] == "success":
            text += f"seat {who} revealed {before['claim']} roses: the claim holds"
        else:
            text += f"seat {who} revealed seat {skull}'s skull: the claim fails"
        losers = result["losers"] if result is not None else after.get("losers", [])
        if losers:
            text += f"; {_seats(losers)} each lose a bill"
        if result is None:
            text += f" (seat {skull} chooses the bill to give up)"
    out = [] if result is None else result["eliminated"]
    if out:
        text += f"; {_seats(out if isinstance(out, list) else [who])} out"
    if after.get("winner") is not None:
        text += f". Seat {after['winner']} wins the game"
    return text


def _disc_ending(
    game: str, full: Data, views: dict[int, Data], events: Sequence[Data], after: Data
) -> Ending:
    end = next(e for e in events if e["type"] in ("success", "failure"))
    grew = len(after["results"]) > len(full["results"])
    result = after["results"][-1] if grew else None
    for event in events:
        kind, seat = event["type"], event.get("seat")
        if kind == "flip":  # skull: the top face-down disc of a stack
            full["kits"][seat]["shown"] += 1
            for view in views.values():
                view["flips"].append([seat, event["disc"]])
        elif kind == "reveal":  # skull-bank: a bill named by its position
            full["up"][seat].append(event["position"])
            for view in views.values():
                view["revealed"].append([seat, event["position"], event["disc"]])
        elif kind == "pass":
            full["passed"][seat] = True
            for view in views.values():
                view["seats"][seat]["passed"] = True
        elif kind in ("agree", "disagree"):
            full["answers"][seat] = kind
            for view in views.values():
                view["seats"][seat]["answer"] = kind
        elif kind == "bid":
            full.update(bid=event["n"], bidder=seat)
            for view in views.values():
                view.update(bid=event["n"], bidder=seat)
    if game == "skull":
        full.update(phase="challenge", challenge={"by": end["seat"]})
        for view in views.values():
            view.update(phase="challenge", challenger=end["seat"])
    else:
        full.update(phase="showdown")
        for view in views.values():
            view.update(phase="showdown")
    return Ending(full, views, _disc_banner(game, end, result, full, after))


# -- skull-king -----------------------------------------------------------------------------


def _sk_ending(
    game: str, full: Data, views: dict[int, Data], events: Sequence[Data], after: Data
) -> Ending:
    scored = next(e for e in events if e["type"] == "round")
    play = next(e for e in events if e["type"] == "play")
    trick = next(e for e in events if e["type"] == "trick")
    seat, card = play["seat"], play["card"]
    held = hand_card(CARDS[card]).name
    changes = {
        "phase": "scoring",
        "bids": list(scored["bids"]),
        "won": list(scored["won"]),
        "scores": list(scored["scores"]),
        "turn": None,
    }
    # the last trick, complete, as the round's last taken trick (with who took it)
    full["tricks"] = [*full["tricks"], [*full["trick"], [seat, card]]]
    full["trick"] = []
    full["hands"][seat].remove(held)
    full.update(changes)
    taken = {k: trick[k] for k in ("leader", "cards", "winner", "next")}
    for viewer, view in views.items():
        view["tricks"] = [*view["tricks"], taken]
        view["trick"] = []
        if viewer == seat:
            view["hand"] = [c for i, c in enumerate(view["hand"]) if i != view["hand"].index(held)]
        view.update(changes)
    taker = "nobody (the Kraken)" if trick["winner"] is None else f"seat {trick['winner']}"
    points = ", ".join(
        f"seat {s} {p:+d} (bid {b}, won {w})"
        for s, (p, b, w) in enumerate(zip(scored["points"], scored["bids"], scored["won"]))
    )
    banner = f"round {scored['round']} over: the last trick goes to {taker}; points: {points}"
    return Ending(full, views, banner)


# -- skyjo ----------------------------------------------------------------------------------


def _cell(name: str) -> tuple[int, int]:
    row, col = name.split(",")
    return int(row), int(col)


def _sj_ending(
    game: str, full: Data, views: dict[int, Data], events: Sequence[Data], after: Data
) -> Ending:
    end = next(e for e in events if e["type"] == "round-end")

    def show(seat: int, name: str, value: int) -> None:
        row, col = _cell(name)
        full["cards"][seat][row * COLS + col] = value
        full["cells"][seat][row * COLS + col] = 1
        for view in views.values():
            view["grids"][seat][row][col] = value

    def discard(*cards: int, taken: bool = False) -> None:
        pile = full["discard"][:-1] if taken else full["discard"]
        full["discard"] = [*pile, *cards]
        for view in views.values():
            view["discard_top"] = cards[-1]

    for event in events:
        kind, seat = event["type"], event.get("seat")
        if kind in ("take-discard", "swap"):
            show(seat, event["cell"], event["card"])
            discard(event["replaced"], taken=kind == "take-discard")
        elif kind == "discard-flip":
            show(seat, event["cell"], event["flipped"])
            discard(event["card"])
        elif kind == "discard":
            discard(event["card"])
        elif kind == "final-reveal":
            for name, value in zip(event["cells"], event["cards"]):
                show(seat, name, value)
        elif kind == "remove-column":
            for index in COLUMN_CELLS[event["column"]]:
                full["cells"][seat][index] = 2
            for view in views.values():
                view["removed"][seat].append({"column": event["column"], "value": event["card"]})
            discard(event["card"], event["card"], event["card"])
    changes = {"phase": "scoring", "totals": list(end["totals"]), "ender": end["ender"]}
    full.update(changes, drawn=None, current=-1)
    for view in views.values():
        view.update(changes, drawn=None, drawer=None, turn=None)
    scores = ", ".join(
        f"seat {s} {score}" + (f" (doubled: 2 × {raw})" if score != raw else "")
        for s, (raw, score) in enumerate(zip(end["raw"], end["scores"]))
    )
    how = "the turn cap" if end["capped"] else f"seat {end['ender']} turned over their last card"
    banner = f"round {end['round']} over ({how}): round points {scores}"
    return Ending(full, views, banner)


Builder = Callable[[str, Data, dict[int, Data], Sequence[Data], Data], Ending]

#: Per game: the event that ends a round, and the builder of the table at that moment.
_ENDINGS: dict[str, tuple[frozenset[str], Builder]] = {
    "skull": (frozenset({"success", "failure"}), _disc_ending),
    "skull-bank": (frozenset({"success", "failure"}), _disc_ending),
    "skull-king": (frozenset({"round"}), _sk_ending),
    "skyjo": (frozenset({"round-end"}), _sj_ending),
}


def ending(
    game: str,
    full: Data,
    views: Mapping[int, Data],
    events: Sequence[Data],
    after: Data,
) -> Ending | None:
    """The table at the end of the round that a step ended, or None if the step did not end
    a round. ``full`` and ``views`` are the referee's data and the seats' views before the
    step (copied, not changed), ``events`` the events the step logged, ``after`` the
    referee's data after it."""
    found = _ENDINGS.get(game)
    if found is None or not any(e["type"] in found[0] for e in events):
        return None
    # each view copied on its own: the views of one step share their public parts
    copies = {seat: copy.deepcopy(view) for seat, view in views.items()}
    return found[1](game, copy.deepcopy(full), copies, events, after)
