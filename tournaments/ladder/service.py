"""A ladder's use cases: what ``arena ladder`` and the upload server call, one function each.

- ``create_ladder``: a ladder for one game, its table sizes, options and move time;
- ``submit``: enter a bot here (a registered or bundled bot's name, or a folder: copied and
  checked) for a participant; ``upload``: enter an archive a participant sent (unpacked
  safely, checked in the sandbox; refused with the check's report if it fails), in two steps
  the upload server takes apart: ``stage_upload`` (at once) and ``enter_upload`` (the entry
  check, queued: ``tournaments.ladder.submissions``);
- ``invite`` / ``revoke``: a participant's upload token (hashed in the key file);
- ``run_ladder``: play batch after batch until stopped, or until the ladder holds a number
  of games: rate the batches played, plan the next from the skills (matchmaking), play it
  through the tournament runner (``tournaments.service.prepare_run`` and ``run_tournament``:
  every fair-play rule of tournaments holds; the ``--jobs`` workers are started once for every
  batch), rate it;
- ``ladders``, ``leaderboard``, ``ladder_page``, ``skill_series``: read the ladders, a
  leaderboard (with its recent games: the web's page), its versions' skills over time;
  ``rebuild_skills``: recompute the skill cache;
- ``ladder``, ``participant_of``: what the upload server checks before it takes an upload.

Faces parse, call one of these and print. Errors are typed (``LadderError``,
``BotCheckError`` with the check's report, ``ArchiveError``, ``UsageProblem``...). Like
``tournaments.service``, this module names the values its use cases take and return for the
faces (``EloCache``, ``MAX_UPLOAD_BYTES``, ``ComplianceReport``...).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from arena.games import get_game
from arena.keys.seeds import new_key, random_seed
from arena.procs.sandbox import SandboxMode
from tournaments.catalogue.compliance import CheckStop, ComplianceReport
from tournaments.catalogue.lookup import Catalogue, bundled_bots, bundled_version, plays
from tournaments.catalogue.registry import (
    BotCheckError,
    Manifest,
    add_folder_bot,
    check_again,
    load_manifest,
)
from tournaments.errors import (
    LadderError,
    NotFound,
    NotYourBot,
    UsageProblem,
)
from tournaments.ladder import tokens
from tournaments.ladder.board import EloCache, read_board, skill_history
from tournaments.ladder.bots import MAX_UPLOAD_BYTES, Staged, stage_archive, uploads_root
from tournaments.ladder.matchmaking import Candidate, MatchParams, plan_batch
from tournaments.ladder.rating import Folded, current, fold_ready, rebuild
from tournaments.ladder.values import Board
from tournaments.plans.schedule import TournamentKind, TournamentSpec, seatings, table_games
from tournaments.published import run_status
from tournaments.run.runner import RunSummary, Workers
from tournaments.run.sink import Progress
from tournaments.service import GoOn, RunOptions, games_of, prepare_run, run_tournament
from tournaments.store.facts import Store
from tournaments.store.ladder_values import (
    Entry,
    EntryStatus,
    LadderInfo,
    LadderSettings,
    ladder_name_problem,
    participant_problem,
)
from tournaments.store.ladders import LadderStore

__all__ = [
    # the use cases
    "create_ladder",
    "invite",
    "ladder",
    "ladder_page",
    "ladders",
    "ladders_overview",
    "leaderboard",
    "parse_sizes",
    "participant_of",
    "rebuild_skills",
    "revoke",
    "run_ladder",
    "run_state",
    "skill_series",
    "stage_upload",
    "enter_upload",
    "staged_bot",
    "submit",
    "upload",
    # their values
    "MAX_UPLOAD_BYTES",
    "BatchDone",
    "BotCheckError",
    "ComplianceReport",
    "EloCache",
    "LadderRun",
    "Submission",
]

#: Recent games a ladder's page lists.
RECENT = 20

log = logging.getLogger(__name__)


# -- creating ------------------------------------------------------------------------------------


def parse_sizes(text: str) -> tuple[int, int]:
    """``"3-5"`` -> (3, 5), ``"4"`` -> (4, 4). Raises UsageProblem."""
    low, sep, high = text.strip().partition("-")
    try:
        sizes = (int(low), int(high) if sep else int(low))
    except ValueError:
        raise UsageProblem(f"table sizes are N or MIN-MAX (e.g. 3-5), not {text!r}") from None
    if sizes[0] > sizes[1]:
        raise UsageProblem(f"table sizes {text!r}: the smallest comes first")
    return sizes


def create_ladder(
    store: Store,
    *,
    name: str,
    game_name: str,
    table_sizes: str | None,
    options: Mapping[str, Any],
    move_ms: int,
    settings: LadderSettings | None = None,
) -> LadderInfo:
    """A new ladder, at tables of ``table_sizes`` (``N`` or ``MIN-MAX``; None: the game's
    smallest table of 3 or more); nothing is written on an error."""
    problem = ladder_name_problem(name)
    if problem is not None:
        raise UsageProblem(problem)
    game = get_game(game_name)
    if table_sizes is None:
        table_sizes = str(min(max(3, game.min_players), game.max_players))
    low, high = parse_sizes(table_sizes)
    if low < max(2, game.min_players) or high > game.max_players:
        raise UsageProblem(
            f"{game.name} takes {game.min_players}-{game.max_players} players, not tables of "
            f"{table_sizes}"
        )
    return LadderStore(store).create(
        name=name,
        game=game.name,
        options=game.parse_options(dict(options)),
        min_table=low,
        max_table=high,
        move_ms=move_ms,
        settings=settings or LadderSettings(),
    )


# -- entering bots -------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Submission:
    """A version entered: its entry, the entry it replaced (if any), and the entry check's
    report (None for a registered or bundled bot, checked when it was registered);
    ``unchanged``: that version was in play already, and nothing changed (the same code sent
    again, as ``arena bot add --replace`` of the same code)."""

    entry: Entry
    replaced: Entry | None
    report: ComplianceReport | None
    unchanged: bool = False

    @property
    def message(self) -> str:
        """What the participant is told (the faces escape it)."""
        entry = self.entry
        if self.unchanged:
            return (
                f"{entry.label} version {entry.version} is in play already for "
                f"{entry.participant}: the same code, nothing changed"
            )
        replaced = f", replacing {self.replaced.label}" if self.replaced else ""
        return f"entered {entry.label} version {entry.version} for {entry.participant}{replaced}"


def _check_entry(lstore: LadderStore, ladder: LadderInfo, bot: str, participant: str) -> None:
    problem = participant_problem(participant)
    if problem is not None:
        raise UsageProblem(problem)
    owner = lstore.owner(bot)
    if owner is not None and owner != participant:
        raise NotYourBot(f"bot {bot!r} belongs to another participant: choose another name")


def _may_enter(
    store: Store,
    lstore: LadderStore,
    ladder: LadderInfo,
    manifest: Manifest,
    who: str,
    *,
    uploaded: bool,
) -> None:
    """Refuse a bot ``who`` may not enter here: a name of another participant's (or, for an
    upload, of a bot registered here by the organiser), a bot that does not play the game."""
    _check_entry(lstore, ladder, manifest.name, who)
    if uploaded and lstore.owner(manifest.name) is None:
        try:
            store.get_bot(manifest.name)
        except NotFound:
            pass
        else:
            raise NotYourBot(
                f"bot {manifest.name!r} is registered here already (not by a participant): "
                "choose another name"
            )
    if not plays(manifest.games, ladder.game):
        raise BotCheckError(
            f"{manifest.name}'s bot.toml says it plays {', '.join(manifest.games)}; "
            f"this ladder plays {ladder.game}"
        )


def _enter_folder(
    store: Store,
    ladder: LadderInfo,
    folder: Path,
    *,
    participant: str | None,
    uploaded: bool,
    sandbox: SandboxMode,
    stop: CheckStop | None = None,
) -> Submission:
    """Register the folder bot in ``folder`` through the registry (copied into the arena's
    store, checked from the copy in ``sandbox``, until ``stop`` says) and enter it; a bot that
    fails its check never enters (BotCheckError, with the report)."""
    lstore = LadderStore(store)
    manifest = load_manifest(folder)
    who = participant or manifest.name
    _may_enter(store, lstore, ladder, manifest, who, uploaded=uploaded)
    registered = add_folder_bot(
        store,
        folder,
        games=[ladder.game],
        replace=True,
        sandbox=sandbox,
        move_ms=ladder.move_ms,
        uploaded=uploaded,
        stop=stop,
    )
    version = registered.info.version
    playing = _in_play(lstore, ladder, manifest.name, version)
    if playing is not None:
        return Submission(entry=playing, replaced=None, report=None, unchanged=True)
    report = registered.report
    if not registered.checked:  # registered before: checked again at this ladder's deadline
        report = check_again(store, registered.info, sandbox, move_ms=ladder.move_ms, stop=stop)
    return _enter(
        lstore,
        ladder,
        bot=manifest.name,
        version=version,
        runs_as=manifest.name,
        participant=who,
        uploaded=uploaded,
        report=report,
    )


def _in_play(lstore: LadderStore, ladder: LadderInfo, bot: str, version: str) -> Entry | None:
    """The active entry of ``bot`` at ``version`` in the ladder, if it is in play already."""
    for entry in lstore.entries(ladder.id):
        if entry.bot == bot and entry.version == version and entry.status is EntryStatus.ACTIVE:
            return entry
    return None


def _enter(lstore: LadderStore, ladder: LadderInfo, **fields: Any) -> Submission:
    report = fields.pop("report", None)
    before = {e.bot: e for e in lstore.entries(ladder.id) if e.status is not EntryStatus.RETIRED}
    entry = lstore.enter(ladder.id, **fields)
    return Submission(entry=entry, replaced=before.get(entry.bot), report=report)


def submit(
    store: Store,
    ladder_name: str,
    target: str,
    *,
    participant: str | None = None,
    sandbox: SandboxMode = SandboxMode.AUTO,
) -> Submission:
    """Enter ``target`` into a ladder for ``participant`` (default: the bot's own name, so
    that each bot is its own participant): a folder with a ``bot.toml`` (registered as
    ``arena bot add`` does: copied, checked), or a registered or bundled bot's name (its
    current version). A new version of a bot replaces the old one in matchmaking."""
    lstore = LadderStore(store)
    ladder = lstore.ladder(ladder_name)
    folder = Path(target).expanduser()
    if folder.is_dir():
        return _enter_folder(
            store, ladder, folder, participant=participant, uploaded=False, sandbox=sandbox
        )
    catalogue = Catalogue.of(store)
    spec, version = catalogue.lookup(target)
    if spec.remote:
        raise UsageProblem(
            f"{target!r} is a remote bot: a ladder starts fresh processes for every batch, "
            "so it enters folders, registered commands and bundled bots only"
        )
    if not plays(games_of(catalogue, target), ladder.game):
        raise UsageProblem(f"bot {target!r} does not play {ladder.game}")
    who = participant or target
    _check_entry(lstore, ladder, target, who)
    playing = _in_play(lstore, ladder, target, version)
    if playing is not None:
        return Submission(entry=playing, replaced=None, report=None, unchanged=True)
    return _enter(
        lstore,
        ladder,
        bot=target,
        version=version,
        runs_as=target,
        participant=who,
        uploaded=False,
        report=None,
    )


#: The bots whose upload is being checked now: one upload of a name at a time.
_ENTERING: set[str] = set()
_ENTERING_LOCK = threading.Lock()


@contextmanager
def _entering(name: str) -> Iterator[None]:
    """Hold bot name ``name`` while its upload is checked and entered (raises LadderError if
    another upload of it is)."""
    with _ENTERING_LOCK:
        if name in _ENTERING:
            raise LadderError(
                f"an upload of bot {name!r} is being checked already: wait for its result"
            )
        _ENTERING.add(name)
    try:
        yield
    finally:
        with _ENTERING_LOCK:
            _ENTERING.discard(name)


def stage_upload(store: Store, ladder_name: str, participant: str, archive: bytes) -> Staged:
    """The quick part of an upload: the ladder exists, the archive unpacks safely (into a
    staging folder of its own) with a ``bot.toml``, and ``participant`` may enter that bot
    here. Raises NotFound, ArchiveError, BotCheckError, NotYourBot or UsageProblem, leaving
    nothing staged; else ``enter_upload`` takes the staged folder."""
    lstore = LadderStore(store)
    ladder = lstore.ladder(ladder_name)
    staged = stage_archive(uploads_root(store.path), archive)
    try:
        manifest = load_manifest(staged.folder)
        _may_enter(store, lstore, ladder, manifest, participant, uploaded=True)
    except BaseException:
        staged.close()
        raise
    return staged


def staged_bot(staged: Staged) -> str:
    """The name of the bot in a staged upload."""
    return load_manifest(staged.folder).name


def enter_upload(
    store: Store,
    ladder_name: str,
    participant: str,
    staged: Staged,
    *,
    stop: CheckStop | None = None,
) -> Submission:
    """The long part of an upload: the entry check, in the sandbox (bubblewrap is required),
    until ``stop`` says, then its entry. The staging folder is removed either way. Raises
    BotCheckError (with the report; also when ``stop`` stopped the check), NotYourBot or
    LadderError, and nothing enters."""
    try:
        ladder = LadderStore(store).ladder(ladder_name)
        with _entering(staged_bot(staged)):
            return _enter_folder(
                store,
                ladder,
                staged.folder,
                participant=participant,
                uploaded=True,
                sandbox=SandboxMode.REQUIRED,
                stop=stop,
            )
    finally:
        staged.close()


def upload(
    store: Store,
    ladder_name: str,
    participant: str,
    archive: bytes,
    *,
    stop: CheckStop | None = None,
) -> Submission:
    """Enter a bot a participant uploaded as an archive, at once: ``stage_upload`` then
    ``enter_upload`` (the upload server queues the second: ``tournaments.ladder.submissions``).
    Raises as they do, and nothing enters then."""
    staged = stage_upload(store, ladder_name, participant, archive)
    return enter_upload(store, ladder_name, participant, staged, stop=stop)


def ladder(store: Store, ladder_name: str) -> LadderInfo:
    """Ladder ``ladder_name``. Raises NotFound."""
    return LadderStore(store).ladder(ladder_name)


def participant_of(store: Store, token: str | None) -> str | None:
    """The participant holding upload ``token`` (None: no token, or not a valid one)."""
    return tokens.authenticate(store.keys, token)


def invite(store: Store, participant: str) -> str:
    """A new upload token for ``participant`` (shown once; only its hash is kept)."""
    return tokens.invite(store.keys, participant)


def revoke(store: Store, participant: str) -> bool:
    return tokens.revoke(store.keys, participant)


# -- reading -------------------------------------------------------------------------------------


def ladders(store: Store) -> list[LadderInfo]:
    """Every ladder, by name."""
    return LadderStore(store).ladders()


def leaderboard(
    store: Store, ladder_name: str, *, elo: bool = True, cache: EloCache | None = None
) -> Board:
    """The ladder's leaderboard now (with its batch Elo unless ``elo`` is false; with
    ``cache``, perhaps the fit of a few seconds before: ``tournaments.ladder.board``)."""
    lstore = LadderStore(store)
    return read_board(lstore, lstore.ladder(ladder_name), elo=elo, cache=cache)


def run_state(store: Store, ladder: LadderInfo) -> dict[str, Any]:
    """What a ladder's page says of its run, from its open batch's run (the heartbeat of
    ``tournaments.store.heartbeat``, as a tournament page says it): ``running`` (since when),
    ``stopped`` (since when, and what goes on; a run stopped between two batches leaves the
    next planned and the ladder stopped), ``planned`` (no batch ever played yet) or
    ``idle`` (no batch open: the next is planned by ``arena ladder run``); the open batch's
    number and its games left."""
    lstore = LadderStore(store)
    command = f"arena ladder run {ladder.name}"
    tid = _open_batch(lstore, ladder)
    if tid is None:
        return {
            "state": "idle",
            "batch": None,
            "left": 0,
            "since": None,
            "message": f"no batch is being played: `{command}` plays the next",
        }
    info = store.tournament(tid)
    run = run_status(store, info)
    number = lstore.batch_number(tid)
    left = info.games_total - info.games_done
    state = {"running": "running", "stopped": "stopped"}.get(run.state, "planned")
    if state == "planned":  # a run stopped between batches left the next one planned
        before = [t for t in lstore.batches(ladder.id) if t < tid]
        if before and (last := store.runs.last(before[-1])) is not None:
            state, run = "stopped", replace(run, stopped_at=last.ended_at or last.beat_at)
    message = {
        "running": None,
        "stopped": f"stopped with {left} game(s) of batch {number} to play: `{command}` goes on",
        "planned": f"batch {number} is planned, not played yet: `{command}` plays it",
    }[state]
    return {
        "state": state,
        "batch": number,
        "left": left,
        "since": run.started_at if state == "running" else run.stopped_at,
        "message": message,
    }


def ladder_page(
    store: Store, ladder_name: str, *, cache: EloCache | None = None, recent: int = RECENT
) -> dict[str, Any]:
    """A ladder's page (the web's ``/ladders/NAME`` and its JSON twin): its leaderboard, each
    line with its entry's id and the bot it runs as, its leader, its run's state
    (``run_state``) and its ``recent`` last games whose deals are complete (each seat's version
    and place)."""
    lstore = LadderStore(store)
    info = lstore.ladder(ladder_name)
    with lstore.snapshot():
        board = read_board(lstore, info, cache=cache)
        games = lstore.recent_games(info.id, recent)
        run = run_state(store, info)
    labels = {line.entry.id: line.entry.label for line in board.lines}
    data = board.to_dict()
    data["run"] = run
    data["recent"] = [
        {
            "id": game["id"],
            "finished_at": game["finished_at"],
            "seats": [
                {"label": labels.get(entry, "?"), "place": place}
                for entry, place in zip(game["entries"], game["places"])
            ],
        }
        for game in games
    ]
    for line, out in zip(board.lines, data["lines"]):
        out["entry"] = line.entry.id
        out["runs_as"] = line.entry.runs_as
    return data


def ladders_overview(store: Store) -> list[dict[str, Any]]:
    """Every ladder with its leader, games, batches and run state (``/ladders`` and its JSON
    twin; ``arena ladder show``)."""
    lstore = LadderStore(store)
    rows = []
    for info in lstore.ladders():
        board = read_board(lstore, info, elo=False)
        rows.append(
            info.to_dict()
            | {
                "leader": board.leader,
                "games": board.games,
                "batches": board.batches,
                "entries": sum(1 for line in board.lines if line.rank is not None),
                "run": run_state(store, info),
            }
        )
    return rows


def skill_series(store: Store, ladder_name: str) -> dict[int, list[tuple[int, float]]]:
    """Each version's conservative skill after its rated games, by entry id
    (``tournaments.ladder.board.skill_history``)."""
    lstore = LadderStore(store)
    return skill_history(lstore, lstore.ladder(ladder_name))


def rebuild_skills(store: Store, ladder_name: str) -> int:
    """Recompute the ladder's skill cache from its games; how many games were rated."""
    lstore = LadderStore(store)
    ratings = rebuild(lstore, lstore.ladder(ladder_name))
    return sum(ratings.games.values())


