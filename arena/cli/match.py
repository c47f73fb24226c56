"""``arena match NEW BASE``: is NEW stronger than BASE? A match stopped by an SPRT.

Its exit status is the verdict, so that a script can act on it (``EXIT``): 0: H1 accepted (NEW
is stronger by ``elo1`` rather than ``elo0``); 1: H0 accepted; 2: no decision within
``--games``; 3: stopped because NEW or BASE faulted past ``--max-fault-rate``. Errors have codes
of their own (``MatchCommand``): 4 for a usage mistake (the same bot twice, a game a bot does
not play, impossible SPRT bounds: nothing was played), 5 for any other error (an unknown bot, a
bot that fails its entry check, a database that cannot be read), 130 when interrupted; each is
one line on stderr.
"""

from __future__ import annotations

import sys

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
from arena.cli.safety import deals_option, run_options
from arena.cli.storage import db_option
from arena.cli.tournament import warn
from arena.errors import ArenaError
from arena.text import printable
from tournaments import service
from tournaments.errors import Interrupted, UsageProblem
from tournaments.reports import format_table
from tournaments.service import (
    DealMode,
    Decision,
    FaultLimit,
    MatchInfo,
    MatchProgress,
    MatchStatus,
    RunOptions,
    SprtConfig,
    SprtError,
    elo_text,
)
from tournaments.store.facts import Store

EXIT = {Decision.H1: 0, Decision.H0: 1, Decision.CONTINUE: 2, Decision.FAULTS: 3}
#: Exit status of a usage mistake, and of any other error: never a verdict's.
USAGE_ERROR = 4
ERROR = 5
SPRT_KEYS = ("elo0", "elo1", "alpha", "beta")


