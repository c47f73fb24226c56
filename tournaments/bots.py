"""The bots' use cases (``arena bot``): register them after the entry check, list and remove
them, give remote bots their tokens, read their logs, and check any bot against the protocol.

Registration is the catalogue's (``tournaments.catalogue.registry``: ``add_command_bot``,
``add_folder_bot``, ``update_bot``, each returning ``Registered``; ``BotCheckError`` carries
the failed check's report); the rest is here:

- ``add_remote``: a bot that joins over TCP (no command, no check);
- ``listed``: the bundled and registered bots, one row each;
- ``token``: a single-use token (and CURVE keys) for a remote bot's next connection;
- ``log_files`` / ``game_logs``: what a bot wrote, whole or game by game (withheld while a deal
  of its tournaments is unfinished: ``tournaments.store.withheld``);
- ``check_request`` then ``check``: ``arena bot check``'s compliance suite for any SPEC.
"""

from __future__ import annotations

import shutil
import socket
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.games import names
from arena.procs.botproc import BotSpec
from arena.procs.remote import check_listen
from arena.procs.sandbox import SandboxMode
from tournaments.catalogue.bot_sandbox import sandbox_for
from tournaments.catalogue.botcopies import BotFilesError
from tournaments.catalogue.compliance import ComplianceReport, run_checks
from tournaments.catalogue.lookup import Catalogue, bundled_bots, bundled_version
from tournaments.catalogue.registry import (
    Announce,
    BotCheckError,
    Registered,
    add_command_bot,
    add_folder_bot,
    update_bot,
)
from tournaments.catalogue.remote import TOKEN_TTL_HOURS, IssuedToken, add_remote_bot, issue_token
from tournaments.catalogue.targets import bot_target
from tournaments.errors import BotChanged, UsageProblem
from tournaments.store.facts import Store
from tournaments.store.gamelogs import GameLog, bot_game_logs
from tournaments.store.values import BotInfo
from tournaments.store.withheld import readable_logs

__all__ = [
    "TOKEN_TTL_HOURS",
    "Announce",
    "BotCheckError",
    "ComplianceReport",
    "IssuedToken",
    "Registered",
    "add_command_bot",
    "add_folder_bot",
    "add_remote",
    "CheckRequest",
    "check",
    "check_request",
    "game_logs",
    "listed",
    "log_files",
    "token",
    "update_bot",
]


def add_remote(
    store: Store, name: str, games: Sequence[str] = (), *, replace: bool = False
) -> BotInfo:
    """Register ``name`` as a remote bot playing ``games`` (none: every game, as for a command
    bot; no command, no check: it runs elsewhere and joins with a token). Raises BotCheckError
    for a bundled bot's name."""
    if name in bundled_bots():
        raise BotCheckError(f"{name!r} is the name of a bundled bot; choose another name")
    return add_remote_bot(store, name, tuple(games) or tuple(names()), replace=replace)


def _changed(catalogue: Catalogue, info: BotInfo) -> str | None:
    """Why a registered command bot's files are no longer its version's code (None: they
    are; a folder bot runs from its copy, a remote bot elsewhere: never changed here)."""
    if info.digest is not None or info.path or not info.files:
        return None
    try:
        catalogue.runnable(info)
    except (BotChanged, BotFilesError) as exc:
        return str(exc)
    return None


def listed(store: Store) -> list[dict[str, Any]]:
    """The bundled bots, then the registered ones: name, kind, version, games, command,
    games played (None for a bundled bot) and, for a command bot whose files changed since
    its version was registered, what changed (``changed``; None otherwise)."""
    rows: list[dict[str, Any]] = [
        {
            "name": name,
            "kind": "bundled",
            "version": bundled_version(name),
            "games": list(games),
            "command": f"python -m bots.{name}",
            "played": None,
        }
        for name, games in sorted(bundled_bots().items())
    ]
    catalogue = Catalogue.of(store)
    for row in rows:
        row["changed"] = None
    for info in store.list_bots():
        data = info.to_dict()
        rows.append(
            {
                "name": info.name,
                "kind": info.kind.value,
                "version": info.version,
                "games": data.get("games") or [],
                "command": info.command,
                "played": info.played,
                "changed": _changed(catalogue, info),
            }
        )
    return rows