# -- running -------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class BatchDone:
    """A batch played and rated: its number in its ladder (the first is 1) and its
    tournament id, the run's summary, the ladder's leader after it (``Board.leader``), and
    who was suspended."""

    number: int
    tid: int
    summary: RunSummary
    folded: Folded
    leader: str | None


@dataclass(frozen=True, kw_only=True)
class LadderRun:
    """What ``run_ladder`` did: batches and games played, and what to tell the user."""

    batches: int = 0
    played: int = 0
    games: int = 0
    warnings: tuple[str, ...] = field(default=())


def plan_next(store: Store, ladder: LadderInfo) -> tuple[int | None, list[str]]:
    """Plan the next batch from the skills so far (``matchmaking.plan_batch``) and write it;
    its tournament id (None: too few versions can meet) and warnings."""
    lstore = LadderStore(store)
    warnings = []
    with lstore.snapshot():
        entries = lstore.entries(ladder.id)
        ratings = current(lstore, ladder, entries)
        registered = lstore.registered_versions()
    met = lstore.met(ladder.id)
    ready: dict[int, Entry] = {}
    names: set[str] = set()
    for entry in entries:
        if entry.status is not EntryStatus.ACTIVE:
            continue
        version = registered.get(entry.runs_as) or _bundled(entry.runs_as)
        if version is None:
            warnings.append(f"{entry.label} waits: bot {entry.runs_as!r} is not registered")
            continue
        if version != entry.version:
            warnings.append(
                f"{entry.label} waits: {entry.runs_as} changed since it entered (version "
                f"{entry.version} -> {version}); submit it again to enter the new version"
            )
            continue
        if entry.runs_as not in names:
            names.add(entry.runs_as)
            ready[entry.id] = entry
    params = MatchParams(
        sizes=ladder.table_sizes,
        games=ladder.settings.batch_games,
        placement_games=ladder.settings.placement_games,
        max_entries=ladder.settings.max_batch_entries,
    )
    candidates = [
        Candidate(
            key=e.id,
            group=e.participant,
            skill=ratings.skill(e.id),
            games=ratings.games.get(e.id, 0),
        )
        for e in ready.values()
    ]
    tables = plan_batch(candidates, params, met)
    if not tables:
        return None, warnings
    seats = {ready[key].runs_as: ready[key] for table in tables for key in table}
    key, seed = new_key(), random_seed()
    spec = TournamentSpec(
        game=ladder.game,
        options=ladder.options,
        bots=tuple(seats),
        table_size=max(len(table) for table in tables),
        seed=seed,
        move_ms=ladder.move_ms,
        kind=TournamentKind.LADDER,
        deals=ladder.settings.deals.mode(uploads=any(e.uploaded for e in entries)),
    )
    games = []
    for number, table in enumerate(tables):
        labels = tuple(ready[k].runs_as for k in table)
        games += table_games(
            key, seed, 0, number, seatings(spec, labels), len(games), deals=spec.deals
        )
    return lstore.plan(ladder, spec, games, seats, key=key), warnings


