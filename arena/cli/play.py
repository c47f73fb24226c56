"""``arena play``: one game between bots over the real protocol (``tournaments.play``), with a
readable log; the log and the seat's view are ``arena replay``'s too. A person may take a seat
(``--human``, or ``human`` among the bots): the terminal asks them (``arena.cli.person``).
"""

from __future__ import annotations

import contextlib
import json
import sys

import click

from arena.cli.common import echo_json, game_option, json_option, move_time_option, parse_options
from arena.cli.person import TerminalPerson
from arena.cli.safety import run_options
from arena.games import get_game, options_text
from arena.referee.record import Fault, GameRecord
from arena.text import printable
from tournaments.play import PERSON, game_request, play_game
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
    f"or a command line (quote it); {PERSON} for a seat you play yourself.",
)
@click.option(
    "--human",
    is_flag=True,
    help="Take a seat yourself (--seat, default 0): the terminal shows your seat's view "
    "and asks your moves.",
)
@click.option(
    "--human-time",
    "human_s",
    type=click.IntRange(1, 86_400),
    metavar="SECONDS",
    default=None,
    help="Seconds you have for each move (default: no limit). The bots have --move-time.",
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
    help="Show the game as this seat saw it (its views and choices); with --human, the "
    "seat you take.",
)
@json_option(
    "Machine-readable record: every action, chance outcome and fault (with a person at the "
    "table, the dialogue goes to stderr)."
)
@run_options
def play(
    game_name: str,
    bots: tuple[str, ...],
    human: bool,
    human_s: int | None,
    seed: int | None,
    options: tuple[str, ...],
    move_ms: int,
    max_faults: int,
    seat: int | None,
    as_json: bool,
    run_options: RunOptions,
) -> None:
    """Play one GAME between bots and print the log and the result.

    With --human (or a bot SPEC human) you play a seat from the terminal: at each of your
    moves it shows what your seat may know, what changed since your last move and your legal
    moves; answer with a move's number or its text (? shows the rules). Ctrl-C or the end
    of the input leaves the game: your seat forfeits and the bots finish it.

    Bot output goes to arena-logs/ next to the database ($ARENA_DB, else ./arena.db).
    """
    if human and PERSON in bots:
        raise click.UsageError(f"give your seat once: --human, or --bot {PERSON}")
    players = len(bots) + human
    if seat is not None and not 0 <= seat < players:
        raise click.BadParameter(f"seat {seat} is not one of 0..{players - 1}", param_hint="--seat")
    person_seat = (seat or 0) if human else None
    request = game_request(game_name, bots, parse_options(options), person_seat=person_seat)
    if human_s is not None and request.person is None:
        raise click.UsageError(f"--human-time goes with --human (or --bot {PERSON})")
    person = None
    if request.person is not None:  # the person at the terminal: stderr when stdout is JSON
        person = TerminalPerson(request.game, request.bots, err=as_json)
        seat = None if human else seat
    try:
        with person.interrupts() if person is not None else contextlib.nullcontext():
            record = play_game(
                request,
                seed=seed,
                move_ms=move_ms,
                max_faults=max_faults,
                run_options=run_options,
                person=person,
                person_ms=None if human_s is None else human_s * 1000,
            )
    except KeyboardInterrupt:
        if person is None:
            raise
        # the person's second Ctrl-C: the game stops unfinished
        click.echo("\nStopped: the game was not finished, and nothing of it is kept.", err=True)
        sys.exit(130)
    if person is not None:
        click.echo("", err=as_json)
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
