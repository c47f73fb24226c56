"""The arena's use cases: what the command line and the web call, one function each.

A face (``arena.cli``, ``arena.web``) parses what the user gave, calls one use case here and
prints what comes back; everything between -- checking the request, opening what a run needs
(logs folder, sandbox, remote bots, a cluster's shipped bots), planning, running, recording --
is here or below. Use cases return values; what the user should be told besides (a bot changed
since its tournament was planned, remote bots remember deals) comes back as ``warnings``, never
printed from here. Bad requests raise typed errors (``tournaments.errors``): ``UsageProblem``
for a request that cannot be meant as given, other ``ArenaError`` subclasses for the rest.

- ``create_tournament``: validate and write a whole plan (round robin, gauntlet or balanced),
  or the first round of one played in rounds (Swiss, knockout);
- ``prepare_run`` then ``run_tournament``: play a tournament's pending games, here, on
  ``--jobs`` worker processes or on a Dask cluster (one ``RunConfig`` for all of them); a
  tournament played in rounds plays round after round, each planned when the one before is
  complete (``tournaments.rounds``), on the same workers;
- ``plan_match`` then ``run_match``: NEW against BASE until an SPRT decides (or their faults
  stop the match);
- ``cancel_tournament``: give up a tournament that will not be played to its end, keeping
  what was played;
- ``create_demo``: ``arena demo``'s small round robin among the bundled bots of a game;
- ``bot_processes``: the logs folder, the sandbox and the remote-bot configuration of any
  command that runs bots (``arena play`` too).

This module is the faces' door to tournaments: besides its use cases it names the values they
take and return (``RunOptions`` with ``SandboxMode``, ``Progress``, a match's ``MatchInfo``,
``SprtConfig``, ``Decision``...), so that a face imports them from here and knows nothing of
the rooms they come from (pyproject.toml's contract "the faces have one door"). The other
doors are ``published`` and ``reports`` (what is shown), ``play``, ``bots`` and ``ask`` (the
other use cases), ``ladder.service``, and the store's values, read model and ``Store`` itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from arena.errors import RemoteError
from arena.games import get_game, names
from arena.keys.seeds import key_id, new_key, random_seed
from arena.procs.botproc import BotSpec
from arena.procs.limits import Limits
from arena.procs.logs import logs_folder
from arena.procs.remote import REMOTE_WAIT_MS, RemoteConfig, check_listen
from arena.procs.sandbox import Sandbox, SandboxMode
from arena.text import printable
from tournaments.catalogue.bot_sandbox import sandbox_for, sandbox_mode
from tournaments.catalogue.lookup import Catalogue, bundled_bots, needs_sandbox, plays
from tournaments.catalogue.shipping import shipped_bots
from tournaments.errors import (
    BotChanged,
    ClusterError,
    ClusterLost,
    Interrupted,
    TournamentError,
    UsageProblem,
)
from tournaments.matches.match import (
    FaultLimit,
    MatchInfo,
    MatchProgress,
    MatchStatus,
    match_info,
    match_summary,
    play_match_sprt,
    summary_line,
    verdict_text,
)
from tournaments.matches.sprt import Decision, SprtConfig, SprtError, elo_text
from tournaments.plans.schedule import (
    MATCH_DEALS,
    DealMode,
    TournamentKind,
    TournamentSpec,
    check_spec,
    draw,
    plan,
    seatings_per_deal,
)
from tournaments.reports import when
from tournaments.rounds import FormatView, RoundPlanned, format_view, plan_next_round
from tournaments.run.cluster import (
    ACCEPT_UNSANDBOXED,
    ClusterConfig,
    check_sandbox,
    distributed_module,
)
from tournaments.run.playing import RunConfig, auto_games_per_worker
from tournaments.run.runner import RunSummary, Workers, run
from tournaments.run.sink import Progress
from tournaments.store.facts import Store
from tournaments.store.heartbeat import RunState, run_state
from tournaments.store.values import TournamentInfo, TournamentStatus

__all__ = [
    # the use cases
    "bot_processes",
    "cancel_tournament",
    "create_demo",
    "create_tournament",
    "demo_entrants",
    "elo_text",
    "demo_games",
    "entrant_specs",
    "games_of",
    "match_info",
    "match_summary",
    "plan_match",
    "prepare_run",
    "run_match",
    "run_tournament",
    "summary_line",
    "verdict_text",
    # their values
    "ACCEPT_UNSANDBOXED",
    "BotProcesses",
    "Cancelled",
    "Created",
    "DealMode",
    "Decision",
    "FaultLimit",
    "FormatView",
    "GoOn",
    "MatchInfo",
    "MatchProgress",
    "MatchStatus",
    "PlannedMatch",
    "PreparedRun",
    "Progress",
    "RoundDone",
    "RoundPlanned",
    "RunOptions",
    "RunSummary",
    "SandboxMode",
    "SprtConfig",
    "SprtError",
    "TournamentKind",
]

_DEFAULTS = Limits()


@dataclass(frozen=True, kw_only=True)
class RunOptions:
    """How a command that runs bots runs them, as the user gave it: process limits, the
    sandbox mode (None: not given, see ``sandbox_mode``) and remote bots (``--listen``,
    ``--curve``)."""

    time_bank_ms: int = 0
    memory_mb: int = _DEFAULTS.memory_mb
    cpu_s: int = _DEFAULTS.cpu_s
    max_procs: int = _DEFAULTS.max_procs
    log_bytes: int = _DEFAULTS.log_bytes
    sandbox: SandboxMode | None = None
    listen: str | None = None
    curve: bool = False
    remote_wait_s: int = REMOTE_WAIT_MS // 1000

    def sandbox_mode(self, *, cluster: bool = False) -> SandboxMode:
        """The sandbox mode the user gave, else ``auto`` here and ``required`` on a cluster
        (a worker's warning would go unseen there, and an unsandboxed bot can reach the
        scheduler and through it run code on every worker)."""
        if self.sandbox is not None:
            return self.sandbox
        return SandboxMode.REQUIRED if cluster else SandboxMode.AUTO

    def limits(self, **game: int) -> Limits:
        """Limits with these process limits and the given game limits (``move_ms``...)."""
        return replace(
            Limits(**game),
            time_bank_ms=self.time_bank_ms,
            memory_mb=self.memory_mb,
            cpu_s=self.cpu_s,
            max_procs=self.max_procs,
            log_bytes=self.log_bytes,
        )


@dataclass(frozen=True, kw_only=True)
class BotProcesses:
    """Where a command's bot processes write their output, how they are sandboxed (None:
    not) and how remote bots join (None: none may)."""

    log_dir: Path
    sandbox: Sandbox | None
    remote: RemoteConfig | None


def bot_processes(
    db_path: Path, options: RunOptions, specs: Iterable[BotSpec], folders: Iterable[str] = ()
) -> BotProcesses:
    """The logs folder, the sandbox and the remote configuration of a command running
    ``specs`` with the database at ``db_path``; ``folders`` are the registered bots' own folders
    (``Catalogue.folders``). Raises SandboxError or RemoteError (one line each)."""
    specs = list(specs)
    log_dir = logs_folder(db_path)
    log_dir.mkdir(parents=True, exist_ok=True)
    box = sandbox_for(
        options.sandbox_mode(), db_path, folders, local=needs_sandbox(specs), specs=specs
    )
    remote = None
    wanted = [spec.name for spec in specs if spec.remote]
    if options.listen is not None:
        check_listen(options.listen)
    if wanted and options.listen is None:
        raise RemoteError(
            f"bot {wanted[0]!r} is remote: give --listen tcp://HOST:PORT for it to connect to"
        )
    if options.curve and options.listen is None:
        raise RemoteError("--curve secures remote bots' connections: give --listen too")
    if options.listen is not None:
        from tournaments.catalogue.remote import remote_config

        with Store.open(db_path) as store:
            remote = remote_config(
                store,
                listen=options.listen,
                curve=options.curve,
                wait_ms=options.remote_wait_s * 1000,
            )
    return BotProcesses(log_dir=log_dir, sandbox=box, remote=remote)


# -- tournaments ------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Created:
    """A tournament just planned, and what its creator should be told."""

    tid: int
    info: TournamentInfo
    warnings: tuple[str, ...] = ()
    view: FormatView | None = None  # a balanced plan's balance, a first round's tables


def create_tournament(
    store: Store,
    *,
    game_name: str,
    bots: list[str],
    table_size: int | None,
    repetitions: int,
    seed: int | None,
    options: dict,
    move_ms: int,
    gauntlet: str | None = None,
    kind: TournamentKind = TournamentKind.ROUND_ROBIN,
    per_entrant: int | None = None,
    rounds: int | None = None,
    advance: int | None = None,
    deals: DealMode = DealMode.DUPLICATE,
) -> Created:
    """Validate everything, then write the whole plan (of a tournament played in rounds, its
    first round). Nothing is written on an error.

    With ``gauntlet`` (an entrant label: the first entrant) every table holds that entrant. A
    balanced tournament (``kind``) seats each entrant at ``per_entrant`` tables, a Swiss one
    plays ``rounds`` rounds, a knockout sends ``advance`` of each table on
    (``tournaments.plans``). ``deals`` says whether a table's rotations share a deal
    (``tournaments.plans.schedule``).

    The tournament gets a fresh secret key (kept in the key file beside the database): its
    deals are new even with a ``seed`` used before, and no bot can compute them."""
    game = get_game(game_name)
    catalogue = Catalogue.of(store)
    found = {name: catalogue.find(name) for name in dict.fromkeys(bots)}  # code checked
    if table_size is None:
        table_size = max(game.min_players, min(len(bots), game.max_players))
    spec = TournamentSpec(
        game=game.name,
        options=options,
        bots=tuple(bots),
        table_size=table_size,
        repetitions=repetitions,
        seed=random_seed() if seed is None else seed,
        move_ms=move_ms,
        gauntlet=gauntlet,
        kind=TournamentKind.GAUNTLET if gauntlet else kind,
        per_entrant=per_entrant,
        rounds=rounds,
        advance=advance,
        deals=deals,
    )
    key = new_key()
    spec = check_spec(spec, game)
    games = plan(spec, key=key)
    entrants = {label: (bot, found[bot].version) for label, bot in spec.entrant_bots().items()}
    tid = store.create_tournament(
        spec, games, entrants, key=key, draw=draw(spec, key) if spec.kind.in_rounds else None
    )
    info = store.tournament(tid)
    remote = sorted({entrant.bot for entrant in info.entrants if found[entrant.bot].spec.remote})
    warnings = []
    if remote and info.spec.table_size > 1 and info.spec.deals is DealMode.DUPLICATE:
        warnings.append(
            f"remote bot(s) {', '.join(remote)} play every seat rotation of a deal over "
            "connections their owner controls, so they can remember its hands from one "
            "rotation to the next; local bots cannot (docs/security.md)"
        )
    return Created(tid=tid, info=info, warnings=tuple(warnings), view=format_view(store, info))


#: ``arena demo``'s games, each with its table size and repetitions (kept small: the whole
#: demo runs in well under a minute on two cores).
DEMO = {
    "skull": (4, 4),
    "skull-bank": (4, 2),
    "skull-king": (4, 2),
    "skyjo": (4, 2),
}
#: Bundled bots left out of the demo (``first`` only mirrors the referee's default policy;
#: ``ismcts`` thinks 200 ms a move, too slow for a demo).
DEMO_SKIP = {"first", "ismcts"}


def demo_games() -> list[str]:
    """The games ``arena demo`` plays when none is named."""
    known = names()
    return [name for name in DEMO if name in known]


def demo_entrants(game_name: str, table_size: int) -> list[str]:
    """The demo's entrants of a game: every bundled bot that plays it (but those of
    ``DEMO_SKIP``), and ``random`` enough times to fill a table."""
    playing = [
        name
        for name, games in sorted(bundled_bots().items())
        if plays(games, game_name) and name not in DEMO_SKIP
    ]
    strategy = [name for name in playing if name != "random"]
    return strategy + ["random"] * max(2, table_size - len(strategy))


def create_demo(store: Store, game_name: str, *, seed: int) -> Created:
    """``arena demo``'s tournament of ``game_name``: a small round robin among the bundled
    bots (``DEMO``: its table size and repetitions), with its own secret key, so that a fixed
    ``seed`` reveals nothing of the deals."""
    game = get_game(game_name)
    size, repetitions = DEMO.get(game.name, (game.min_players, 1))
    size = max(game.min_players, min(size, game.max_players))
    return create_tournament(
        store,
        game_name=game.name,
        bots=demo_entrants(game.name, size),
        table_size=size,
        repetitions=repetitions,
        seed=seed,
        options={},
        move_ms=2000,
    )


def planned_advice(tid: int, version: str) -> str:
    """What helps tournament ``tid`` when the code of a bot's ``version`` it was planned with is
    gone (``{name}``: the bot's name, for ``Catalogue.find``)."""
    return (
        f"tournament {tid} plays version {version} as planned: put its files back as they "
        f"were to play it, or give it up with `arena tournament cancel {tid}` (its games "
        "played are kept); `arena bot add {name} --replace` registers the new code for new "
        "tournaments only"
    )


def cancel_tournament(store: Store, tid: int) -> Cancelled:
    """Give up tournament ``tid`` (a round robin, a gauntlet, a match or a ladder's batch)
    that will not be played to its end: its games played are kept, with their ratings, and
    its pending games dropped, so that it withholds nothing any more (its replays and its
    bots' logs); a Swiss tournament or knockout plans no later round. Raises TournamentError
    for one that is finished or whose run is alive."""
    info = store.tournament(tid)
    if info.status.finished:
        raise TournamentError(f"tournament {tid} is {info.status.value} already: nothing to cancel")
    run = store.runs.last(tid)
    if run_state(run) is RunState.RUNNING:
        raise TournamentError(
            f"tournament {tid} is being played (a run since {when(run.started_at)}): stop that "
            "run first"
        )
    dropped = store.cancel(tid)
    return Cancelled(tid=tid, kept=info.games_done, dropped=dropped, kind=info.spec.kind)


def entrant_specs(
    catalogue: Catalogue, info: TournamentInfo
) -> tuple[dict[str, BotSpec], tuple[str, ...]]:
    """How to run each entrant of a tournament at the version it was planned with, its code
    checked (``Catalogue.find``), and a line for each bot registered again since: its games
    here are still played by the planned version (a folder bot's copy). Raises BotChanged,
    naming the tournament, for a bot whose planned code is gone or changed."""
    specs = {}
    warnings = []
    found: dict[str, BotSpec] = {}
    for entrant in info.entrants:
        if entrant.bot not in found:
            try:
                found[entrant.bot] = catalogue.find(
                    entrant.bot, entrant.version, advice=planned_advice(info.id, entrant.version)
                ).spec
            except BotChanged as exc:
                raise BotChanged(f"tournament {info.id}: {exc}") from None
            now = catalogue.registered.get(entrant.bot)
            if now is not None and now.version != entrant.version:
                warnings.append(
                    f"{entrant.bot} was registered again since tournament {info.id} was "
                    f"planned (version {entrant.version} -> {now.version}): its games here "
                    f"are played by version {entrant.version}, as planned"
                )
        specs[entrant.name] = found[entrant.bot]
    return specs, tuple(warnings)


@dataclass(frozen=True, kw_only=True)
class Cancelled:
    """A tournament just cancelled: the games it kept (played) and dropped (never played)."""

    tid: int
    kept: int
    dropped: int
    kind: TournamentKind


@dataclass(frozen=True, kw_only=True)
class PreparedRun:
    """A tournament ready to run: how its games are played (``config``), by how many worker
    processes, or on which cluster, and what the user should be told first."""

    tid: int
    config: RunConfig
    jobs: int = 1
    cluster: ClusterConfig | None = None
    warnings: tuple[str, ...] = field(default=())


def prepare_run(
    store: Store,
    tid: int,
    options: RunOptions | None = None,
    *,
    jobs: int = 1,
    games_per_worker: int | None = None,
    cluster: str | None = None,
    matches: bool = False,
    unsandboxed_accepted: bool = False,
) -> PreparedRun:
    """Everything tournament ``tid``'s run needs, checked before any game starts: its key, each
    entrant's bot, the limits, and the logs folder, sandbox and remote bots here or, with
    ``cluster`` (a Dask scheduler's address), the bots shipped to its workers (each driving
    ``games_per_worker`` games at once, or ``jobs`` if only that is given: docs/cluster.md); the
    sandbox is ``required`` there unless the options say otherwise (``RunOptions.sandbox_mode``),
    and a mode other than ``required`` needs ``unsandboxed_accepted``
    (``tournaments.run.cluster.check_sandbox``).

    A match is run by ``run_match`` (``matches=True`` lets it through). Raises UsageProblem for
    a request that cannot work as given, other ArenaErrors for the rest."""
    key = store.tournament_key(tid)  # a lost key file: one clear error before anything starts
    info = store.tournament(tid)
    if info.status is TournamentStatus.CANCELLED:
        raise TournamentError(f"tournament {tid} was cancelled: it plays no more games")
    if info.spec.kind is TournamentKind.MATCH and not matches:
        raise UsageProblem(
            f"tournament {tid} is a match, stopped by its SPRT: go on with "
            f"`arena match --resume {tid}`"
        )
    catalogue = Catalogue.of(store)
    specs, warnings = entrant_specs(catalogue, info)
    code = catalogue.planned({e.name: (e.bot, e.version) for e in info.entrants})
    options = options or RunOptions()
    limits = options.limits(move_ms=info.spec.move_ms)
    at_once = games_per_worker or auto_games_per_worker(limits.move_ms)
    config = RunConfig(
        game=get_game(info.spec.game),
        options=info.spec.options,
        bots=specs,
        limits=limits,
        at_once=at_once,
        code=code,
    )
    if cluster is None:
        processes = bot_processes(Path(store.path), options, specs.values(), catalogue.folders())
        config = replace(
            config, sandbox=processes.sandbox, log_dir=processes.log_dir, remote=processes.remote
        )
        return PreparedRun(tid=tid, config=config, jobs=jobs, warnings=warnings)
    if options.listen is not None:
        raise UsageProblem("remote bots (--listen) join one arena process: not --cluster")
    if games_per_worker is None and jobs > 1:
        config = replace(config, at_once=jobs)
    where = ClusterConfig(
        address=cluster,
        sandbox=sandbox_mode(options.sandbox_mode(cluster=True), specs.values()),
        bots=shipped_bots(catalogue, info),
        tournament=key_id(key),
        unsandboxed_accepted=unsandboxed_accepted,
    )
    check_sandbox(where)
    distributed_module()  # Dask missing: say what to install before anything starts
    return PreparedRun(tid=tid, config=config, jobs=jobs, cluster=where, warnings=warnings)


@dataclass(frozen=True, kw_only=True)
class GoOn:
    """How the user goes on with a run that stopped part-way, as the error says it: the
    command to run again, what is kept (None: the tournament's games recorded so far) and
    what running it again does."""

    command: str
    kept: str | None = None
    then: str = "finish"


@dataclass(frozen=True, kw_only=True)
class RoundDone:
    """A round of a tournament played in rounds just completed (``number`` from 0), the view
    of its format then (standings, bracket), and the round planned after it (None: it was the
    last)."""

    tid: int
    number: int
    rounds: int
    view: FormatView | None
    next: RoundPlanned | None

    def text(self) -> str:
        """``round 2 of 5 played; first: x (1.750); round 3 planned: 30 games, y sits out``."""
        line = f"round {self.number + 1} of {self.rounds} played"
        view = self.view
        if view is not None and view.standings:
            lead = view.standings[-1][0]
            line += f"; first: {printable(lead.entrant)} ({lead.score:.3f})"
        elif view is not None and len(view.bracket) > self.number:
            played = view.bracket[self.number]
            if played.final:
                line += f"; winner: {printable(played.tables[0].scores[0].entrant)}"
            else:
                on = [s.entrant for t in played.tables for s in t.scores[: t.going_on]]
                line += f"; going on: {printable(', '.join([*played.byes, *on]))}"
        if self.next is not None:
            line += f"; round {self.next.number + 1} planned: {self.next.games} games"
            if self.next.byes:
                line += f", sitting out: {printable(', '.join(self.next.byes))}"
        return line


def run_tournament(
    store: Store,
    prepared: PreparedRun,
    progress: Callable[[Progress], None] | None = None,
    *,
    workers: Workers | None = None,
    go_on: GoOn | None = None,
    on_round: Callable[[RoundDone], None] | None = None,
) -> RunSummary:
    """Play the prepared tournament's pending games, recording each as it finishes (on the
    kept ``workers`` if given: ``tournaments.run.runner.Workers``; else on workers started
    once for the whole call). A tournament played in rounds plays round after round, planning
    each when the one before is complete (``on_round`` is told of each).

    Raises Interrupted on Ctrl-C and ClusterError when the cluster is lost, each saying what
    is kept and how to go on (``go_on``; by default, how many games are recorded and
    ``arena tournament run ID``): finished games are never lost."""
    tid = prepared.tid
    go_on = go_on or GoOn(command=f"arena tournament run {tid}")

    def kept() -> str:
        if go_on.kept is not None:
            return go_on.kept
        info = store.tournament(tid)
        return f"{info.games_done}/{info.games_total} games are recorded"

    try:
        with Workers() as own:
            kept_workers = workers if workers is not None else own
            summary = _played(store, prepared, progress, kept_workers)
            while not summary.failed:
                planned = plan_next_round(store, tid)
                if on_round is not None:
                    _tell_round(store, tid, planned, summary, on_round)
                if planned is None:
                    break
                summary = _joined(summary, _played(store, prepared, progress, kept_workers))
            return summary
    except KeyboardInterrupt:
        raise Interrupted(
            f"interrupted: {kept()}; run `{go_on.command}` again to {go_on.then}"
        ) from None
    except ClusterLost as exc:
        raise ClusterError(
            f"{exc}; {kept()}: run `{go_on.command} --cluster ADDRESS` again to {go_on.then}"
        ) from None


def _tell_round(
    store: Store,
    tid: int,
    planned: RoundPlanned | None,
    summary: RunSummary,
    on_round: Callable[[RoundDone], None],
) -> None:
    """Tell ``on_round`` of the round just completed: the one before ``planned``, or the last
    once the tournament is done (if this run played any of it)."""
    info = store.tournament(tid)
    rounds = info.spec.rounds or 0
    if not info.spec.kind.in_rounds:
        return
    if planned is None and not (info.status is TournamentStatus.DONE and summary.played):
        return
    on_round(
        RoundDone(
            tid=tid,
            number=planned.number - 1 if planned is not None else rounds - 1,
            rounds=rounds,
            view=format_view(store, info),
            next=planned,
        )
    )


def _played(
    store: Store,
    prepared: PreparedRun,
    progress: Callable[[Progress], None] | None,
    workers: Workers,
) -> RunSummary:
    return run(
        store,
        prepared.tid,
        prepared.config,
        jobs=prepared.jobs,
        progress=progress,
        cluster=prepared.cluster,
        workers=workers,
    )


def _joined(before: RunSummary, then: RunSummary) -> RunSummary:
    """Two runs' summaries as one (the rounds of one ``run_tournament``)."""
    return replace(
        then,
        played=before.played + then.played,
        elapsed_s=before.elapsed_s + then.elapsed_s,
        play_ms=before.play_ms + then.play_ms,
        processes_started=before.processes_started + then.processes_started,
        phases=before.phases + then.phases,
    )


# -- matches ----------------------------------------------------------------------------------


def games_of(catalogue: Catalogue, name: str) -> tuple[str, ...]:
    """The games a bot claims (``*``: any); a registered bot comes before a bundled one."""
    if name in catalogue.registered:
        return catalogue.registered[name].games
    return bundled_bots().get(name, ())


@dataclass(frozen=True, kw_only=True)
class PlannedMatch:
    """A match just planned, the bots registered for it (``notes``, one line each) and what
    its creator should be warned of."""

    match: MatchInfo
    notes: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


def plan_match(
    store: Store,
    *,
    new: str,
    base: str,
    game_name: str | None,
    fill: str,
    table_size: int | None,
    max_games: int,
    seed: int | None,
    options: dict,
    move_ms: int,
    config: SprtConfig,
    faults: FaultLimit | None = None,
    sandbox: SandboxMode = SandboxMode.AUTO,
    deals: DealMode = DealMode.DUPLICATE,
) -> PlannedMatch:
    """Check the match's bots and write its plan: NEW, BASE and fillers at one table, as many
    whole deals as fit in ``max_games`` games. NEW and BASE are SPECs
    (``tournaments.catalogue.targets``): a folder or a command line is registered first, after
    ``arena bot add``'s check (in the sandbox ``sandbox``, at ``move_ms``). Without
    ``game_name``, the one game both claim to play. Raises UsageProblem for a match that
    cannot be played as asked and BotCheckError for a bot that fails its check (no match is
    written). A match plays duplicate deals only (``deals`` independent: UsageProblem)."""
    if deals is not DealMode.DUPLICATE:
        raise UsageProblem(MATCH_DEALS)
    if new == base:
        raise UsageProblem(
            f"NEW and BASE are the same bot ({new!r}): a match compares two different bots"
        )
    # imported here: registering a bot loads the entry check, which no other use case needs
    from tournaments.catalogue.targets import common_game, match_bot

    game = get_game(game_name or common_game(store, (new, base)))
    k = table_size or max(2, game.min_players)
    if not game.min_players <= k <= game.max_players:
        raise UsageProblem(
            f"{game.name} takes {game.min_players}-{game.max_players} players, not a table of {k}"
        )
    fillers = [name.strip() for name in fill.split(",") if name.strip()]
    if k > 2 and not fillers:
        raise UsageProblem("--fill names the bots that fill the other seats")
    told: list[str] = []
    names_ = []
    for text in (new, base):
        name, note = match_bot(store, text, game.name, sandbox=sandbox, move_ms=move_ms)
        names_.append(name)
        told += [note] if note else []
    if names_[0] == names_[1]:
        raise UsageProblem(
            f"NEW and BASE are the same bot ({names_[0]}): a match compares two different bots"
        )
    seated = [*names_, *[fillers[i % len(fillers)] for i in range(k - 2)]] if fillers else names_
    catalogue = Catalogue.of(store)
    for name in dict.fromkeys(seated):
        catalogue.lookup(name)  # unknown bots: one line
        if not plays(games_of(catalogue, name), game.name):
            raise UsageProblem(
                f"bot {name!r} does not play {game.name} (it plays "
                f"{', '.join(games_of(catalogue, name))})"
            )
    shape = TournamentSpec(
        game=game.name, bots=tuple(seated), table_size=k, kind=TournamentKind.MATCH
    )
    per_deal = seatings_per_deal(shape)
    if max_games < per_deal:
        raise UsageProblem(f"--games {max_games} holds no deal: a deal is {per_deal} games")
    created = create_tournament(
        store,
        game_name=game.name,
        bots=seated,
        table_size=k,
        repetitions=max_games // per_deal,
        seed=seed,
        options=options,
        move_ms=move_ms,
        kind=TournamentKind.MATCH,
    )
    labels = [e.name for e in created.info.entrants]
    match = MatchInfo(
        tid=created.tid,
        new=labels[0],
        base=labels[1],
        config=config,
        games_per_deal=per_deal,
        faults=faults or FaultLimit(),
    )
    store.set_sprt(created.tid, match.to_data())
    return PlannedMatch(match=match, notes=tuple(told), warnings=created.warnings)


def run_match(
    store: Store,
    match: MatchInfo,
    prepared: PreparedRun,
    on_status: Callable[[MatchProgress], None] | None = None,
) -> MatchStatus:
    """Play match ``match`` (prepared by ``prepare_run(..., matches=True)``) until it is decided
    (its SPRT, or NEW's or BASE's faults) or its games run out; the final status. Raises
    Interrupted on Ctrl-C (the finished games are kept)."""
    try:
        return play_match_sprt(
            store,
            match,
            prepared.config,
            jobs=prepared.jobs,
            on_status=on_status,
        )
    except KeyboardInterrupt:
        raise Interrupted(f"interrupted: go on with `arena match --resume {match.tid}`") from None
