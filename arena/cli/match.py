"""``arena match NEW BASE``: is NEW stronger than BASE? A match stopped by an SPRT.

Exit status 0: H1 accepted (NEW is stronger by ``elo1`` rather than ``elo0``); 1: H0
accepted; 2: no decision within ``--games``. Bad input (the same bot twice, a game a bot does
not play, impossible SPRT bounds) is one line on stderr.
"""

from __future__ import annotations

import sys

import click

from arena.cli.common import (
    echo_json,
    game_option,
    games_per_worker_option,
    jobs_option,
    move_time_option,
    parse_options,
)
from arena.cli.safety import run_options
from arena.cli.storage import db_option
from arena.cli.tournament import warn
from tournaments import service
from tournaments.matches import MatchInfo, match_info
from tournaments.service import RunOptions
from tournaments.sprt import Decision, SprtConfig, SprtError, SprtStatus
from tournaments.store import Store

EXIT = {Decision.H1: 0, Decision.H0: 1, Decision.CONTINUE: 2}
SPRT_KEYS = ("elo0", "elo1", "alpha", "beta")


def split_words(args: tuple[str, ...], sprt: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """The bots among the arguments, and the SPRT settings: ``--sprt elo0=0 elo1=10 ...``
    leaves all but the first setting among the arguments, and ``--sprt "elo0=0 elo1=10"``
    gives them in one word."""
    settings = [word for text in sprt for word in text.replace(",", " ").split()]
    bots = []
    for word in args:
        if "=" in word and word.partition("=")[0].strip() in SPRT_KEYS:
            settings.append(word)
        else:
            bots.append(word)
    return bots, settings


class LiveLine:
    """The SPRT's state on stderr: one line rewritten on a terminal, else a line now and
    then (every ``every`` deals)."""

    def __init__(self, *, quiet: bool, every: int = 25) -> None:
        self.quiet = quiet
        self.tty = sys.stderr.isatty()
        self.every = every

    def __call__(self, state: SprtStatus) -> None:
        if self.quiet or state.deals == 0:
            return
        if self.tty:
            click.echo("\r" + state.line() + "   ", nl=False, err=True)
        elif state.deals % self.every == 0:
            click.echo(state.line(), err=True)

    def done(self) -> None:
        if self.tty and not self.quiet:
            click.echo("", err=True)


@click.command("match", context_settings={"ignore_unknown_options": False})
@click.argument("bots", nargs=-1, metavar="NEW BASE")
@click.option("--game", "game_name", metavar="GAME", help="The game to play.")
@click.option(
    "--sprt",
    multiple=True,
    metavar="elo0=0 elo1=10 alpha=0.05 beta=0.05",
    help="The SPRT's hypotheses (logistic Elo of NEW over BASE) and error rates.",
)
@click.option(
    "--games",
    "max_games",
    type=click.IntRange(1, 4_000_000),
    default=20_000,
    show_default=True,
    help="Stop without a decision after this many games.",
)
@click.option(
    "--fill",
    default="random",
    show_default=True,
    metavar="random|BOT,...",
    help="Bots in the other seats of tables larger than two.",
)
@click.option(
    "--table-size",
    type=click.IntRange(2, 64),
    default=None,
    help="Players per game (default: two, or the game's minimum).",
)
@jobs_option()
@games_per_worker_option
@click.option("--seed", type=int, default=None, help="Match seed (default: random).")
@game_option
@move_time_option
@click.option(
    "--resume",
    "resume_id",
    type=int,
    default=None,
    metavar="ID",
    help="Go on with match ID (after an interruption); no NEW BASE then.",
)
@click.option("--quiet", "-q", is_flag=True, help="No live SPRT line.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@run_options
@db_option
def match(
    bots: tuple[str, ...],
    game_name: str | None,
    sprt: tuple[str, ...],
    max_games: int,
    fill: str,
    table_size: int | None,
    jobs: int,
    games_per_worker: int | None,
    seed: int | None,
    options: tuple[str, ...],
    move_ms: int,
    resume_id: int | None,
    quiet: bool,
    as_json: bool,
    run_options: RunOptions,
    store: Store,
) -> None:
    """Is NEW stronger than BASE? Play deals until an SPRT decides.

    Each deal is played in every seat rotation of one table (NEW, BASE and --fill bots); the
    test counts NEW's pairwise score against BASE per deal (fastchess's pentanomial model,
    generalised). Exit status 0: NEW is stronger (H1); 1: it is not (H0); 2: no decision
    within --games. Interrupted or killed, go on with `arena match --resume ID`.
    """
    names, settings = split_words(bots, sprt)
    try:
        config = SprtConfig.parse(settings)
    except SprtError as exc:
        raise click.UsageError(str(exc)) from None
    if resume_id is not None:
        if names:
            raise click.UsageError("--resume ID goes on with a match: give no NEW BASE")
        current = match_info(store, resume_id)
    else:
        if len(names) != 2:
            raise click.UsageError(
                f"name two bots, NEW and BASE (got {len(names)}: {' '.join(names) or 'none'})"
            )
        if game_name is None:
            raise click.UsageError("give --game GAME")
        current = service.plan_match(
            store,
            new=names[0],
            base=names[1],
            game_name=game_name,
            fill=fill,
            table_size=table_size,
            max_games=max_games,
            seed=seed,
            options=parse_options(options),
            move_ms=move_ms,
            config=config,
        )
        if not as_json:
            click.echo(
                f"match {current.tid}: {current.new} vs {current.base}, deals of "
                f"{current.games_per_deal} games, SPRT elo0={config.elo0:g} "
                f"elo1={config.elo1:g} alpha={config.alpha:g} beta={config.beta:g}",
                err=True,
            )
    final = _run(
        store,
        current,
        jobs=jobs,
        games_per_worker=games_per_worker,
        quiet=quiet or as_json,
        options=run_options,
    )
    _report(current, final, as_json=as_json)
    raise SystemExit(EXIT[final.decision])


def _run(
    store: Store,
    current: MatchInfo,
    *,
    jobs: int,
    games_per_worker: int | None,
    quiet: bool,
    options: RunOptions,
) -> SprtStatus:
    prepared = service.prepare_run(
        store, current.tid, options, jobs=jobs, games_per_worker=games_per_worker, matches=True
    )
    warn(prepared.warnings)
    live = LiveLine(quiet=quiet)
    try:
        return service.run_match(store, current, prepared, on_status=live)
    finally:
        live.done()


def _report(current: MatchInfo, final: SprtStatus, *, as_json: bool) -> None:
    verdict = {
        Decision.H1: f"H1 accepted: {current.new} is stronger than {current.base}",
        Decision.H0: f"H0 accepted: {current.new} is not stronger than {current.base} "
        f"by {current.config.elo1:g} Elo",
        Decision.CONTINUE: "no decision within the games allowed",
    }[final.decision]
    if as_json:
        echo_json(
            {
                "match": current.tid,
                "new": current.new,
                "base": current.base,
                "sprt": current.config.to_dict(),
                "result": "inconclusive"
                if final.decision is Decision.CONTINUE
                else final.decision.value,
                **final.to_dict(),
            }
        )
        return
    click.echo(final.line())
    click.echo(
        f"Elo difference {final.elo:+.1f} (95 % interval {final.elo_lo:+.1f} to "
        f"{final.elo_hi:+.1f}) over {final.deals} deals ({final.games} games)"
    )
    click.echo(verdict)
