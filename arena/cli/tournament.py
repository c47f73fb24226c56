"""``arena tournament``: create (plan), run, cancel, list and show tournaments: round robins,
gauntlets, balanced tournaments, Swiss rounds and knockouts."""

from __future__ import annotations

from collections.abc import Iterable

import click

from arena.cli.common import (
    echo_json,
    game_option,
    games_per_worker_option,
    jobs_option,
    json_option,
    move_time_option,
    parse_options,
)
from arena.cli.progress import ProgressBar
from arena.cli.safety import accept_unsandboxed_option, deals_option, run_options
from arena.cli.storage import db_option
from arena.text import printable
from tournaments import published, reports, service
from tournaments.errors import PlanError
from tournaments.reports import format_table
from tournaments.service import DealMode, FormatView, RunOptions, TournamentKind
from tournaments.store import game_lists
from tournaments.store.facts import Store


@click.group()
def tournament() -> None:
    """Plan, run and inspect tournaments: round robins, gauntlets, balanced, Swiss, knockouts.

    Large fields (balanced tournaments, Swiss rounds, knockouts): docs/formats.md."""


#: The formats chosen by a setting of their own.
FORMATS = (TournamentKind.BALANCED, TournamentKind.SWISS, TournamentKind.KNOCKOUT)


def split_bots(text: str, copies: int) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise click.BadParameter("name at least one bot", param_hint="--bots")
    return [name for name in names for _ in range(copies)]


@tournament.command()
@click.option("--game", "game_name", required=True, metavar="GAME", help="The game to play.")
@click.option(
    "--bots",
    required=True,
    metavar="A,B,...",
    help="Comma-separated bots (bundled or registered); a name may repeat.",
)
@click.option(
    "--table-size",
    type=click.IntRange(2, 64),
    default=None,
    help="Players per game (default: as many as fit, within the game's range).",
)
@click.option(
    "--format",
    "kind",
    type=click.Choice(
        [k.value for k in (TournamentKind.ROUND_ROBIN, *FORMATS)], case_sensitive=False
    ),
    default=None,
    help="How tables are chosen: every k-subset (round-robin, the default), N tables each "
    "(balanced), round by round from the standings (swiss), or the best of each table going "
    "on (knockout). See docs/formats.md.",
)
@click.option(
    "--repetitions",
    type=click.IntRange(1, 100_000),
    default=None,
    help="Repetitions of the whole plan, each with fresh deals (default 1); in a Swiss "
    "tournament or a knockout, the deals each table of a round plays.",
)
@click.option(
    "--rounds",
    type=click.IntRange(1, 100_000),
    default=None,
    help="A Swiss tournament's rounds; in other formats an old name for --repetitions.",
)
@click.option(
    "--tables-per-entrant",
    "per_entrant",
    type=click.IntRange(1, 100_000),
    default=None,
    metavar="N",
    help="A balanced tournament: each entrant sits at N tables (N + 1 for a few when the "
    "seats do not divide), every pair meeting as evenly as the sizes allow. Implies "
    "--format balanced.",
)
@click.option(
    "--advance",
    type=click.IntRange(1, 63),
    default=None,
    metavar="M",
    help="A knockout: the best M of each table go on to the next round, until one table is "
    "left. Implies --format knockout.",
)
@click.option(
    "--copies",
    type=click.IntRange(1, 64),
    default=1,
    show_default=True,
    help="Enter every bot this many times (for tables larger than the bot list).",
)
@click.option(
    "--seed",
    type=int,
    default=None,
    help="Tournament seed (default: random). Deals come from it and the "
    "tournament's own secret key: a new tournament gets new deals.",
)
@game_option
@move_time_option
@click.option(
    "--gauntlet",
    default=None,
    metavar="BOT",
    help="A gauntlet: every table holds BOT, which meets the --bots (not listed "
    "there itself); the rest is planned as a round robin.",
)
@deals_option()
@json_option()
@db_option
def create(
    game_name: str,
    bots: str,
    table_size: int | None,
    kind: str | None,
    repetitions: int | None,
    rounds: int | None,
    per_entrant: int | None,
    advance: int | None,
    copies: int,
    seed: int | None,
    options: tuple[str, ...],
    move_ms: int,
    gauntlet: str | None,
    deals: DealMode,
    as_json: bool,
    store: Store,
) -> None:
    """Plan a tournament: every table, seat rotation and deal, written before any play (a
    Swiss tournament's or a knockout's first round: each later round is planned from the
    results when the one before is complete)."""
    chosen = tournament_format(kind, per_entrant=per_entrant, advance=advance)
    if chosen is TournamentKind.SWISS:
        if rounds is None:
            raise click.UsageError("a Swiss tournament needs --rounds R")
        swiss_rounds, repetitions = rounds, repetitions or 1
    else:
        if rounds is not None and repetitions not in (None, rounds):
            raise click.UsageError("--rounds is --repetitions here: give one of them")
        swiss_rounds, repetitions = None, repetitions or rounds or 1
    entrants = split_bots(bots, copies)
    if gauntlet is not None:
        gauntlet = gauntlet.strip()
        if gauntlet in entrants:
            raise click.UsageError(
                f"{gauntlet!r} is the gauntlet's bot: list only its opponents in --bots"
            )
        entrants = [gauntlet, *entrants]
    created = service.create_tournament(
        store,
        game_name=game_name,
        bots=entrants,
        table_size=table_size,
        repetitions=repetitions,
        seed=seed,
        options=parse_options(options),
        move_ms=move_ms,
        gauntlet=gauntlet,
        kind=chosen,
        per_entrant=per_entrant,
        rounds=swiss_rounds,
        advance=advance,
        deals=deals,
    )
    warn(created.warnings)
    tid, info = created.tid, created.info
    if as_json:
        echo_json(info.to_dict())
    else:
        click.echo(
            f"created tournament {tid}: {info.games_total} games "
            f"({info.spec.game}, {len(info.entrants)} entrants, tables of "
            f"{info.spec.table_size}{reports.format_words(info.spec)}, {info.spec.deals} deals); "
            "run it with "
            f"`arena tournament run {tid}`"
        )
        echo_format(created.view)