def _bundled(name: str) -> str | None:
    return bundled_version(name) if name in bundled_bots() else None


def _open_batch(lstore: LadderStore, ladder: LadderInfo) -> int | None:
    for tid in lstore.batches(ladder.id, rated=False):
        if lstore.pending_in(tid):
            return tid
    return None


def _leader(store: Store, ladder: LadderInfo) -> str | None:
    return read_board(LadderStore(store), ladder, elo=False).leader


def _with_leader(
    progress: Callable[[Progress], None] | None, leader: str | None
) -> Callable[[Progress], None] | None:
    """The run's progress with the ladder's leader (``Board.leader``, as the batch began), not
    the batch's own: one leader, whatever says it."""
    if progress is None:
        return None
    return lambda now: progress(replace(now, leader=leader))


def _play_batch(
    store: Store,
    ladder: LadderInfo,
    tid: int,
    options: RunOptions,
    *,
    jobs: int,
    games_per_worker: int | None,
    cluster: str | None,
    unsandboxed_accepted: bool,
    workers: Workers,
    progress: Callable[[Progress], None] | None,
) -> RunSummary:
    """Play batch ``tid`` through the tournament runner (on the kept ``workers``), with the
    uploads' staging folder hidden from its bots too."""
    prepared = prepare_run(
        store,
        tid,
        options,  # uploaded code makes the sandbox required (``sandbox_mode``)
        jobs=jobs,
        games_per_worker=games_per_worker,
        cluster=cluster,
        unsandboxed_accepted=unsandboxed_accepted,
    )
    config = prepared.config
    if config.sandbox is not None:
        config = replace(config, sandbox=config.sandbox.hiding([str(uploads_root(store.path))]))
    summary = run_tournament(
        store,
        replace(prepared, config=config),
        progress,
        workers=workers,
        go_on=GoOn(
            command=f"arena ladder run {ladder.name}",
            kept="the ladder keeps every finished game",
            then="go on",
        ),
    )
    if summary.failed:
        raise LadderError(
            f"{len(summary.failed)} game(s) of batch {tid} could not be played "
            f"({summary.failed[0]}); they stay pending: run the ladder again"
        )
    return summary


