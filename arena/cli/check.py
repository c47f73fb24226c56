"""``arena bot check SPEC``: the compliance suite (``tournaments.compliance``) for any bot."""

from __future__ import annotations

import shlex
import shutil
import tempfile
from pathlib import Path

import click

from arena.cli.common import echo_json, move_time_option
from arena.cli.safety import sandbox_option
from arena.games import names
from arena.procs.botproc import BotSpec
from arena.procs.sandbox import SandboxMode
from tournaments.catalogue import Catalogue, bundled_bots
from tournaments.compliance import run_checks
from tournaments.registry import MANIFEST, load_manifest
from tournaments.service import sandbox_for
from tournaments.store import resolve_db_path


def check_target(words: tuple[str, ...], catalogue: Catalogue) -> tuple[BotSpec, tuple[str, ...]]:
    """The bot a SPEC names and the games it claims (none known: every game).

    SPEC is a bundled or registered bot's name, a folder with a ``bot.toml``, or a command
    line (one quoted word, or the words after ``--``)."""
    if not words:
        raise click.UsageError(
            "name a bot: a bundled or registered bot, a folder with a "
            f"{MANIFEST}, or a command line"
        )
    text = words[0] if len(words) == 1 else shlex.join(words)
    folder = Path(text)
    if len(words) == 1 and folder.is_dir():
        manifest = load_manifest(folder)
        spec = BotSpec(
            name=manifest.name, argv=tuple(shlex.split(manifest.command)), cwd=str(manifest.folder)
        )
        return spec, manifest.games
    registered = catalogue.registered
    if (
        text.isidentifier()
        and text not in registered
        and text not in bundled_bots()
        and shutil.which(text)
    ):
        return BotSpec(name=text, argv=(text,)), ()  # a program on the PATH: `cat`
    spec = catalogue.resolve(text)
    if spec.remote:
        raise click.UsageError(
            f"{spec.name!r} is a remote bot: check it where it runs, as a command line"
        )
    claimed = bundled_bots().get(text, ())
    if text in registered:
        claimed = registered[text].games
    return spec, tuple(claimed)


@click.command("check", context_settings={"ignore_unknown_options": True})
@click.argument("spec", nargs=-1, type=click.UNPROCESSED, metavar="SPEC")
@click.option(
    "--game",
    "games",
    multiple=True,
    metavar="GAME",
    help="A game to check (repeatable). Default: the games the bot claims, else every game.",
)
@click.option(
    "--games",
    "per_game",
    type=click.IntRange(1, 1000),
    default=4,
    show_default=True,
    help="Games of each game played under the referee.",
)
@move_time_option
@click.option(
    "--startup-time",
    "startup_ms",
    type=click.IntRange(100, 600_000),
    default=10_000,
    show_default=True,
    help="Milliseconds the bot has to start and say hello.",
)
@click.option("--seed", type=int, default=None, help="Seed of the deals (default: random).")
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
@sandbox_option
@click.option(
    "--db",
    "db_path",
    default=None,
    metavar="PATH",
    help="Database of registered bots (default: $ARENA_DB, else ./arena.db).",
)
def check(
    spec: tuple[str, ...],
    games: tuple[str, ...],
    per_game: int,
    move_ms: int,
    startup_ms: int,
    seed: int | None,
    as_json: bool,
    sandbox: SandboxMode,
    db_path: str | None,
) -> None:
    """Check that a bot speaks the protocol: a line per check, exit status 1 if any fails.

    \b
    arena bot check mybot                       a registered or bundled bot
    arena bot check path/to/folder              a folder with a bot.toml
    arena bot check --game skull -- node bot.js  a command line

    It starts one process of the bot, checks its hello, plays a first game turn by turn
    (game and request ids, a 63-bit seed), then --games games of each game against random
    bots at every table size and seat (legal actions, well-formed messages, deadlines, game
    after game in one process, latency percentiles), then, for a bot whose hello says
    max_games > 1, a few games at once with their turns waiting together, and finally says bye.
    """
    db = resolve_db_path(db_path)
    catalogue = Catalogue.at(db)
    bot, claimed = check_target(spec, catalogue)
    chosen = games or tuple(g for g in claimed if g != "*") or tuple(names())
    unknown = [g for g in chosen if g not in names()]
    if unknown:
        raise click.UsageError(
            f"unknown game(s) {', '.join(unknown)} (games: {', '.join(names())})"
        )
    log_dir = Path(tempfile.mkdtemp(prefix="arena-check-"))
    if not as_json:
        click.echo(f"checking {bot.name} ({', '.join(chosen)})...", err=True)
    report = run_checks(
        bot,
        chosen,
        per_game=per_game,
        move_ms=move_ms,
        startup_ms=startup_ms,
        seed=seed,
        log_dir=log_dir,
        sandbox=sandbox_for(sandbox, db, catalogue.folders()),
    )
    if as_json:
        echo_json(report.to_dict())
    else:
        for line in report.lines()[1:]:
            click.echo(line)
    if not report.passed:
        raise SystemExit(1)