def tournament_format(
    kind: str | None, *, per_entrant: int | None, advance: int | None
) -> TournamentKind:
    """The format asked for: ``--format``, or the one ``--tables-per-entrant`` or
    ``--advance`` implies; two that disagree are a usage error."""
    implied = [
        format_
        for format_, given in (
            (TournamentKind.BALANCED, per_entrant),
            (TournamentKind.KNOCKOUT, advance),
        )
        if given is not None
    ]
    flags = {TournamentKind.BALANCED: "--tables-per-entrant", TournamentKind.KNOCKOUT: "--advance"}
    if len(implied) > 1:
        raise click.UsageError(
            "--tables-per-entrant (balanced) and --advance (knockout) belong to two formats"
        )
    chosen = TournamentKind(kind) if kind else (implied[0] if implied else None)
    if implied and implied[0] is not chosen:
        raise click.UsageError(
            f"{flags[implied[0]]} is a setting of a {implied[0].value} tournament, not of "
            f"a {chosen.value if chosen else 'round-robin'}"
        )
    return chosen or TournamentKind.ROUND_ROBIN


def warn(warnings: Iterable[str]) -> None:
    """What a use case says the user should know, one line each on stderr."""
    for line in warnings:
        click.echo(f"warning: {line}", err=True)


def play_pending(
    store: Store,
    tid: int,
    *,
    jobs: int,
    quiet: bool = False,
    options: RunOptions | None = None,
    games_per_worker: int | None = None,
    cluster: str | None = None,
    unsandboxed_accepted: bool = False,
) -> None:
    """Play tournament ``tid``'s pending games with a progress bar (``tournaments.service``:
    ``prepare_run``, ``run_tournament``); games that could not be played are listed."""
    prepared = service.prepare_run(
        store,
        tid,
        options,
        jobs=jobs,
        games_per_worker=games_per_worker,
        cluster=cluster,
        unsandboxed_accepted=unsandboxed_accepted,
    )
    warn(prepared.warnings)
    bar = ProgressBar(quiet=quiet)
    summary = service.run_tournament(
        store, prepared, bar, on_round=lambda done: bar.say(done.text())
    )
    if summary.failed:
        for line in summary.failed:
            click.echo(f"error: {line}", err=True)
        raise PlanError(f"{len(summary.failed)} game(s) could not be played; they stay pending")


@tournament.command("run")
@click.argument("tid", metavar="ID", type=int)
@jobs_option()
@games_per_worker_option
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@json_option("Print the final rankings as JSON.")
@click.option(
    "--cluster",
    metavar="tcp://HOST:PORT",
    envvar="ARENA_CLUSTER",
    default=None,
    help="Play the games on this Dask scheduler's workers, --jobs at once on each "
    "(docs/cluster.md). Env: ARENA_CLUSTER.",
)
@accept_unsandboxed_option
@run_options
@db_option
def run_command(
    tid: int,
    jobs: int,
    games_per_worker: int | None,
    quiet: bool,
    as_json: bool,
    cluster: str | None,
    unsandboxed_accepted: bool,
    store: Store,
    run_options: RunOptions,
) -> None:
    """Play the pending games of tournament ID, then print its rankings.

    Bot output goes to arena-logs/ next to the database (see `arena bot logs`); on a
    cluster, to each worker's own files. On a cluster --sandbox is required unless given:
    a worker's warning would go unseen, and an unsandboxed bot can reach the scheduler and
    through it run code on every worker; --sandbox auto or off there also needs
    --i-accept-bots-can-run-code-on-every-worker.
    """
    play_pending(
        store,
        tid,
        jobs=jobs,
        quiet=quiet or as_json,
        options=run_options,
        games_per_worker=games_per_worker,
        cluster=cluster,
        unsandboxed_accepted=unsandboxed_accepted,
    )
    rows = published.ranking_rows(store, tid)
    if as_json:
        echo_json(reports.rankings_json(rows))
    else:
        click.echo(reports.tournament_text(store.tournament(tid), rows))
        echo_format(published.format_view(store, tid))


