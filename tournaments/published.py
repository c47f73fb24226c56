"""What the arena publishes about its results: the data behind the CLI's ``--json`` output and
the web app's JSON endpoints (``arena serve``), one function per view, so both always agree.

Each function reads through a ``Store`` (a read-only one works: none of them writes) and
returns JSON-ready data (``run_status``: what a tournament's page says of its run, from its
status and its last run's heartbeat). Nothing here holds a secret: tournament keys stay in the
key file, and bots' command lines are not part of any of these views.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from arena.referee.record import GameRecord
from arena.referee.replay import SeatTurn, seat_story, step_events
from arena.referee.replay import replay as replay_game
from tournaments import reports, rounds
from tournaments.catalogue.lookup import bundled_bots, bundled_description
from tournaments.errors import NotFound, TournamentError
from tournaments.matches.match import match_summary, verdict_text
from tournaments.matches.sprt import elo_text
from tournaments.plans.schedule import TournamentKind
from tournaments.ratings import Crosstable
from tournaments.rounds import FormatView
from tournaments.store.bot_records import bot_log_tails, bot_record
from tournaments.store.facts import Store
from tournaments.store.gamelogs import game_log
from tournaments.store.heartbeat import RunState, run_state
from tournaments.store.ladders import LadderStore
from tournaments.store.values import TournamentInfo, TournamentRatings, TournamentStatus

__all__ = [
    "bot_data",
    "crosstable_data",
    "fault_summary",
    "format_view",
    "half_points",
    "heading",
    "match_view",
    "RunStatus",
    "run_command",
    "ranking_rows",
    "rankings_data",
    "replay_data",
    "replay_steps",
    "replayed",
    "run_status",
    "seat_data",
    "seat_turns",
    "tournament_data",
    "tournaments_data",
]


def tournaments_data(store: Store) -> list[dict[str, Any]]:
    """``arena tournament list --json``."""
    return reports.tournaments_json(store.list_tournaments())


def fault_summary(store: Store, tid: int) -> list[dict[str, Any]]:
    """Faults of tournament ``tid`` counted by entrant and kind."""
    return [
        {"entrant": f.entrant, "kind": f.kind, "count": f.count}
        for f in store.results.faults(tid=tid)
    ]


def format_view(store: Store, tid: int) -> FormatView | None:
    """What tournament ``tid``'s format shows besides its rankings: a balanced plan's balance,
    a Swiss tournament's standings after each round, a knockout's bracket
    (``tournaments.rounds.format_view``; None for the other kinds)."""
    return rounds.format_view(store, store.tournament(tid))


def bot_data(store: Store, name: str) -> dict[str, Any]:
    """A bot's page (the web's ``/bots/NAME`` and its JSON twin): its public record
    (``tournaments.store.bot_records``), a bundled bot's description, and the end of its log
    files unless they are withheld. Raises NotFound for a bot neither registered, bundled nor
    entered in a tournament."""
    record = bot_record(store, name, bundled=tuple(bundled_bots()))
    record["description"] = bundled_description(name) if record["kind"] == "bundled" else None
    record["log"] = bot_log_tails(store, name, record)
    return record


def ranking_rows(store: Store, tid: int) -> list[reports.RankingRow]:
    """The rankings of tournament ``tid`` from the ratings its stored games give now."""
    return reports.rankings(store.results.standings(tid), store.results.current_ratings(tid))


def tournament_data(
    store: Store,
    tid: int,
    *,
    info: TournamentInfo | None = None,
    rows: Sequence[reports.RankingRow] | None = None,
) -> dict[str, Any]:
    """``arena tournament show ID --json``: spec, progress, rankings and faults (``info``
    and ``rows`` may be passed when already read)."""
    info = info or store.tournament(tid)
    rows = ranking_rows(store, tid) if rows is None else rows
    data = reports.tournament_json(info, rows)
    data["faults"] = fault_summary(store, tid)
    view = rounds.format_view(store, info)
    if view is not None:
        data["format"] = view.to_dict()
    data["ladder"] = heading(store, info)["ladder"]
    match = match_summary(store, tid)
    if match is not None:
        data["match"] = match
    return data


def rankings_data(
    store: Store,
    tid: int,
    *,
    rated: TournamentRatings | None = None,
    rows: Sequence[reports.RankingRow] | None = None,
) -> dict[str, Any]:
    """``arena rankings ID --json``: the rankings and the likelihood-of-superiority matrix
    (``rated`` and ``rows`` may be passed when already computed)."""
    rated = rated or store.results.compute_ratings(tid)
    rows = ranking_rows(store, tid) if rows is None else rows
    return {"tournament": tid, "rankings": reports.rankings_json(rows), "los": rated.batch.los}


def crosstable_data(
    store: Store, tid: int, *, crosstable: Crosstable | None = None
) -> dict[str, Any]:
    """``arena crosstable ID --json``."""
    table = crosstable or store.results.crosstable(tid)
    return {"tournament": tid, **reports.crosstable_json(table)}


def replayed(store: Store, game_id: int) -> GameRecord:
    """Stored game ``game_id`` re-played from its deal seed and actions, with its events.
    Raises NotFound for an unknown or unplayed game, or one that no longer replays to its
    stored result."""
    stored = store.game(game_id)
    if stored.record is None:
        raise NotFound(f"game {game_id} has not been played yet")
    record = stored.record
    state = replay_game(
        record.game, record.players, record.seed, record.options, record.joint_actions()
    )
    if tuple(state.outcome().places) != tuple(record.game_places):
        raise NotFound(
            f"game {game_id} does not replay to its stored result "
            "(was it played with another version of the rules?)"
        )
    return replace(record, events=tuple(state.events))


def replay_data(store: Store, game_id: int) -> dict[str, Any]:
    """``arena replay GAME_ID --json``: every action and every chance outcome, the bot
    version each seat's entrant played with (a tournament runs the versions it was planned
    with: ``tournaments.catalogue.lookup``), and what each seat's bot wrote during the game with the
    step it was written at (``logs``: withheld as bot logs are, ``tournaments.store.gamelogs``)."""
    full = replayed(store, game_id)
    stored = store.game(game_id)
    versions = {e.name: e.version for e in store.tournament(stored.tournament_id).entrants}
    data = full.to_dict()
    data.update(
        id=game_id,
        tournament_id=stored.tournament_id,
        seating=list(stored.planned.seating),
        versions=[versions.get(label) for label in stored.planned.seating],
        logs=game_log(store, game_id).to_dict(),
    )
    return data


def replay_steps(record: GameRecord) -> tuple[list[dict[str, Any]], list[list[dict[str, Any]]]]:
    """A played game's events as the referee saw them: the deal's, then each step's (the text
    log of ``arena play`` and ``arena replay``)."""
    return step_events(
        record.game, record.players, record.seed, record.options, record.joint_actions()
    )


def seat_turns(record: GameRecord, seat: int) -> list[SeatTurn]:
    """The game as ``seat`` saw it, turn by turn: its views, offers and choices; never the
    deal seed, the events or other seats' views."""
    return list(
        seat_story(
            record.game, record.players, record.seed, record.options, record.joint_actions(), seat
        )
    )


