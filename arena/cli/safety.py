"""CLI options for running untrusted bots: process limits, the sandbox, remote bots, a Dask
cluster, and deals no one can pool.

``run_options`` adds the options to a command and hands it one ``RunOptions`` value
(``tournaments.service``), which the use cases turn into limits, a sandbox and the remote-bot
configuration; ``accept_unsandboxed_option`` adds the acceptance of unsandboxed bots on a
cluster; ``deals_option`` the choice of duplicate or independent deals.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import click

from tournaments.service import ACCEPT_UNSANDBOXED, DealMode, RunOptions, SandboxMode

_DEFAULTS = RunOptions()


#: ``--sandbox``: for every command that runs local bots (``arena bot add`` checks them too).
sandbox_option = click.option(
    "--sandbox",
    type=click.Choice([m.value for m in SandboxMode]),
    default=SandboxMode.AUTO.value,
    show_default=True,
    callback=lambda ctx, param, value: SandboxMode(value),
    help="Run bots in bubblewrap: auto (if it works here, else warn), required (refuse to run "
    "without it) or off.",
)


#: What ``--deals`` means for a tournament.
DEALS_HELP = (
    "duplicate: every seat rotation of a table on one deal (the luck of the deal cancels out); "
    "independent: each game its own deal, so a bot's processes have no hand of another game "
    "to pool (for entrants who are strangers; the cost in games: docs/security.md)."
)


def deals_option(help: str = DEALS_HELP) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--deals duplicate|independent``: whether a table's seat rotations share one deal
    (given to the command as a ``DealMode``)."""
    return click.option(
        "--deals",
        type=click.Choice([mode.value for mode in DealMode]),
        default=DealMode.DUPLICATE.value,
        show_default=True,
        callback=lambda _ctx, _param, value: DealMode(value),
        help=help,
    )


#: The fewest processes and threads that let a sandboxed Python bot with ZeroMQ start.
MIN_PROCS = 8


def _check_procs(ctx: click.Context, param: click.Parameter, value: int) -> int:
    if 0 < value < MIN_PROCS:
        raise click.BadParameter(
            f"{value} is too few for a bot to start: 0 (no limit) or at least {MIN_PROCS}"
        )
    return value


def run_options(function: Callable[..., Any]) -> Callable[..., Any]:
    """Add the limit, sandbox and remote-bot options; pass ``run_options: RunOptions`` (its
    ``sandbox`` None where ``--sandbox`` is not given: ``RunOptions.sandbox_mode``)."""
    names = (
        "time_bank_ms",
        "memory_mb",
        "cpu_s",
        "max_procs",
        "log_bytes",
        "sandbox",
        "listen",
        "curve",
        "remote_wait_s",
    )

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        values = {name: kwargs.pop(name) for name in names}
        given = click.get_current_context().get_parameter_source("sandbox")
        if given is click.core.ParameterSource.DEFAULT:
            # not given: the use case chooses (auto, or required on a cluster)
            values["sandbox"] = None
        return function(*args, run_options=RunOptions(**values), **kwargs)

    options = [
        click.option(
            "--time-bank",
            "time_bank_ms",
            type=click.IntRange(0, 3_600_000),
            default=0,
            show_default=True,
            help="Extra milliseconds each seat may spend over a game once a move's "
            "own deadline is used up.",
        ),
        click.option(
            "--memory",
            "memory_mb",
            type=click.IntRange(0, 1 << 20),
            default=_DEFAULTS.memory_mb,
            show_default=True,
            help="Address space of each bot process in MB (RLIMIT_AS); 0 = no limit.",
        ),
        click.option(
            "--cpu-time",
            "cpu_s",
            type=click.IntRange(0, 1 << 30),
            default=_DEFAULTS.cpu_s,
            show_default=True,
            help="CPU seconds of each bot process over its whole life (RLIMIT_CPU); 0 = no limit.",
        ),
        click.option(
            "--max-procs",
            "max_procs",
            type=click.IntRange(0, 1 << 16),
            default=_DEFAULTS.max_procs,
            show_default=True,
            callback=_check_procs,
            help="Processes and threads of a bot with all it starts; 0 = no limit, "
            f"else at least {MIN_PROCS}.",
        ),
        click.option(
            "--log-bytes",
            "log_bytes",
            type=click.IntRange(0, 1 << 40),
            default=_DEFAULTS.log_bytes,
            show_default=True,
            help="Output kept per bot process in arena-logs/ next to the database; "
            "the rest is discarded. 0 = keep everything.",
        ),
        sandbox_option,
        click.option(
            "--listen",
            metavar="tcp://HOST:PORT",
            default=None,
            help="Let remote bots (`arena bot add NAME --remote`) connect here.",
        ),
        click.option(
            "--curve",
            is_flag=True,
            help="Encrypt and authenticate remote bots' connections with ZeroMQ "
            "CURVE (their tokens must come from `arena bot token --curve`).",
        ),
        click.option(
            "--remote-wait",
            "remote_wait_s",
            type=click.IntRange(1, 86_400),
            default=_DEFAULTS.remote_wait_s,
            show_default=True,
            help="Seconds to wait for a remote bot to connect.",
        ),
    ]
    for option in reversed(options):
        wrapper = option(wrapper)
    return wrapper


def accept_unsandboxed_option(function: Callable[..., Any]) -> Callable[..., Any]:
    """Add the acceptance of bots run unsandboxed on a cluster's workers to a command with
    ``--cluster`` (``unsandboxed_accepted``): given without ``--cluster``, a usage error."""

    @functools.wraps(function)
    def wrapper(*args: Any, cluster: str | None, unsandboxed_accepted: bool, **kwargs: Any) -> Any:
        if unsandboxed_accepted and cluster is None:
            raise click.UsageError(f"{ACCEPT_UNSANDBOXED} is for runs with --cluster")
        return function(*args, cluster=cluster, unsandboxed_accepted=unsandboxed_accepted, **kwargs)

    accept = click.option(
        ACCEPT_UNSANDBOXED,
        "unsandboxed_accepted",
        is_flag=True,
        help="With --cluster and --sandbox auto or off: run although a bot a worker runs "
        "unsandboxed can reach the Dask scheduler and through it run code on every worker.",
    )
    return accept(wrapper)
