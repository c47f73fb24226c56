"""CLI options for running untrusted bots: process limits, the sandbox and remote bots.

``run_options`` adds the options to a command and hands it one ``RunOptions`` value;
``RunOptions.setup`` turns it, with the results database, into the limits, the sandbox and the
remote-bot configuration that ``play_match`` and the tournament runner take.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import click

from arena.errors import RemoteError
from arena.procs import identity
from arena.procs import sandbox as sandboxing
from arena.procs.botproc import BotSpec
from arena.procs.limits import Limits
from arena.procs.logs import logs_folder
from arena.procs.remote import REMOTE_WAIT_MS, RemoteConfig, check_listen
from arena.procs.sandbox import Sandbox, SandboxMode
from tournaments.catalogue import needs_sandbox

_DEFAULTS = Limits()


@dataclass(frozen=True, kw_only=True)
class RunOptions:
    """The safety options of one command, as given."""

    time_bank_ms: int = 0
    memory_mb: int = _DEFAULTS.memory_mb
    cpu_s: int = _DEFAULTS.cpu_s
    max_procs: int = _DEFAULTS.max_procs
    log_bytes: int = _DEFAULTS.log_bytes
    sandbox: SandboxMode = SandboxMode.AUTO
    listen: str | None = None
    curve: bool = False
    remote_wait_s: int = REMOTE_WAIT_MS // 1000

    def limits(self, **game: int) -> Limits:
        """Limits with these process limits and the given game limits (``move_ms``...)."""
        return replace(
            Limits(**game),
            time_bank_ms=self.time_bank_ms,
            memory_mb=self.memory_mb,
            cpu_s=self.cpu_s,
            max_procs=self.max_procs,
            log_bytes=self.log_bytes,
        )

    def setup(
        self,
        db_path: Path,
        specs: Iterable[BotSpec],
        folders: Iterable[str] = (),
    ) -> tuple[Path, Sandbox | None, RemoteConfig | None]:
        """The logs folder, the sandbox and the remote configuration for a run.

        ``folders`` are the registered bots' own folders (``Catalogue.folders``); see
        ``resolve_sandbox``. Raises SandboxError or RemoteError (one line each).
        """
        specs = list(specs)
        log_dir = logs_folder(db_path)
        log_dir.mkdir(parents=True, exist_ok=True)
        box = resolve_sandbox(self.sandbox, db_path, folders, local=needs_sandbox(specs))
        remote = None
        wanted = [spec.name for spec in specs if spec.remote]
        if self.listen is not None:
            check_listen(self.listen)
        if wanted and self.listen is None:
            raise RemoteError(
                f"bot {wanted[0]!r} is remote: give --listen tcp://HOST:PORT for it to connect to"
            )
        if self.curve and self.listen is None:
            raise RemoteError("--curve secures remote bots' connections: give --listen too")
        if self.listen is not None:
            from tournaments.remote import remote_config
            from tournaments.store import Store

            with Store.open(db_path) as store:
                remote = remote_config(
                    store, listen=self.listen, curve=self.curve, wait_ms=self.remote_wait_s * 1000
                )
        return log_dir, box, remote


def resolve_sandbox(
    mode: SandboxMode, db_path: Path, folders: Iterable[str] = (), *, local: bool = True
) -> Sandbox | None:
    """The one sandbox of a command that runs bots with the database at ``db_path``.

    It hides the database, its key file and the user's, the logs and every registered bot's
    folder in ``folders`` (a folder bot still sees its own); with no ``local`` bot (only remote
    ones) nothing runs here, so there is no warning about running unsandboxed. Raises
    SandboxError for ``required`` where bubblewrap does not work.
    """
    log_dir = logs_folder(db_path)
    identity.protect_arena_files(db_path, log_dir)
    return sandboxing.resolve(
        mode, hide=[*sandboxing.private_paths(db_path, log_dir), *folders], local=local
    )


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


#: The fewest processes and threads that let a sandboxed Python bot with ZeroMQ start.
MIN_PROCS = 8


def _check_procs(ctx: click.Context, param: click.Parameter, value: int) -> int:
    if 0 < value < MIN_PROCS:
        raise click.BadParameter(
            f"{value} is too few for a bot to start: 0 (no limit) or at least {MIN_PROCS}"
        )
    return value


def run_options(function: Callable[..., Any]) -> Callable[..., Any]:
    """Add the limit, sandbox and remote-bot options; pass ``run_options: RunOptions``."""
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
            default=REMOTE_WAIT_MS // 1000,
            show_default=True,
            help="Seconds to wait for a remote bot to connect.",
        ),
    ]
    for option in reversed(options):
        wrapper = option(wrapper)
    return wrapper