def echo_format(view: FormatView | None) -> None:
    """What a tournament's format shows besides its rankings (balance, standings, bracket)."""
    if view is not None and view.text():
        click.echo("\n" + printable(view.text(), keep_lines=True))


@tournament.command("cancel")
@click.argument("tid", metavar="ID", type=int)
@db_option
def cancel_command(tid: int, store: Store) -> None:
    """Give up tournament ID for good (a round robin, gauntlet, match or ladder batch that
    cannot or will not be played to its end: a bot's planned code gone, say).

    Its games played are kept, with their ratings; the games it had not played are dropped,
    so it withholds nothing any more: its replays and its bots' logs are shown (a Swiss
    tournament or knockout plans no later round). A run of it still alive must be stopped
    first."""
    done = service.cancel_tournament(store, tid)
    click.echo(
        f"cancelled tournament {done.tid}: {done.kept} game(s) played are kept, "
        f"{done.dropped} never played are dropped; it withholds no replay or log any more"
    )


@tournament.command("list")
@json_option()
@db_option
def list_command(as_json: bool, store: Store) -> None:
    """List the tournaments in the database."""
    if as_json:
        echo_json(published.tournaments_data(store))
        return
    infos = store.list_tournaments()
    if not infos:
        click.echo("no tournaments yet; create one with `arena tournament create`")
    else:
        click.echo(reports.tournaments_table(infos))


@tournament.command()
@click.argument("tid", metavar="ID", type=int)
@json_option()
@db_option
def show(tid: int, as_json: bool, store: Store) -> None:
    """Show a tournament: its plan, progress, faults and rankings."""
    if as_json:
        echo_json(published.tournament_data(store, tid))
        return
    info = store.tournament(tid)
    rows = published.ranking_rows(store, tid)
    faults = published.fault_summary(store, tid)
    click.echo(reports.tournament_text(info, rows))
    echo_format(published.format_view(store, tid))
    match = service.match_summary(store, tid)
    if match is not None:
        click.echo(f"match      {printable(service.summary_line(match))}")
    if faults:
        click.echo("\nfaults")
        click.echo(
            format_table(
                ["entrant", "kind", "count"],
                [[f["entrant"], f["kind"], f["count"]] for f in faults],
                align="llr",
            )
        )


@tournament.command("games")
@click.argument("tid", metavar="ID", type=int)
@click.option("--entrant", default=None, metavar="NAME", help="Only this entrant's games.")
@click.option("--faults", "only_faults", is_flag=True, help="Only games with a fault.")
@json_option()
@db_option
def games_command(
    tid: int, entrant: str | None, only_faults: bool, as_json: bool, store: Store
) -> None:
    """List the games of tournament ID: id, repetition, table, rotation, seats, places and
    faults (by seat and kind). `arena replay GAME_ID` shows one; `arena bot logs NAME --game
    GAME_ID` what a bot wrote during it."""
    games = game_lists.games_list(store, tid, entrant=entrant, faults=only_faults)
    if as_json:
        echo_json(games)
        return
    if not games:
        click.echo("no games" + (" with a fault" if only_faults else ""))
        return
    rows = []
    for game in games:
        places = game["places"]
        seats = [
            f"{seat}:{name}" + (f"={places[seat]}" if places else "")
            for seat, name in enumerate(game["seating"])
        ]
        faults = [f"{f['seat']}:{f['kind']}×{f['count']}" for f in game["faults"]]
        if game["forfeits"]:
            faults.append("forfeit " + ",".join(str(s) for s in game["forfeits"]))
        rows.append(
            [
                game["id"],
                game["repetition"],
                game["table"],
                game["rotation"],
                game["status"],
                printable(" ".join(seats)),
                " ".join(faults) or "-",
            ]
        )
    click.echo(
        format_table(
            ["game", "rep", "table", "rot", "status", "seat:entrant=place", "faults (seat:kind)"],
            rows,
            align="rrrrlll",
        )
    )
