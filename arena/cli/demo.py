"""``arena demo``: a small round robin among the bundled bots for each game, with rankings.

Needs no set-up beyond installing: it plans (``tournaments.service.create_demo``) and runs
one tournament per game on the local database (``--db``, ``$ARENA_DB`` or ``./arena.db``) and
prints each game's rankings. Each tournament gets its own secret key, so the fixed default
seed reveals nothing of the deals.
"""

from __future__ import annotations

import time

import click

from arena.cli.common import games_per_worker_option, jobs_option
from arena.cli.storage import db_option
from arena.cli.tournament import play_pending
from arena.games import get_game
from tournaments import published, reports, service
from tournaments.store.facts import Store

#: The demo's games are played by this process (one job), up to 64 at once: a whole phase of the
#: demo. More jobs would start a worker process per tournament and their own bot processes at
#: every phase, for games that take milliseconds (``--jobs`` still chooses).
DEMO_JOBS = 1


@click.command()
@click.option(
    "--game",
    "games",
    multiple=True,
    metavar="GAME",
    help="Only this game (repeatable). Default: every game.",
)
@jobs_option(DEMO_JOBS)
@games_per_worker_option
@click.option(
    "--seed",
    type=int,
    default=2026,
    show_default=True,
    help="Tournament seed. Each demo tournament also gets a new secret key, so its "
    "deals are new every time and no bot can compute them.",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress bars.")
@db_option
def demo(
    games: tuple[str, ...],
    jobs: int,
    games_per_worker: int | None,
    seed: int,
    quiet: bool,
    store: Store,
) -> None:
    """Run a demo round robin among the bundled bots and print the rankings."""
    chosen = list(games) or service.demo_games()
    started = time.monotonic()
    total = 0
    for game_name in chosen:
        created = service.create_demo(store, game_name, seed=seed)
        tid, info = created.tid, created.info
        click.echo(
            f"\n== {get_game(game_name).title}: tournament {tid}, {info.games_total} games, "
            f"{len(info.entrants)} entrants, tables of {info.spec.table_size} =="
        )
        play_pending(store, tid, jobs=jobs, quiet=quiet, games_per_worker=games_per_worker)
        click.echo(reports.rankings_table(published.ranking_rows(store, tid)))
        total += info.games_total
    click.echo(
        f"\n{total} games in {time.monotonic() - started:.1f} s, stored in "
        f"{store.path}. See `arena tournament list`, `arena rankings ID`, "
        f"`arena crosstable ID`, `arena replay GAME_ID`, or `arena serve` to see it all in "
        f"the browser."
    )
