"""``arena play``: one game between bots over the real protocol (``tournaments.play``), with a
readable log; the log and the seat's view are ``arena replay``'s too.
"""

from __future__ import annotations

import json

import click

from arena.cli.common import echo_json, game_option, json_option, move_time_option, parse_options
from arena.cli.safety import run_options
from arena.games import get_game, options_text
from arena.referee.record import Fault, GameRecord
from arena.text import printable
from tournaments.play import game_request, play_game
from tournaments.published import replay_steps, seat_data, seat_turns
from tournaments.reports import format_table
from tournaments.service import RunOptions
from tournaments.store.gamelogs import GameLog, GameLogLine


@click.command()
@click.argument("game_name", metavar="GAME")
@click.option(
    "--bot",
    "bots",
    multiple=True,
    required=True,
    metavar="SPEC",
    help="A bot per seat, in seat order: a bundled bot's name, a registered bot, "
    "or a command line (quote it).",
)
@click.option(
    "--seed",
    type=int,
    default=None,
    help="Seed of the deal (default: random). The deal comes from it and your "
    "secret key in ~/.config/arena: the same seed gives you the same game.",
)
@game_option
@move_time_option
@click.option(
    "--max-faults",
    type=click.IntRange(1, 1000),
    default=3,
    show_default=True,
    help="Faults after which a seat forfeits.",
)
@click.option(
    "--seat",
    "seat",
    type=int,
    default=None,
    help="Show the game as this seat saw it (its views and choices).",
)
@json_option("Machine-readable record: every action, chance outcome and fault.")
@run_options
def play(
    game_name: str,
    bots: tuple[str, ...],
    seed: int | None,
    options: tuple[str, ...],
    move_ms: int,
    max_faults: int,
    seat: int | None,
    as_json: bool,
    run_options: RunOptions,
) -> None:
    """Play one GAME between bots and print the log and the result.

    Bot output goes to arena-logs/ next to the database ($ARENA_DB, else ./arena.db).
    """
    request = game_request(game_name, bots, parse_options(options))
    if seat is not None and not 0 <= seat < len(bots):
        raise click.BadParameter(
            f"seat {seat} is not one of 0..{len(bots) - 1}", param_hint="--seat"
        )
    record = play_game(
        request,
        seed=seed,
        move_ms=move_ms,
        max_faults=max_faults,
        run_options=run_options,
    )
    if seat is not None:
        show_seat(record, seat, as_json)
    elif as_json:
        echo_json(record.to_dict())
    else:
        show_log(record)


def show_log(record: GameRecord, logs: GameLog | None = None) -> None:
    """The game as the referee saw it: each step's faults, then what the bots wrote during it
    (``logs``, escaped), then its events; the result."""
    game = get_game(record.game)
    options = options_text(record.options)
    click.echo(f"{game.title} ({record.game}), seed {record.seed}, options: {options}")
    for index, name in enumerate(record.bots):
        click.echo(f"  seat {index}: {name}")
    click.echo("")
    faults_by_step: dict[int, list[Fault]] = {}
    for fault in record.faults:
        faults_by_step.setdefault(fault.step, []).append(fault)
    lines = logs.at_step() if logs is not None and logs.withheld is None else {}
    deal, events = replay_steps(record)
    for event in deal:
        click.echo(game.format_event(event))
    for line in lines.get(None, []):  # before its first turn, or shared with other games
        click.echo(_log_line(line))
    for step, happened in enumerate(events):
        for fault in faults_by_step.get(step, []):
            click.echo(
                f"  ! step {step}: fault of seat {fault.seat}, {fault.kind.value}: "
                f"{printable(fault.detail)}"
            )
        for line in lines.get(step, []):
            click.echo(_log_line(line))
        for event in happened:
            click.echo(game.format_event(event))
    if logs is not None and logs.withheld is not None:
        click.echo(f"  (bot logs withheld: {logs.withheld})")
    click.echo("")
    show_result(record)


def _log_line(line: GameLogLine) -> str:
    where = "shared" if line.shared else "start" if line.step is None else f"step {line.step}"
    return f"  > seat {line.seat} log ({where}): {printable(line.text)}"


def show_result(record: GameRecord) -> None:
    rows = []
    faults = [0] * record.players
    for fault in record.faults:
        faults[fault.seat] += 1
    for s in sorted(range(record.players), key=lambda s: record.places[s]):
        mean_us = record.think_us[s] / record.decisions[s] if record.decisions[s] else 0
        rows.append(
            [
                record.places[s],
                s,
                record.bots[s],
                record.scores[s],
                record.decisions[s],
                f"{mean_us / 1000:.2f}",
                faults[s],
                "yes" if s in record.forfeits else "",
            ]
        )
    click.echo(
        format_table(
            ["place", "seat", "bot", "score", "moves", "ms/move", "faults", "forfeit"],
            rows,
            align="rrlrrrrl",
        )
    )


def show_seat(record: GameRecord, seat: int, as_json: bool) -> None:
    """The game as ``seat`` saw it: its views (as the wire carries them: JSON values), offers
    and choices, and the result. Never the deal seed, the events or other seats' views: they
    would reveal hidden cards."""
    if as_json:
        echo_json(seat_data(record, seat))
        return
    story = seat_turns(record, seat)
    click.echo(f"{record.game} as seen by seat {seat} ({record.bots[seat]})")
    for turn in story:
        click.echo(f"step {turn.step}: view {json.dumps(turn.view)}")
        click.echo(f"  legal {json.dumps(turn.legal)} -> {turn.action}")
    click.echo("")
    show_result(record)
