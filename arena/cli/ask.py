"""``arena bot ask SPEC --game ID --seat N --step K``: one recorded turn sent to a bot
(``tournaments.ask``), its answer printed."""

from __future__ import annotations

import json

import click

from arena.cli.common import echo_json, json_option, move_time_option
from arena.cli.safety import run_options
from arena.cli.storage import db_option
from arena.text import printable
from tournaments.ask import ask as ask_recorded
from tournaments.service import RunOptions
from tournaments.store.facts import Store


@click.command("ask", context_settings={"ignore_unknown_options": True})
@click.argument("spec", nargs=-1, type=click.UNPROCESSED, metavar="SPEC")
@click.option("--game", "game_id", type=int, required=True, metavar="ID", help="A stored game.")
@click.option("--seat", type=int, required=True, metavar="N", help="The seat whose turn it is.")
@click.option("--step", type=int, required=True, metavar="K", help="The step of that turn.")
@move_time_option
@json_option()
@run_options
@db_option
def ask(
    spec: tuple[str, ...],
    game_id: int,
    seat: int,
    step: int,
    move_ms: int,
    as_json: bool,
    run_options: RunOptions,
    store: Store,
) -> None:
    """Send a bot the turn seat N had at step K of stored game ID and print its answer.

    \b
    arena bot ask mybot2 --game 17 --seat 1 --step 5
    arena bot ask --game 17 --seat 1 --step 5 -- python mybot.py --debug

    The bot gets that game's start (same game, seat, players, options, its seat's seed) and
    that turn (the view and legal actions the seat had), as its first: debug one move
    without replaying a tournament. Withheld while the game's deal is still being played.
    """
    asked = ask_recorded(
        store, spec, game_id=game_id, seat=seat, step=step, options=run_options, move_ms=move_ms
    )
    turn, answer, name = asked.turn, asked.answer, printable(asked.bot)
    if as_json:
        echo_json(asked.to_dict())
    else:
        click.echo(
            f"game {turn.game_id} ({turn.game}, tournament {turn.tournament_id}), step "
            f"{turn.step}, seat {turn.seat} ({printable(turn.entrant)})"
        )
        click.echo(f"view   {json.dumps(turn.view)}")
        click.echo(f"legal  {json.dumps(turn.legal)}")
        click.echo(f"played {printable(turn.played)} (chosen by the {turn.played_by.value})")
        if answer.problem is not None:
            click.echo(f"{name}: {printable(answer.problem)}")
        else:
            offered = "offered" if answer.offered else "NOT offered"
            click.echo(
                f"{name} answers {printable(answer.action or '')!r} "
                f"in {answer.ms:.1f} ms ({offered})"
            )
        if answer.output:
            click.echo("its output:")
            for line in answer.output:
                click.echo(f"  {line}")
    if answer.problem is not None or not answer.offered:
        raise SystemExit(1)
