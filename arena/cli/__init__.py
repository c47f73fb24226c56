"""The ``arena`` command (click): the only package of ``arena`` that uses ``tournaments``.

One module per group of commands (``bots``, ``check``, ``demo``, ``games``, ``ladder``,
``match``, ``play``, ``results``, ``tournament``, ``web``), loaded only when its command runs,
the options and helpers they share (``common``, ``progress``, ``safety``, ``storage``), and the
person at the terminal who plays a seat in ``arena play --human`` (``person``, ``table``). Each
command parses its arguments, calls one use case (``tournaments.service`` and the modules beside
it: ``play``, ``bots``, ``ask``, ``ladder.service``) and prints what comes back; it imports
nothing of how games are played or bots run (pyproject.toml: "the faces have one door").


Every user error (a bad argument, an unknown game or bot, a bot that will not start, a corrupt
or locked database) ends in one clear line on stderr and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import importlib
import logging
import sys

import click

from arena import __version__
from arena.errors import ArenaError

#: Every command: its module, its click object and its one line of help in ``arena --help``.
#: Kept here so that listing the commands, or running one, imports only that command's module
#: (a test checks each line against the command's own help).
COMMANDS: dict[str, tuple[str, str, str]] = {
    "bot": (
        "arena.cli.bots",
        "bot",
        "Check a bot (bot check), ask it a recorded turn (bot ask), register, list, logs.",
    ),
    "crosstable": (
        "arena.cli.results",
        "crosstable",
        "Head-to-head results between every pair of entrants of tournament ID.",
    ),
    "demo": (
        "arena.cli.demo",
        "demo",
        "Run a demo round robin among the bundled bots and print the rankings.",
    ),
    "export": (
        "arena.cli.web",
        "export",
        "Write the web pages into DIR as static files (no server needed to view them).",
    ),
    "games": ("arena.cli.games", "games", "List the games with their player counts and options."),
    "ladder": (
        "arena.cli.ladder",
        "ladder",
        "Standing ladders: submit bots at any time, matchmaking, live skill ratings.",
    ),
    "match": (
        "arena.cli.match",
        "match",
        "Is NEW stronger than BASE? Play deals until an SPRT decides.",
    ),
    "play": (
        "arena.cli.play",
        "play",
        "Play one GAME between bots and print the log and the result.",
    ),
    "rankings": (
        "arena.cli.results",
        "rankings",
        "Rankings of tournament ID (default: the latest): Elo ± 95 %, games, wins, places.",
    ),
    "replay": (
        "arena.cli.results",
        "replay",
        "Re-play a stored game from its deal seed and actions.",
    ),
    "serve": (
        "arena.cli.web",
        "serve",
        "Serve rankings, live tournaments, bots and game replays over HTTP (read-only).",
    ),
    "tournament": (
        "arena.cli.tournament",
        "tournament",
        "Plan, run and inspect tournaments: round robins, gauntlets, balanced, Swiss, knockouts.",
    ),
}


def usage_error(exc: click.UsageError) -> None:
    """A usage mistake in the arena's one style of error: ``arena: error: ...`` first, then
    the command's usage and where its help is."""
    click.echo(f"arena: error: {exc.format_message()}", err=True)
    ctx = exc.ctx
    if ctx is not None:
        names = ctx.help_option_names or ["--help"]
        click.echo(f"{ctx.get_usage()}\n(`{ctx.command_path} {names[0]}` for help)", err=True)


class ArenaGroup(click.Group):
    """The ``arena`` group: commands loaded on first use (``COMMANDS``); an ArenaError becomes
    a one-line message and exit status 1 (a UsageProblem a usage error, exit status 2;
    Interrupted exit status 130). Every error is said in one style: ``arena: error: ...``."""

    def main(self, *args: object, standalone_mode: bool = True, **extra: object) -> object:
        if not standalone_mode:
            return super().main(*args, standalone_mode=False, **extra)  # type: ignore[arg-type]
        try:
            code = super().main(*args, standalone_mode=False, **extra)  # type: ignore[arg-type]
        except click.UsageError as exc:
            usage_error(exc)
            sys.exit(exc.exit_code)
        except click.ClickException as exc:
            click.echo(f"arena: error: {exc.format_message()}", err=True)
            sys.exit(exc.exit_code)
        except click.Abort:
            click.echo("arena: interrupted", err=True)
            sys.exit(130)
        sys.exit(code if isinstance(code, int) else 0)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module, name, _ = COMMANDS[cmd_name]
        return getattr(importlib.import_module(module), name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, COMMANDS[name][2]) for name in self.list_commands(ctx)])

    def invoke(self, ctx: click.Context) -> object:
        from tournaments.errors import Interrupted, UsageProblem

        try:
            return super().invoke(ctx)
        except UsageProblem as exc:
            raise click.UsageError(str(exc)) from None
        except Interrupted as exc:
            click.echo(f"\narena: {exc}", err=True)
            ctx.exit(130)
        except ArenaError as exc:
            click.echo(f"arena: error: {exc}", err=True)
            ctx.exit(1)
        except KeyboardInterrupt:
            click.echo("arena: interrupted", err=True)
            ctx.exit(130)


@click.group(cls=ArenaGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="arena")
@click.option("-v", "--verbose", count=True, help="More log output (-v info, -vv debug).")
def main(verbose: int) -> None:
    """Run bots that play imperfect-information table games against each other.

    \b
    A bot author's first commands:
      arena bot check SPEC                             does it speak the protocol?
      arena bot ask SPEC --game ID --seat N --step K   its answer to a recorded turn
      arena match NEW BASE                             is NEW stronger than BASE?
    """
    level = logging.WARNING if verbose == 0 else logging.INFO if verbose == 1 else logging.DEBUG
    logging.basicConfig(
        level=level, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s"
    )


if __name__ == "__main__":
    main()