def token(
    store: Store,
    name: str,
    *,
    endpoint: str | None = None,
    curve: bool = False,
    ttl_hours: float = TOKEN_TTL_HOURS,
) -> IssuedToken:
    """A single-use token for remote bot ``name``'s next connection to ``endpoint`` (the
    arena's ``--listen`` address as the bot's machine reaches it; default
    ``tcp://THIS-HOST:5555``), with CURVE keys if ``curve``. Raises RemoteError."""
    where = check_listen(endpoint or f"tcp://{socket.gethostname()}:5555")
    return issue_token(store, name, endpoint=where, curve=curve, ttl_hours=ttl_hours)


def log_files(db_path: Path, name: str) -> list[Path]:
    """Bot ``name``'s log files beside the database at ``db_path``, oldest first. Raises
    LogWithheld while they are withheld, NotFound if there are none."""
    return readable_logs(db_path, name)


def game_logs(
    db_path: Path, name: str, *, game_id: int | None = None, tid: int | None = None
) -> list[GameLog]:
    """What bot ``name`` wrote during game ``game_id``, or during each game of tournament
    ``tid`` (``tournaments.store.gamelogs.bot_game_logs``)."""
    with Store.open(db_path) as store:
        return bot_game_logs(store, name, game_id=game_id, tid=tid)


@dataclass(frozen=True)
class CheckRequest:
    """A bot to check (``check_request``): how it runs, the games chosen for it and the folders
    of registered bots (hidden from it by the sandbox)."""

    spec: BotSpec
    games: tuple[str, ...]
    db_path: Path
    folders: tuple[str, ...] = ()

    @property
    def problem(self) -> str | None:
        """Why the games cannot be checked (a game the arena does not know), or None."""
        unknown = [g for g in self.games if g not in names()]
        if not unknown:
            return None
        return f"unknown game(s) {', '.join(unknown)} (games: {', '.join(names())})"


def check_request(spec: Sequence[str], *, games: Sequence[str] = (), db_path: Path) -> CheckRequest:
    """The bot ``spec`` names (a registered or bundled bot, a folder, a command line) and the
    games to check it on: ``games``, else the games it claims, else every game (``problem``
    says if one is unknown). Raises UsageProblem for no SPEC or a remote bot, NotFound or
    BotStartError for an unknown name or an unparsable command."""
    catalogue = Catalogue.at(db_path)
    target = bot_target(tuple(spec), catalogue)
    chosen = tuple(games) or tuple(g for g in target.games if g != "*") or tuple(names())
    return CheckRequest(target.spec, chosen, db_path, tuple(catalogue.folders()))


def check(
    request: CheckRequest,
    *,
    per_game: int = 0,
    table_sizes: Sequence[int] | None = None,
    move_ms: int = 1000,
    startup_ms: int = 10_000,
    seed: int | None = None,
    sandbox: SandboxMode = SandboxMode.AUTO,
    announce: Announce | None = None,
) -> ComplianceReport:
    """``arena bot check``: the compliance suite (``tournaments.catalogue.compliance``) for the
    bot of ``request`` on its games, in ``sandbox``; its output goes to a temporary folder,
    removed after. ``announce`` is told the bot and its games first. Raises UsageProblem for
    a game the arena does not know (``CheckRequest.problem``)."""
    if request.problem is not None:
        raise UsageProblem(request.problem)
    if announce is not None:
        announce(request.spec.name, request.games)
    log_dir = Path(tempfile.mkdtemp(prefix="arena-check-"))
    try:
        return run_checks(
            request.spec,
            request.games,
            per_game=per_game,
            table_sizes=table_sizes,
            move_ms=move_ms,
            startup_ms=startup_ms,
            seed=seed,
            log_dir=log_dir,
            sandbox=sandbox_for(sandbox, request.db_path, request.folders, specs=[request.spec]),
        )
    finally:
        shutil.rmtree(log_dir, ignore_errors=True)
