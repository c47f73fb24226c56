"""``arena demo``: a small round robin among the bundled bots for each game, with rankings.

Needs no set-up beyond installing: it plans and runs one tournament per game on the local
database (``--db``, ``$ARENA_DB`` or ``./arena.db``) and prints each game's rankings. Each
tournament gets its own secret key (``service.create_tournament``), so the fixed default seed
reveals nothing of the deals.
"""

from __future__ import annotations

import time

import click

from arena.cli.common import games_per_worker_option, jobs_option
from arena.cli.storage import db_option
from arena.cli.tournament import play_pending
from arena.games import get_game, names
from tournaments import reports, service
from tournaments.catalogue.lookup import bundled_bots, plays
from tournaments.store.facts import Store

#: Demo table sizes and repetitions per game (kept small: the whole demo runs in well under a
#: minute on two cores).
DEMO = {
    "skull": (4, 4),
    "skull-bank": (4, 2),
    "skull-king": (4, 2),
    "skyjo": (4, 2),
}
#: The demo's games are played by this process (one job), up to 64 at once: a whole phase of the
#: demo. More jobs would start a worker process per tournament and their own bot processes at
#: every phase, for games that take milliseconds (``--jobs`` still chooses).
DEMO_JOBS = 1
#: Bots left out of the demo (``first`` only mirrors the referee's default policy; ``ismcts``
#: thinks 200 ms a move, too slow for a demo).
SKIP = {"first", "ismcts"}


def demo_entrants(game_name: str, table_size: int) -> list[str]:
    """The bundled bots that play ``game_name`` (strategy bots first), padded with randoms."""
    playing = [
        name
        for name, games in sorted(bundled_bots().items())
        if plays(games, game_name) and name not in SKIP
    ]
    strategy = [name for name in playing if name != "random"]
    entrants = strategy + ["random"] * max(2, table_size - len(strategy))
    return entrants


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
    chosen = list(games) or [name for name in DEMO if name in names()]
    started = time.monotonic()
    total = 0
    for game_name in chosen:
        game = get_game(game_name)
        size, repetitions = DEMO.get(game_name, (game.min_players, 1))
        size = max(game.min_players, min(size, game.max_players))
        entrants = demo_entrants(game_name, size)
        tid = service.create_tournament(
            store,
            game_name=game_name,
            bots=entrants,
            table_size=size,
            repetitions=repetitions,
            seed=seed,
            options={},
            move_ms=2000,
        ).tid
        info = store.tournament(tid)
        click.echo(
            f"\n== {game.title}: tournament {tid}, {info.games_total} games, "
            f"{len(entrants)} entrants, tables of {size} =="
        )
        play_pending(store, tid, jobs=jobs, quiet=quiet, games_per_worker=games_per_worker)
        rows = reports.rankings(store.results.standings(tid), store.results.current_ratings(tid))
        click.echo(reports.rankings_table(rows))
        total += info.games_total
    click.echo(
        f"\n{total} games in {time.monotonic() - started:.1f} s, stored in "
        f"{store.path}. See `arena tournament list`, `arena rankings ID`, "
        f"`arena crosstable ID`, `arena replay GAME_ID`, or `arena serve` to see it all in "
        f"the browser."
    )
