"""``arena ladder``: standing ladders -- create, submit, run, show, invite, serve uploads."""

from __future__ import annotations

from pathlib import Path

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
from arena.cli.safety import accept_unsandboxed_option, run_options, sandbox_option
from arena.cli.storage import db_option, db_path_option
from arena.text import printable
from tournaments.ladder import service
from tournaments.ladder.report import board_text, ladders_text
from tournaments.ladder.submissions import BUDGET_S, CHECKERS
from tournaments.service import RunOptions, SandboxMode
from tournaments.store.facts import Store, resolve_db_path
from tournaments.store.ladder_values import LadderDeals, LadderSettings


@click.group()
def ladder() -> None:
    """Standing ladders: submit bots at any time, matchmaking, live skill ratings."""


@ladder.command()
@click.argument("name")
@click.option("--game", "game_name", required=True, metavar="GAME", help="The game to play.")
@click.option(
    "--table-sizes",
    default=None,
    metavar="N|MIN-MAX",
    help="Players per table, e.g. 4 or 3-5 (default: the game's smallest table of 3 or more).",
)
@game_option
@move_time_option
@click.option(
    "--batch-games",
    type=click.IntRange(2, 100_000),
    default=LadderSettings.batch_games,
    show_default=True,
    help="Games per matchmaking batch (each batch is planned from the skills so far): "
    "smaller batches give quicker feedback, fewer games a second (docs/ladder.md).",
)
@click.option(
    "--placement-games",
    type=click.IntRange(0, 10_000),
    default=LadderSettings.placement_games,
    show_default=True,
    help="A version with fewer games is in placement: seated first, at more tables.",
)
@click.option(
    "--fault-limit",
    type=click.IntRange(1, 1000),
    default=LadderSettings.fault_limit,
    show_default=True,
    help=f"Suspend a version with faults in this many of its last "
    f"{LadderSettings.fault_window} games.",
)
@click.option(
    "--no-inherit",
    is_flag=True,
    help="A new version starts from scratch rather than from its predecessor's skill.",
)
@click.option(
    "--deals",
    type=click.Choice([mode.value for mode in LadderDeals]),
    default=LadderSettings.deals.value,
    show_default=True,
    help="Every rotation of a table on one deal (duplicate), each game its own deal "
    "(independent: nothing to pool, where entrants are strangers), or auto: independent once "
    "the ladder has an uploaded bot (docs/ladder.md).",
)
@json_option()
@db_option
def create(
    name: str,
    game_name: str,
    table_sizes: str | None,
    options: tuple[str, ...],
    move_ms: int,
    batch_games: int,
    placement_games: int,
    fault_limit: int,
    no_inherit: bool,
    deals: str,
    as_json: bool,
    store: Store,
) -> None:
    """Create ladder NAME for a game."""
    info = service.create_ladder(
        store,
        name=name,
        game_name=game_name,
        table_sizes=table_sizes,
        options=parse_options(options),
        move_ms=move_ms,
        settings=LadderSettings(
            batch_games=batch_games,
            placement_games=placement_games,
            fault_limit=min(fault_limit, LadderSettings.fault_window),
            inherit=not no_inherit,
            deals=LadderDeals(deals),
        ),
    )
    if as_json:
        echo_json(info.to_dict())
        return
    click.echo(
        f"created ladder {info.name}: {info.game}, tables of {info.sizes_text()}, "
        f"{info.settings.deals} deals; enter bots "
        f"with `arena ladder submit {info.name} BOT`, play with `arena ladder run {info.name}`"
    )


@ladder.command()
@click.argument("name")
@click.argument("target", metavar="BOT|FOLDER")
@click.option(
    "--participant",
    default=None,
    help="Whose bot it is (default: the bot's own name). No two bots of one participant "
    "sit at one table.",
)
@click.option(
    "--to",
    "url",
    default=None,
    metavar="URL",
    help="Send FOLDER to the upload server at URL (`arena ladder serve`) instead.",
)
@click.option("--token", default=None, envvar="ARENA_LADDER_TOKEN", help="Your upload token.")
@json_option()
@sandbox_option
@db_path_option()
def submit(
    name: str,
    target: str,
    participant: str | None,
    url: str | None,
    token: str | None,
    as_json: bool,
    sandbox: SandboxMode,
    db_path: str | None,
) -> None:
    """Enter a bot into ladder NAME: a registered or bundled bot, or a folder with a bot.toml
    (copied and checked first). A new version of a bot replaces the old one in play.

    \b
    arena ladder submit NAME mybot                        here, a registered bot
    arena ladder submit NAME path/to/folder               here, a folder bot
    arena ladder submit NAME folder --to URL --token T    to an upload server
    """
    if url is not None:
        _send(name, target, url, token, as_json)
        return
    with Store.open(resolve_db_path(db_path)) as store:
        done = service.submit(store, name, target, participant=participant, sandbox=sandbox)
    if as_json:
        echo_json(
            {
                "entry": done.entry.to_dict(),
                "unchanged": done.unchanged,
                "replaced": done.replaced.to_dict() if done.replaced else None,
                "report": done.report.to_dict() if done.report else None,
            }
        )
        return
    if done.report is not None:
        for line in done.report.lines()[1:]:
            click.echo(line)
    click.echo(printable(done.message))


