"""``arena rankings``, ``arena crosstable`` and ``arena replay``: reading results."""

from __future__ import annotations

import click

from arena.cli.common import echo_json, json_option
from arena.cli.play import show_log, show_seat
from arena.cli.storage import db_option
from tournaments import published, reports
from tournaments.errors import NotFound
from tournaments.store.facts import Store
from tournaments.store.gamelogs import game_log


def latest(store: Store) -> int:
    infos = store.list_tournaments()
    if not infos:
        raise NotFound(f"no tournaments in {store.path}; run `arena demo` or create one")
    return infos[-1].id


@click.command()
@click.argument("tid", metavar="[ID]", type=int, required=False)
@click.option("--los", is_flag=True, help="Also print the likelihood-of-superiority matrix.")
@json_option()
@db_option
def rankings(tid: int | None, los: bool, as_json: bool, store: Store) -> None:
    """Rankings of tournament ID (default: the latest): Elo ± 95 %, games, wins, places.

    The ratings are those of every game stored now (computed when the stored ones lag behind,
    e.g. while the tournament runs); reading never writes to the database."""
    tid = latest(store) if tid is None else tid
    if as_json:
        echo_json(published.rankings_data(store, tid))
        return
    rated = store.results.compute_ratings(tid) if los else None
    rows = published.ranking_rows(store, tid)
    click.echo(reports.tournament_text(store.tournament(tid), rows))
    if los and rated is not None:
        click.echo("\nlikelihood of superiority (%), row over column")
        click.echo(reports.los_table(rated.batch))


@click.command()
@click.argument("tid", metavar="ID", type=int)
@click.option("--wdl", is_flag=True, help="Show wins-draws-losses instead of score %.")
@json_option()
@db_option
def crosstable(tid: int, wdl: bool, as_json: bool, store: Store) -> None:
    """Head-to-head results between every pair of entrants of tournament ID."""
    if as_json:
        echo_json(published.crosstable_data(store, tid))
    else:
        click.echo(reports.crosstable_table(store.results.crosstable(tid), wdl=wdl))


@click.command()
@click.argument("game_id", metavar="GAME_ID", type=int)
@click.option("--seat", type=int, default=None, help="Show the game as this seat saw it.")
@json_option("Machine-readable: every action and every chance outcome (events).")
@db_option
def replay(game_id: int, seat: int | None, as_json: bool, store: Store) -> None:
    """Re-play a stored game from its deal seed and actions.

    Each step shows its faults, what the bots wrote during it (from their logs) and its
    events."""
    if seat is not None:
        players = store.game(game_id).players
        if not 0 <= seat < players:
            raise click.BadParameter(
                f"seat {seat} is not one of 0..{players - 1}", param_hint="--seat"
            )
    if as_json and seat is None:
        echo_json(published.replay_data(store, game_id))
        return
    full = published.replayed(store, game_id)
    if seat is not None:
        show_seat(full, seat, as_json)
    else:
        show_log(full, game_log(store, game_id))