def run_ladder(
    store: Store,
    ladder_name: str,
    options: RunOptions | None = None,
    *,
    jobs: int = 1,
    games_per_worker: int | None = None,
    cluster: str | None = None,
    unsandboxed_accepted: bool = False,
    until_games: int | None = None,
    wait_s: float = 5.0,
    on_batch: Callable[[BatchDone], None] | None = None,
    on_wait: Callable[[str], None] | None = None,
    progress: Callable[[Progress], None] | None = None,
) -> LadderRun:
    """Play the ladder batch after batch: first any batch a killed run left unfinished, then
    new ones, rating each as it completes. Stops once the ladder holds ``until_games``
    finished games (None: never; with too few versions to meet it waits ``wait_s`` between
    looks for new entries). On a ``cluster``, a sandbox other than ``required`` needs
    ``unsandboxed_accepted`` (as for tournaments). The ``jobs`` worker processes are started
    once and play every batch (``tournaments.run.runner.Workers``). Raises Interrupted on Ctrl-C
    (what finished is kept)."""
    lstore = LadderStore(store)
    ladder = lstore.ladder(ladder_name)
    options = options or RunOptions()
    batches = played = 0
    warnings: list[str] = []
    with Workers() as workers:
        while True:
            fold_ready(lstore, ladder)
            done = lstore.counts(ladder.id)[0]
            if until_games is not None and done >= until_games:
                break
            tid = _open_batch(lstore, ladder)
            if tid is None:
                tid, said = plan_next(store, ladder)
                warnings += [w for w in said if w not in warnings]
            if tid is None:
                if until_games is not None:
                    warnings.append(
                        f"ladder {ladder.name} stopped at {done} games: too few versions can "
                        f"meet (tables of {ladder.sizes_text()}, one bot per participant at a "
                        "table)"
                    )
                    break
                if on_wait is not None:
                    on_wait("waiting for entries: too few versions can meet")
                workers.close()  # none idles while the ladder waits
                time.sleep(wait_s)
                continue
            summary = _play_batch(
                store,
                ladder,
                tid,
                options,
                jobs=jobs,
                games_per_worker=games_per_worker,
                cluster=cluster,
                unsandboxed_accepted=unsandboxed_accepted,
                workers=workers,
                progress=_with_leader(progress, _leader(store, ladder)),
            )
            folded = fold_ready(lstore, ladder)
            batches += 1
            played += summary.played
            if on_batch is not None:
                on_batch(
                    BatchDone(
                        number=lstore.batch_number(tid) or 0,
                        tid=tid,
                        summary=summary,
                        folded=folded,
                        leader=_leader(store, ladder),
                    )
                )
    return LadderRun(
        batches=batches,
        played=played,
        games=lstore.counts(ladder.id)[0],
        warnings=tuple(warnings),
    )
