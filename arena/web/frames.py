"""Replay frames: a stored game re-played with the engine, one scene per step, for the
referee (everything) and as each seat saw it, in one pass.

Frame ``k`` of a game without round ends is the table after ``k`` joint steps, with what led
to it (the actions of the step before and their faults). A step that ends a round gets a frame
of its own first (``Presentation.round_end``): the table *at* the end of the round, with that
step's actions; the frame after it is the next round's deal. A seat's frames come from that
seat's ``view`` only, and carry only that seat's own actions and faults: another seat's action
at a simultaneous step (which disc it placed) is not that seat's to know, and the view shows its
public effects. The game draws its own tables (its presentation, found through the game:
``arena.web.games``) and words its own actions and events (``Game.action_words``,
``Game.event_detail``).

``build_replay`` gives every perspective at once (a ``Replay``); ``perspective_frames`` one of
them as plain JSON (the API); ``packed`` all of them as one compact document for the viewer,
every repeated part stored once (``arena.web.packing``).
"""

from __future__ import annotations

import base64
import json
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arena.games import get_game
from arena.referee.record import GameRecord
from arena.web.games import Presentation, ScoreSheet, presentation
from arena.web.packing import Pool
from tournaments.store.gamelogs import GameLog

__all__ = [
    "REFEREE",
    "Frame",
    "Replay",
    "ReplayMismatch",
    "build_replay",
    "log_rows",
    "logs_script",
    "packed",
    "perspective_frames",
    "replay_script",
]

REFEREE = "referee"

#: What a frame is: the deal, the table after a move, the end of a round, the end of the game.
START, MOVE, ENDING, OVER = "start", "move", "ending", "over"


@dataclass(frozen=True)
class Frame:
    """Where frame ``index`` stands: joint steps applied, kind, label (round, trick)."""

    index: int
    step: int
    kind: str
    label: str


@dataclass(frozen=True)
class Replay:
    """Every frame of a game, for the referee and each seat (scenes, actions, faults by
    perspective; the referee's details of each step), its jump marks and its score sheet, and
    the game's presentation that drew them (``table``: its legend explains the table)."""

    game: str
    players: int
    names: tuple[str, ...]
    places: tuple[int, ...]
    scores: tuple[float, ...]
    frames: tuple[Frame, ...]
    scenes: dict[str, list[dict[str, Any]]]
    actions: dict[str, list[list[list[Any]]]]
    faults: dict[str, list[list[list[Any]]]]
    details: list[list[str]]
    sheet: ScoreSheet
    table: Presentation

    @property
    def perspectives(self) -> list[str]:
        return [REFEREE, *map(str, range(self.players))]

    def marks(self) -> list[dict[str, Any]]:
        """The first frame of each round, trick and round end (the "jump to" list)."""
        marks: list[dict[str, Any]] = []
        for frame in self.frames:
            if not marks or marks[-1]["label"] != frame.label:
                marks.append({"label": frame.label, "frame": frame.index})
        return marks


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _game_over(record: GameRecord, names: Sequence[str]) -> str:
    """The last step's banner: each seat's final place, best first, a seat that forfeited
    said so (it is placed behind every seat that did not, whatever its score)."""
    order = sorted(range(record.players), key=lambda s: (record.places[s], s))
    forfeits = set(record.forfeits)
    return "game over: " + ", ".join(
        f"{_ordinal(record.places[s])} seat {s} ({names[s]}"
        + (", forfeited" if s in forfeits else "")
        + ")"
        for s in order
    )


class ReplayMismatch(ValueError):
    """A stored game that no longer replays to its stored result."""