def seat_data(record: GameRecord, seat: int) -> dict[str, Any]:
    """The game as ``seat`` saw it (``arena replay --seat N --json``, ``arena play --seat N
    --json``): its views, offers and choices, and the result; never the deal seed, the events
    or other seats' views."""
    if not 0 <= seat < record.players:
        raise TournamentError(f"seat {seat} is not one of 0..{record.players - 1}")
    return {
        "game": record.game,
        "options": record.options,
        "seat": seat,
        "bots": list(record.bots),
        "turns": [
            {"step": t.step, "view": t.view, "legal": t.legal, "action": t.action}
            for t in seat_turns(record, seat)
        ],
        "places": list(record.places),
        "scores": list(record.scores),
    }


@dataclass(frozen=True)
class RunStatus:
    """What a tournament page says of its run: ``state`` is done, cancelled, running, stopped
    or not started; ``message`` says what to do about it (None when nothing is to be done)."""

    state: str
    message: str | None
    started_at: str | None
    games_at_once: int | None
    stopped_at: str | None = None  # a stopped run's end, or its last beat

    def to_dict(self) -> dict[str, Any]:
        return {
            "state": self.state,
            "message": self.message,
            "started_at": self.started_at,
            "games_at_once": self.games_at_once,
            "stopped_at": self.stopped_at,
        }


