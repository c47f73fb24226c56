"""``arena rankings``, ``arena crosstable`` and ``arena replay``: reading results."""

from __future__ import annotations

import click

from arena.cli.common import echo_json
from arena.cli.play import show_log, show_seat
from arena.cli.storage import db_option
from arena.replay import replay as replay_game
from tournaments import reports
from tournaments.errors import NotFound
from tournaments.store import Store


def latest(store: Store) -> int:
    infos = store.list_tournaments()
    if not infos:
        raise NotFound(f"no tournaments in {store.path}; run `arena demo` or create one")
    return infos[-1].id


@click.command()
@click.argument("tid", metavar="[ID]", type=int, required=False)
@click.option("--los", is_flag=True, help="Also print the likelihood-of-superiority matrix.")
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
@db_option
def rankings(tid: int | None, los: bool, as_json: bool, store: Store) -> None:
    """Rankings of tournament ID (default: the latest): Elo ± 95 %, games, wins, places.

    The ratings are those of every game stored now (computed when the stored ones lag behind,
    e.g. while the tournament runs); reading never writes to the database."""
    tid = latest(store) if tid is None else tid
    rated = store.compute_ratings(tid) if los or as_json else None
    rows = reports.rankings(store.standings(tid), store.current_ratings(tid))
    if as_json:
        data = {"tournament": tid, "rankings": reports.rankings_json(rows)}
        if rated is not None:
            data["los"] = rated.batch.los
        echo_json(data)
        return
    click.echo(reports.tournament_text(store.tournament(tid), rows))
    if los and rated is not None:
        click.echo("\nlikelihood of superiority (%), row over column")
        click.echo(reports.los_table(rated.batch))


@click.command()
@click.argument("tid", metavar="ID", type=int)
@click.option("--wdl", is_flag=True, help="Show wins-draws-losses instead of score %.")
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
@db_option
def crosstable(tid: int, wdl: bool, as_json: bool, store: Store) -> None:
    """Head-to-head results between every pair of entrants of tournament ID."""
    table = store.crosstable(tid)
    if as_json:
        echo_json({"tournament": tid, **reports.crosstable_json(table)})
    else:
        click.echo(reports.crosstable_table(table, wdl=wdl))


@click.command()
@click.argument("game_id", metavar="GAME_ID", type=int)
@click.option("--seat", type=int, default=None, help="Show the game as this seat saw it.")
@click.option("--json", "as_json", is_flag=True,
              help="Machine-readable: every action and every chance outcome (events).")
@db_option
def replay(game_id: int, seat: int | None, as_json: bool, store: Store) -> None:
    """Re-play a stored game from its deal seed and actions."""
    stored = store.game(game_id)
    if stored.record is None:
        raise NotFound(f"game {game_id} has not been played yet")
    record = stored.record
    if seat is not None and not 0 <= seat < record.players:
        raise click.BadParameter(f"seat {seat} is not one of 0..{record.players - 1}",
                                 param_hint="--seat")
    state = replay_game(record.game, record.players, record.seed, record.options,
                        record.joint_actions())
    if tuple(state.outcome().places) != tuple(record.game_places):
        raise NotFound(f"game {game_id} does not replay to its stored result "
                       "(was it played with another version of the rules?)")
    from dataclasses import replace

    full = replace(record, events=tuple(state.events))
    if seat is not None:
        show_seat(full, seat, as_json)
    elif as_json:
        data = full.to_dict()
        data.update(id=game_id, tournament_id=stored.tournament_id,
                    seating=list(stored.planned.seating))
        echo_json(data)
    else:
        show_log(full)