def build_replay(record: GameRecord, names: Sequence[str]) -> Replay:
    """Every frame of ``record`` for every perspective (one pass of the engine). Raises
    ReplayMismatch if the game does not end with its stored places (another version of
    the rules)."""
    game, players = record.game, record.players
    rules = get_game(game)
    table = presentation(rules)
    state = rules.new(players, record.seed, record.options)
    seats = range(players)
    acts: dict[int, list[list[Any]]] = {}
    for action in record.actions:
        words = rules.action_words(action.action)
        acts.setdefault(action.step, []).append(
            [action.seat, action.action, action.by.value, words]
        )
    fault_rows: dict[int, list[list[Any]]] = {}
    for fault in record.faults:
        fault_rows.setdefault(fault.step, []).append(
            [fault.seat, fault.kind.value, fault.detail[:300]]
        )
    keys = [REFEREE, *map(str, seats)]
    scenes: dict[str, list[dict[str, Any]]] = {key: [] for key in keys}
    actions: dict[str, list[list[list[Any]]]] = {key: [] for key in keys}
    faults: dict[str, list[list[list[Any]]]] = {key: [] for key in keys}
    frames: list[Frame] = []
    details: list[list[str]] = []
    ends: list[int] = []

    def add(
        step: int,
        kind: str,
        label: str,
        full: dict[str, Any],
        views: dict[int, dict[str, Any]],
        acting: frozenset[int],
        banner: str | None,
        done: list[list[Any]],
        faulted: list[list[Any]],
        said: list[str],
    ) -> None:
        frames.append(Frame(len(frames), step, kind, label))
        details.append(said)
        referee = table.full_scene(full, names, acting)
        referee["banner"] = banner
        scenes[REFEREE].append(referee)
        actions[REFEREE].append(done)
        faults[REFEREE].append(faulted)
        for seat in seats:
            scene = table.seat_scene(views[seat], names, acting)
            scene["banner"] = banner
            scenes[str(seat)].append(scene)
            actions[str(seat)].append([a for a in done if a[0] == seat])
            faults[str(seat)].append([f for f in faulted if f[0] == seat])

    full = state.full()
    views = {seat: state.view(seat) for seat in seats}
    add(0, START, table.label(full), full, views, frozenset(state.to_act()), None, [], [], [])
    for k, joint in enumerate(record.joint_actions()):
        logged = len(state.events)
        state.apply(dict(joint))
        events = state.events[logged:]
        after = state.full()
        done, faulted = acts.get(k, []), fault_rows.get(k, [])
        said = [words for words in map(rules.event_detail, events) if words]
        end = table.round_end(full, views, events, after)
        if end is not None:
            ends.append(len(frames))
            round_over = f"{table.round_label(full)} ends"
            add(
                k + 1,
                ENDING,
                round_over,
                end.full,
                end.views,
                frozenset(),
                end.banner,
                done,
                faulted,
                said,
            )
            done, faulted, said = [], [], []
        full = after
        views = {seat: state.view(seat) for seat in seats}
        over = state.is_over()
        add(
            k + 1,
            OVER if over else MOVE,
            "game over" if over else table.label(full),
            full,
            views,
            frozenset(state.to_act()),
            _game_over(record, names) if over else None,
            done,
            faulted,
            said,
        )
    if tuple(state.outcome().places) != tuple(record.game_places):
        raise ReplayMismatch("the game does not replay to its stored result")
    sheet = table.score_sheet(players, names, state.events)
    sheet.frames.extend(ends[i] if i < len(ends) else None for i in range(len(sheet.rows)))
    return Replay(
        game=game,
        players=players,
        names=tuple(names),
        places=tuple(record.places),
        scores=tuple(record.scores),
        frames=tuple(frames),
        scenes=scenes,
        actions=actions,
        faults=faults,
        details=details,
        sheet=sheet,
        table=table,
    )


def log_rows(replay: Replay, logs: GameLog) -> dict[int, list[list[Any]]]:
    """``logs``' lines by the frame they are shown at, as ``[seat, text, shared]`` (raw text:
    shown through ``textContent``): a line written while its bot's turn at step ``s`` was
    open goes with the first frame after that step (where its action shows), a line written
    before the bot's first turn with the deal."""
    first_after: dict[int, int] = {}
    for frame in replay.frames:
        first_after.setdefault(frame.step, frame.index)
    rows: dict[int, list[list[Any]]] = {}
    last = len(replay.frames) - 1
    for line in logs.lines:
        index = 0 if line.step is None else first_after.get(line.step + 1, last)
        rows.setdefault(index, []).append([line.seat, line.text[:500], line.shared])
    return rows


def logs_script(replay: Replay, logs: GameLog) -> str:
    """The bots' log lines of a game for the replay viewer, as a script calling
    ``arenaReplayLogs`` (beside ``replay_script``'s data: lines may be shown later than the
    replay, when their bot's log is no longer withheld): ``withheld`` says why some are not
    there, ``frames`` maps a frame to its lines."""
    data = {
        "withheld": logs.withheld,
        "frames": {str(k): rows for k, rows in log_rows(replay, logs).items()},
    }
    return f"arenaReplayLogs({json.dumps(data, separators=(',', ':'))});\n"


