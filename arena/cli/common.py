"""Helpers shared by the CLI commands: the game, move time, jobs and ``--json`` options,
option parsing and JSON output."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import click

#: ``--option KEY=VALUE``: a game option (repeatable), parsed by ``parse_options``.
game_option = click.option(
    "--option",
    "options",
    multiple=True,
    metavar="KEY=VALUE",
    help="A game option; repeatable. See `arena games`.",
)

#: ``--move-time MS``: the per-move deadline.
move_time_option = click.option(
    "--move-time",
    "move_ms",
    type=click.IntRange(1, 600_000),
    default=1000,
    show_default=True,
    help="Per-move deadline in milliseconds.",
)


def json_option(
    help: str = "Print machine-readable JSON.",
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--json``: print machine-readable JSON (``as_json``)."""
    return click.option("--json", "as_json", is_flag=True, help=help)


def jobs_option(default: int = 1) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--jobs N``: games played at once, each job a worker with its own bot processes."""
    return click.option(
        "--jobs",
        "-j",
        type=click.IntRange(1, 64),
        default=default,
        show_default=True,
        help="Games played at once (each job reuses its own bot processes).",
    )


def games_per_worker_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--games-per-worker K``: games each job drives at once (default: automatic)."""
    return click.option(
        "--games-per-worker",
        "games_per_worker",
        type=click.IntRange(1, 256),
        default=None,
        help="Games each job plays at once through its bot processes (each process serves "
        "at most the number of games its hello declares). Default: one per 16 ms of move "
        "time, at most 64. Results do not depend on it.",
    )(f)


def parse_options(pairs: Sequence[str]) -> dict[str, str]:
    """``k=v`` strings into a dict; a bad pair is a usage error."""
    options: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"{pair!r} is not KEY=VALUE", param_hint="--option")
        options[key.strip()] = value.strip()
    return options


def echo_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, sort_keys=False, default=str))
