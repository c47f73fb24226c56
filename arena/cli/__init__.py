"""The ``arena`` command (click): the only package of ``arena`` that uses ``tournaments``.

One module per group of commands (``bots``, ``demo``, ``games``, ``play``, ``tournament``,
``views``) and the options and helpers they share (``common``, ``progress``, ``safety``,
``storage``).

Every user error (a bad argument, an unknown game or bot, a bot that will not start, a corrupt
or locked database) ends in one clear line on stderr and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import logging
import sys

import click

from arena import __version__
from arena.errors import ArenaError
from tournaments.errors import Interrupted, UsageProblem


class ArenaGroup(click.Group):
    """A click group that turns ArenaError into a one-line message and exit status 1 (a
    UsageProblem into a usage error, exit status 2; Interrupted into exit status 130)."""

    def invoke(self, ctx: click.Context) -> object:
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
    """Run bots that play imperfect-information table games against each other."""
    level = logging.WARNING if verbose == 0 else logging.INFO if verbose == 1 else logging.DEBUG
    logging.basicConfig(
        level=level, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s"
    )


def _register() -> None:
    from arena.cli import ask, check, demo, games, match, play, tournament, views, web
    from arena.cli import bots as bot_commands

    main.add_command(games.games)
    main.add_command(play.play)
    main.add_command(bot_commands.bot)
    main.add_command(tournament.tournament)
    main.add_command(views.rankings)
    main.add_command(views.crosstable)
    main.add_command(views.replay)
    main.add_command(demo.demo)
    bot_commands.bot.add_command(check.check)
    bot_commands.bot.add_command(ask.ask)
    main.add_command(match.match)
    main.add_command(web.serve)
    main.add_command(web.export)


_register()

if __name__ == "__main__":
    main()
