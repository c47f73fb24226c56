"""``arena bot check SPEC``: the compliance suite for any bot (``tournaments.bots.check``)."""

from __future__ import annotations

import click

from arena.cli.common import echo_json, json_option, move_time_option
from arena.cli.safety import sandbox_option
from arena.cli.storage import db_path_option
from tournaments import bots
from tournaments.service import SandboxMode
from tournaments.store.facts import resolve_db_path


def parse_sizes(text: str | None) -> list[int] | None:
    """``--table-sizes 3,5-6`` as [3, 5, 6] (None: every size)."""
    if text is None:
        return None
    sizes: set[int] = set()
    for word in text.replace(" ", "").split(","):
        low, dash, high = word.partition("-")
        try:
            first, last = int(low), int(high if dash else low)
        except ValueError:
            raise click.BadParameter(
                f"{word!r} is not a size or a range (e.g. 3,5-6)", param_hint="--table-sizes"
            ) from None
        if not 1 <= first <= last <= 64:
            raise click.BadParameter(
                f"{word!r}: sizes run from 1 to 64", param_hint="--table-sizes"
            )
        sizes.update(range(first, last + 1))
    return sorted(sizes)


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
    type=click.IntRange(0, 1000),
    default=0,
    help="Games of each game at least (default: one per table size and seat).",
)
@click.option(
    "--table-sizes",
    "table_sizes",
    default=None,
    metavar="N,M-K",
    help="Only these table sizes (default: every size each game allows), e.g. 3,5-6.",
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
@json_option()
@sandbox_option
@db_path_option("Database of registered bots (default: $ARENA_DB, else ./arena.db).")
def check(
    spec: tuple[str, ...],
    games: tuple[str, ...],
    per_game: int,
    table_sizes: str | None,
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

    It starts one process of the bot and checks its hello (a refused hello is reported with
    the arena's answer), plays a first game (game and request ids it cannot guess, a 63-bit
    seed), then every table size each game allows in every seat, at least once, the other
    seats played at random (legal actions, well-formed messages, deadlines, game after game
    in one process, latency percentiles), then, for a bot whose hello says max_games > 1, a
    few games at once with their turns waiting together, and finally says bye. It says
    which table sizes and seats it covered.
    """
    request = bots.check_request(spec, games=games, db_path=resolve_db_path(db_path))
    if request.problem is not None:
        raise click.UsageError(request.problem)
    sizes = parse_sizes(table_sizes)
    if not as_json:
        click.echo(f"checking {request.spec.name} ({', '.join(request.games)})...", err=True)
    report = bots.check(
        request,
        per_game=per_game,
        table_sizes=sizes,
        move_ms=move_ms,
        startup_ms=startup_ms,
        seed=seed,
        sandbox=sandbox,
    )
    if as_json:
        echo_json(report.to_dict())
    else:
        for line in report.lines()[1:]:
            click.echo(line)
    if not report.passed:
        raise SystemExit(1)