def perspective_frames(
    replay: Replay, perspective: str | int, logs: GameLog | None = None
) -> dict[str, Any]:
    """Every frame of ``replay`` for ``perspective`` (``REFEREE`` or a seat number), with
    the jump marks (first frame of each round, each trick in Skull King, each round end) and,
    with ``logs``, what the bots wrote at each frame (``log_rows``; a seat sees its own)."""
    key = str(perspective)
    if key not in replay.scenes:
        raise ValueError(f"no perspective {perspective!r} (referee or a seat 0..)")
    written = log_rows(replay, logs) if logs is not None else {}
    out = []
    for frame in replay.frames:
        entry = {
            "step": frame.step,
            "kind": frame.kind,
            "label": frame.label,
            "scene": replay.scenes[key][frame.index],
            "actions": replay.actions[key][frame.index],
            "faults": replay.faults[key][frame.index],
            "over": frame.kind == OVER,
        }
        if key == REFEREE:
            entry["details"] = replay.details[frame.index]
        if logs is not None:
            entry["logs"] = [
                row for row in written.get(frame.index, []) if key in (REFEREE, str(row[0]))
            ]
        out.append(entry)
    return {
        "game": replay.game,
        "players": replay.players,
        "names": list(replay.names),
        "perspective": REFEREE if key == REFEREE else int(key),
        "frames": out,
        "marks": replay.marks(),
        "places": list(replay.places),
        "scores": list(replay.scores),
        "logs_withheld": None if logs is None else logs.withheld,
    }


#: The packed form of a scene, a seat, a zone and an item: a list of their fields in this
#: order (``replay.js`` reads them by position).
SCENE_FIELDS = ("caption", "info", "banner", "seats", "center")
SEAT_FIELDS = ("seat", "name", "active", "notes", "zones")
ZONE_FIELDS = ("label", "kind", "cols", "items")
ITEM_FIELDS = ("t", "c", "h", "s")


def packed(replay: Replay) -> dict[str, Any]:
    """Every perspective of ``replay`` in one document, each repeated part stored once: the
    viewer's data (``replay.js`` decodes it). ``views[P][i]`` is the pool entry of frame ``i``
    as perspective ``P`` sees it: ``[scene, actions, faults]`` (and the referee's details),
    a scene packed as a list of its ``SCENE_FIELDS``, its seats, zones and items likewise."""
    pool = Pool()
    items: dict[int, tuple[dict[str, Any], int]] = {}  # items are shared: packed once each

    def item(it: dict[str, Any]) -> int:
        found = items.get(id(it))
        if found is None or found[0] is not it:
            found = items[id(it)] = (it, pool.add([it.get(name) for name in ITEM_FIELDS]))
        return found[1]

    def zone(z: dict[str, Any]) -> int:
        head = [pool.add(z[name]) for name in ZONE_FIELDS[:-1]]  # then its items
        return pool.node([*head, pool.node([item(it) for it in z["items"]])])

    lists: dict[tuple[Any, ...], int] = {}  # info pairs and notes: few, repeated often

    def strings(pairs: list[Any]) -> int:
        key = tuple(tuple(p) if isinstance(p, list) else p for p in pairs)
        found = lists.get(key)
        if found is None:
            found = lists[key] = pool.add(pairs)
        return found

    def seat(box: dict[str, Any]) -> int:  # SEAT_FIELDS
        head = [pool.add(box["seat"]), pool.add(box["name"]), pool.add(box["active"])]
        notes = strings(box["notes"])
        return pool.node([*head, notes, pool.node([zone(z) for z in box["zones"]])])

    def scene(it: dict[str, Any]) -> int:  # SCENE_FIELDS
        head = [pool.add(it["caption"]), strings(it["info"]), pool.add(it["banner"])]
        seats = pool.node([seat(box) for box in it["seats"]])
        return pool.node([*head, seats, pool.node([zone(z) for z in it["center"]])])

    views: dict[str, list[int]] = {}
    for key in replay.perspectives:
        refs = []
        for frame in replay.frames:
            node = [
                scene(replay.scenes[key][frame.index]),
                pool.add(replay.actions[key][frame.index]),
                pool.add(replay.faults[key][frame.index]),
            ]
            if key == REFEREE:
                node.append(pool.add(replay.details[frame.index]))
            refs.append(pool.node(node))
        views[key] = refs
    return {
        "game": replay.game,
        "players": replay.players,
        "names": list(replay.names),
        "places": list(replay.places),
        "scores": list(replay.scores),
        "frames": [[f.step, f.kind, f.label] for f in replay.frames],
        "marks": replay.marks(),
        "pool": pool.entries,
        "views": views,
    }


def replay_script(data: dict[str, Any]) -> str:
    """A game's packed replay as a script calling ``arenaReplay`` (loads from a server and
    from exported files alike): its JSON compressed with zlib, in base64 (the viewer inflates
    it with the browser's ``DecompressionStream``), so the script holds nothing but a call and
    base64 letters."""
    text = json.dumps(data, separators=(",", ":")).encode("ascii")
    deflated = base64.b64encode(zlib.compress(text, 6)).decode("ascii")
    return f'arenaReplay({{"deflated":"{deflated}"}});\n'