def run_command(store: Store, info: TournamentInfo) -> str:
    """The command that plays tournament ``info``'s pending games: a ladder's batch is played
    by its ladder's run, a match goes on with ``--resume``."""
    if info.spec.kind is TournamentKind.LADDER:
        batch = LadderStore(store).batch_of(info.id)
        if batch is not None:
            return f"arena ladder run {batch.ladder}"
    if info.spec.kind is TournamentKind.MATCH:
        return f"arena match --resume {info.id}"
    return f"arena tournament run {info.id}"


def run_status(store: Store, info: TournamentInfo) -> RunStatus:
    """Whether tournament ``info`` is done, cancelled, running (its run's heartbeat is
    alive), stopped (games left, and no live run) or not started."""
    run = store.runs.last(info.id)
    started = run.started_at if run else None
    at_once = run.games_at_once if run else None
    if info.status is TournamentStatus.DONE:
        return RunStatus("done", None, started, at_once)
    if info.status is TournamentStatus.CANCELLED:
        return RunStatus("cancelled", None, started, at_once)
    state = run_state(run)
    if state is RunState.RUNNING:
        return RunStatus("running", None, started, at_once)
    command = run_command(store, info)
    if info.status is TournamentStatus.PLANNED and state is RunState.NEVER:
        return RunStatus("not started", f"not started: run `{command}` to play it", None, None)
    stopped = run.ended_at or run.beat_at if run else None
    return RunStatus("stopped", f"stopped: run `{command}` to finish", started, at_once, stopped)


def half_points(half: int) -> str:
    """``0``, ``½``, ``1``, ``1½``...: a number of half points in points."""
    whole, half_left = divmod(half, 2)
    return ("" if whole == 0 and half_left else str(whole)) + ("½" if half_left else "")


def match_view(summary: Mapping[str, Any], *, finished: bool) -> dict[str, Any]:
    """A match's SPRT as its page shows it, as fishtest's test page does
    (``match_summary``'s data): the hypotheses and error rates, the LLR against its bounds,
    the verdict, the Elo difference with its interval (once it means something), the score,
    the deal scores (the pentanomial counts at tables of two) and the fault limit, each said
    in words; ``finished``: the match plays no more games."""
    config, now, faults = summary["config"], summary["status"], summary["faults"]
    result = summary.get("result")
    state = result or ("inconclusive" if finished else "running")
    return {
        "new": summary["new"],
        "base": summary["base"],
        "elo0": f"{config['elo0']:g}",
        "elo1": f"{config['elo1']:g}",
        "alpha": f"{config['alpha']:g}",
        "beta": f"{config['beta']:g}",
        "llr": now["llr"],
        "lower": now["lower"],
        "upper": now["upper"],
        "llr_text": f"{now['llr']:+.2f}",
        "bounds_text": f"[{now['lower']:+.2f}, {now['upper']:+.2f}]",
        "state": state,
        "verdict": verdict_text(summary, finished=finished),
        "elo_text": elo_text(now["elo"], now["elo_lo"], now["elo_hi"]),
        "interval": now["elo_lo"] is not None,
        "score_text": f"{100 * now['score']:.1f}%",
        "deals": now["deals"],
        "games": now["games"],
        "games_per_deal": summary["games_per_deal"],
        "deal_scores": [
            {"points": half_points(half), "deals": count}
            for half, count in enumerate(now["deal_scores"])
        ],
        "fault_limit": f"more than {faults['rate']:.0%} of its games, once it has played "
        f"{faults['games']}",
        "stopped": summary.get("stopped"),
    }


def heading(store: Store, info: TournamentInfo) -> dict[str, Any]:
    """How a tournament's page names it, by its kind (``reports.kind_text``): ``Match 7:
    new vs base``, ``Ladder sk, batch 3`` (with the ladder, its batch number and its
    tables' sizes), ``Tournament 7: ... a round robin``."""
    spec = info.spec
    words = reports.kind_text(spec)
    data: dict[str, Any] = {"kind": spec.kind.value, "words": words, "ladder": None}
    if spec.kind is TournamentKind.MATCH:
        sprt = store.sprt(info.id) or {}
        data["title"] = (
            f"Match {info.id}: {sprt.get('new', '?')} vs {sprt.get('base', '?')}, {spec.game}"
        )
        return data
    batch = LadderStore(store).batch_of(info.id) if spec.kind is TournamentKind.LADDER else None
    if batch is not None:
        data["ladder"] = batch.to_dict()
        data["title"] = f"Ladder {batch.ladder}, batch {batch.number}: {spec.game}"
        return data
    data["title"] = f"Tournament {info.id}: {spec.game}, a {words}"
    return data