def _send(name: str, target: str, url: str, token: str | None, as_json: bool) -> None:
    from tournaments.ladder.client import send_folder

    if not token:
        raise click.UsageError("--to needs --token (or $ARENA_LADDER_TOKEN): ask the organiser")
    folder = Path(target)
    if not folder.is_dir():
        raise click.UsageError(f"{target!r} is not a folder: --to sends a folder bot")

    said: list[str] = []

    def waiting(answer: dict) -> None:
        line = printable(str(answer.get("message") or answer.get("state")))
        if not as_json and line not in said[-1:]:
            said.append(line)
            click.echo(line, err=True)

    sent = send_folder(url, name, token, folder, waiting)
    if as_json:
        echo_json(sent.body)
    else:
        for line in sent.body.get("report_lines") or []:
            click.echo(printable(str(line)))
        click.echo(printable(str(sent.body.get("message") or sent.body.get("error") or "")))
    if not sent.accepted:
        raise SystemExit(1)


@ladder.command("run")
@click.argument("name")
@jobs_option()
@games_per_worker_option
@click.option(
    "--games",
    "until_games",
    type=click.IntRange(1, 1 << 40),
    default=None,
    help="Stop once the ladder holds this many games (default: play until stopped).",
)
@click.option(
    "--cluster",
    metavar="tcp://HOST:PORT",
    envvar="ARENA_CLUSTER",
    default=None,
    help="Play each batch on this Dask scheduler's workers (docs/cluster.md).",
)
@accept_unsandboxed_option
@click.option("--quiet", "-q", is_flag=True, help="No progress bar; a line per batch.")
@run_options
@db_option
def run_command(
    name: str,
    jobs: int,
    games_per_worker: int | None,
    until_games: int | None,
    cluster: str | None,
    unsandboxed_accepted: bool,
    quiet: bool,
    store: Store,
    run_options: RunOptions,
) -> None:
    """Play ladder NAME batch after batch until stopped (Ctrl-C, or killed: run it again to
    go on; nothing finished is lost), rating every game."""

    def batch(done: service.BatchDone) -> None:
        s = done.summary
        rate = s.played / s.elapsed_s if s.elapsed_s > 0 else 0.0
        leader = f"; leader {printable(done.leader)}" if done.leader else ""
        click.echo(
            f"batch {done.number} (tournament {done.tid}): {s.played} games, {rate:.1f} "
            f"games/s{leader}",
            err=True,
        )
        for line in done.folded.suspended:
            click.echo(f"suspended {printable(line)}", err=True)

    def waiting(text: str) -> None:
        click.echo(text, err=True)

    result = service.run_ladder(
        store,
        name,
        run_options,
        jobs=jobs,
        games_per_worker=games_per_worker,
        cluster=cluster,
        unsandboxed_accepted=unsandboxed_accepted,
        until_games=until_games,
        on_batch=batch,
        on_wait=waiting,
        progress=None if quiet else ProgressBar(),
    )
    for line in result.warnings:
        click.echo(f"warning: {printable(line)}", err=True)
    board = service.leaderboard(store, name)
    click.echo(board_text(board, service.run_state(store, board.ladder)))


@ladder.command()
@click.argument("name", required=False)
@json_option()
@click.option("--no-elo", is_flag=True, help="Leave out the batch Elo (quicker on big ladders).")
@db_option
def show(name: str | None, as_json: bool, no_elo: bool, store: Store) -> None:
    """The leaderboard of ladder NAME (without NAME: the ladders)."""
    if name is None:
        ladders = service.ladders_overview(store)
        if as_json:
            echo_json(ladders)
        else:
            click.echo(ladders_text(ladders))
        return
    board = service.leaderboard(store, name, elo=not no_elo)
    run = service.run_state(store, board.ladder)
    if as_json:
        echo_json(board.to_dict() | {"run": run})
    else:
        click.echo(board_text(board, run))


@ladder.command()
@click.argument("participant")
@click.option("--revoke", is_flag=True, help="Stop the participant's token working.")
@db_option
def invite(participant: str, revoke: bool, store: Store) -> None:
    """Print a new upload token for PARTICIPANT (shown once; only its hash is kept, in the
    key file beside the database). An older token of theirs stops working."""
    if revoke:
        found = service.revoke(store, participant)
        click.echo(
            f"revoked {printable(participant)}'s token"
            if found
            else f"{printable(participant)} had no token"
        )
        return
    token = service.invite(store, participant)
    click.echo(f"# upload token of {printable(participant)} (shown once)", err=True)
    click.echo(token)


@ladder.command()
@click.argument("name")
@db_option
def rebuild(name: str, store: Store) -> None:
    """Recompute ladder NAME's skills from its stored games (the same values, from scratch)."""
    games = service.rebuild_skills(store, name)
    click.echo(f"rebuilt the skills of ladder {name} from its games ({games} seats rated)")


@ladder.command()
@db_path_option()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port", type=click.IntRange(0, 65535), default=8001, show_default=True, help="Port."
)
@click.option(
    "--checks",
    type=click.IntRange(1, 64),
    default=CHECKERS,
    show_default=True,
    help="Entry checks run at once (each of another participant; the others wait in turn).",
)
@click.option(
    "--check-time",
    type=click.FloatRange(1, 86_400),
    default=BUDGET_S,
    show_default=True,
    metavar="SECONDS",
    help="The time budget of one entry check: a bot whose check takes longer is refused.",
)
def serve(db_path: str | None, host: str, port: int, checks: int, check_time: float) -> None:
    """Accept uploads from invited participants (a web form and POST
    /api/ladders/NAME/submissions), and show the ladders' pages. Each upload is answered at
    once, unpacked safely, checked in the sandbox (participants in turn, each check within
    --check-time), and enters only if it passes."""
    import uvicorn

    from arena.web.uploads import create_upload_app

    path = resolve_db_path(db_path)
    app = create_upload_app(path, checkers=checks, budget_s=check_time)
    shown = "[" + host + "]" if ":" in host else host
    click.echo(f"accepting uploads to the ladders of {path} at http://{shown}:{port}/ladders")
    uvicorn.run(app, host=host, port=port, log_level="warning")