class MatchCommand(click.Command):
    """``arena match``: its errors exit with codes of their own (``USAGE_ERROR``, ``ERROR``),
    never a verdict's; Ctrl-C stays 130 (``arena.cli.ArenaGroup``)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as exc:
            exc.exit_code = USAGE_ERROR
            raise

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except click.UsageError as exc:
            exc.exit_code = USAGE_ERROR
            raise
        except UsageProblem as exc:
            error = click.UsageError(str(exc), ctx)
            error.exit_code = USAGE_ERROR
            raise error from None
        except Interrupted:
            raise
        except ArenaError as exc:
            click.echo(f"arena: error: {exc}", err=True)
            ctx.exit(ERROR)


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
    """The match's state on stderr as it is looked at, between blocks of deals: one line
    rewritten on a terminal (erased at the end, where the summary takes over), else a line
    each time (a few: the blocks double)."""

    def __init__(self, *, quiet: bool) -> None:
        self.quiet = quiet
        self.tty = sys.stderr.isatty()
        self.shown = False

    def __call__(self, progress: MatchProgress) -> None:
        state = progress.status
        if self.quiet or state.deals == 0 or state.decision is not Decision.CONTINUE:
            return  # the summary says the last state, once
        if self.tty:
            click.echo("\r\x1b[K" + progress.line(), nl=False, err=True)
            self.shown = True
        else:
            click.echo(progress.line(), err=True)

    def done(self) -> None:
        if self.shown:
            click.echo("\r\x1b[K", nl=False, err=True)


@click.command("match", cls=MatchCommand, context_settings={"ignore_unknown_options": False})
@click.argument("bots", nargs=-1, metavar="NEW BASE")
@click.option(
    "--game",
    "game_name",
    metavar="GAME",
    help="The game to play (default: the one game both bots play, if there is one).",
)
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
    help="Games at most (whole deals): no decision within them exits 2.",
)
@click.option(
    "--max-fault-rate",
    "fault_rate",
    type=click.FloatRange(0.0, 1.0),
    default=0.05,
    show_default=True,
    help="Stop the match (exit 3) when NEW or BASE faults in more than this share of its "
    "games, once it has played 10; 1 never stops.",
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
@deals_option(
    help="A match plays duplicate deals only (its SPRT's unit is a deal in every seating); "
    "independent is refused: play a gauntlet with --deals independent instead."
)
@click.option("--quiet", "-q", is_flag=True, help="No live SPRT line.")
@json_option("Print the result as JSON.")
@run_options
@db_option
def match(
    bots: tuple[str, ...],
    game_name: str | None,
    sprt: tuple[str, ...],
    max_games: int,
    fault_rate: float,
    fill: str,
    table_size: int | None,
    jobs: int,
    games_per_worker: int | None,
    seed: int | None,
    options: tuple[str, ...],
    move_ms: int,
    resume_id: int | None,
    deals: DealMode,
    quiet: bool,
    as_json: bool,
    run_options: RunOptions,
    store: Store,
) -> None:
    """Is NEW stronger than BASE? Play deals until an SPRT decides.

    NEW and BASE are bot SPECs: a bundled or registered bot, a folder with a bot.toml or a
    command line (quoted); a folder or command line is registered first, after the checks of
    `arena bot add`. Each deal is played in every seat rotation of one table (NEW, BASE and
    --fill bots); the test counts NEW's pairwise score against BASE per deal (fastchess's
    pentanomial model, generalised). Interrupted or killed, go on with `arena match --resume
    ID`.

    \b
    Exit status:
      0  H1: NEW is stronger (by elo1 rather than elo0)
      1  H0: it is not
      2  no decision within --games
      3  stopped: NEW or BASE faulted past --max-fault-rate
      4  a usage mistake (nothing was played)
      5  any other error (an unknown bot, a failed entry check, the database...)
      130  interrupted (go on with --resume)
    """
    names, settings = split_words(bots, sprt)
    try:
        config = SprtConfig.parse(settings)
    except SprtError as exc:
        raise click.UsageError(str(exc)) from None
    if resume_id is not None:
        if names:
            raise click.UsageError("--resume ID goes on with a match: give no NEW BASE")
        if deals is not DealMode.DUPLICATE:
            raise click.UsageError("--resume ID goes on with a match as planned: give no --deals")
        current = service.match_info(store, resume_id)
    else:
        if len(names) != 2:
            raise click.UsageError(
                f"name two bots, NEW and BASE (got {len(names)}: {' '.join(names) or 'none'})"
            )
        planned = service.plan_match(
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
            faults=FaultLimit(rate=fault_rate),
            sandbox=run_options.sandbox_mode(),
            deals=deals,
        )
        for note in planned.notes:
            click.echo(note, err=True)
        warn(planned.warnings)
        current = planned.match
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
    _report(store, current, final, as_json=as_json)
    raise SystemExit(EXIT[final.decision])


def _run(
    store: Store,
    current: MatchInfo,
    *,
    jobs: int,
    games_per_worker: int | None,
    quiet: bool,
    options: RunOptions,
) -> MatchStatus:
    prepared = service.prepare_run(
        store, current.tid, options, jobs=jobs, games_per_worker=games_per_worker, matches=True
    )
    warn(prepared.warnings)
    live = LiveLine(quiet=quiet)
    try:
        return service.run_match(store, current, prepared, on_status=live)
    finally:
        live.done()


def _report(store: Store, current: MatchInfo, final: MatchStatus, *, as_json: bool) -> None:
    """The match's summary, once: the verdict, the test, the deal scores, every entrant's
    results and faults, and what its plan kept."""
    info = store.tournament(current.tid)
    if as_json:
        echo_json(
            {
                "match": current.tid,
                "new": current.new,
                "base": current.base,
                "sprt": current.config.to_dict(),
                "max_fault_rate": current.faults.rate,
                "result": "inconclusive"
                if final.decision is Decision.CONTINUE
                else final.decision.value,
                **final.to_dict(),
                "games_done": info.games_done,
                "games_total": info.games_total,
                "repetitions": info.spec.repetitions,
            }
        )
        return
    sprt = final.sprt
    verdict = service.verdict_text(
        {
            "new": current.new,
            "base": current.base,
            "config": current.config.to_dict(),
            "result": None if final.decision is Decision.CONTINUE else final.decision.value,
            "stopped": final.stopped,
        },
        finished=True,
    )
    open_deals = info.spec.repetitions - sprt.deals if info.status.value == "done" else 0
    click.echo(printable(verdict))
    click.echo(
        f"  {sprt.deals} deals ({sprt.games} games"
        + (
            f"; {final.played} played: {open_deals} deal(s) left incomplete"
            if final.played > sprt.games
            else ""
        )
        + f"): {sprt.line()}"
    )
    click.echo(
        f"  Elo difference {elo_text(sprt.elo)}"
        + (
            f" (95 % interval {elo_text(sprt.elo_lo)} to {elo_text(sprt.elo_hi)})"
            if sprt.interval
            else f" (no interval yet: {sprt.deals} deal(s), a score of {100 * sprt.score:.0f}%)"
        )
    )
    top = 2 * current.games_per_deal
    click.echo(
        f"  deal scores (NEW's half points against BASE over a deal, 0 to {top}): "
        + "  ".join(f"{h}: {n}" for h, n in enumerate(final.counts.counts))
    )
    roles = {current.new: "NEW", current.base: "BASE"}
    rows = [
        [
            e.entrant,
            roles.get(e.entrant, "filler"),
            e.games,
            e.wins,
            "-" if e.mean_place is None else f"{e.mean_place:.2f}",
            e.faulty,
            e.forfeits,
            e.faults_text(),
        ]
        for e in final.entrants
    ]
    click.echo(
        format_table(
            [
                "entrant",
                "role",
                "games",
                "wins",
                "mean place",
                "faulty",
                "forfeits",
                "faults",
            ],
            rows,
            align="llrrrrrl",
        )
    )
    click.echo(
        f"match {current.tid}: {info.games_done}/{info.games_total} games played, "
        f"{info.spec.repetitions} deal(s) in its plan ({info.status.value})"
    )
