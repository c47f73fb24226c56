"""Bot submission: manifests, versions, the entry check, and how to run a registered bot.

A bot is registered only after it passes the compliance suite of ``arena bot check``
(``tournaments.compliance``): it starts, says hello, echoes ids, plays a few games of each of
its games legally and in time in one process, and exits on bye. Its version is a hash of
its files (a folder bot) or of its command and the files the command names, so results stay
attributable after the bot changes.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shlex
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from arena import identity
from arena import sandbox as sandboxing
from arena.botproc import BotSpec
from arena.errors import ArenaError, BotStartError
from arena.games import names
from arena.logs import logs_folder
from arena.sandbox import Sandbox, SandboxMode
from tournaments.compliance import ComplianceReport, run_checks
from tournaments.remote import is_remote
from tournaments.store import Store, resolve_db_path
from tournaments.values import BotInfo

log = logging.getLogger(__name__)

MANIFEST = "bot.toml"
#: Games of each of its games a bot plays under the referee in its entry check.
ADD_GAMES = 2
SKIP_DIRS = {"__pycache__", ".git", ".venv", "node_modules", ".mypy_cache", ".pytest_cache"}


class BotCheckError(ArenaError):
    """A bot failed its entry check; nothing was registered."""


@dataclass(frozen=True, kw_only=True)
class Manifest:
    """The ``bot.toml`` of a bot folder."""

    name: str
    command: str
    games: tuple[str, ...]
    folder: Path


def load_manifest(folder: Path) -> Manifest:
    """Read and check ``folder/bot.toml`` (keys: name, command, games)."""
    path = folder / MANIFEST
    if not path.is_file():
        raise BotCheckError(f"{folder} has no {MANIFEST} (needs name, command and games)")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise BotCheckError(f"{path} is not valid TOML: {exc}") from None
    name, command, games = data.get("name"), data.get("command"), data.get("games", [])
    if not isinstance(name, str) or not name.strip():
        raise BotCheckError(f"{path}: 'name' must be a non-empty string")
    if not isinstance(command, str) or not command.strip():
        raise BotCheckError(f"{path}: 'command' must be a command line (a string)")
    if isinstance(games, str):
        games = [games]
    if not isinstance(games, list) or not all(isinstance(g, str) for g in games) or not games:
        raise BotCheckError(f"{path}: 'games' must list the games the bot plays")
    return Manifest(name=name.strip(), command=command, games=tuple(games),
                    folder=folder.resolve())


def folder_version(folder: Path) -> str:
    """Hash of every file under ``folder`` (names and contents, in a fixed order)."""
    digest = hashlib.sha256()
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in sorted(files):
            path = Path(root) / name
            digest.update(str(path.relative_to(folder)).encode() + b"\0")
            try:
                digest.update(path.read_bytes())
            except OSError:
                continue
            digest.update(b"\0")
    return digest.hexdigest()[:12]


def command_version(argv: Sequence[str], cwd: str | None = None) -> str:
    """Hash of a command line and of each file it names that exists."""
    digest = hashlib.sha256("\0".join(argv).encode())
    for arg in argv:
        path = Path(cwd or ".") / arg
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def spec_of(info: BotInfo) -> BotSpec:
    """How to run a registered bot (a folder bot runs in its folder; a remote bot connects)."""
    if is_remote(info):
        return BotSpec(name=info.name, argv=(), remote=True)
    try:
        argv = tuple(shlex.split(info.command))
    except ValueError as exc:
        raise BotStartError(f"bot {info.name!r} has an unparsable command: {exc}") from None
    return BotSpec(name=info.name, argv=argv, cwd=info.path or None)


def check_bot(spec: BotSpec, games: Sequence[str], *,
              sandbox: Sandbox | SandboxMode | None = SandboxMode.AUTO) -> ComplianceReport:
    """Run the compliance suite of ``arena bot check`` (``tournaments.compliance``) on the
    bot, with a few games of each of ``games``. Raises BotCheckError naming every failed
    check."""
    if not games:
        raise BotCheckError("name at least one game the bot plays")
    report = run_checks(spec, games, per_game=ADD_GAMES, move_ms=2000, sandbox=sandbox)
    if not report.passed:
        failed = "; ".join(f"{check.title}: {check.detail}" for check in report.failures())
        raise BotCheckError(f"check failed: {failed} (details: `arena bot check`)")
    return report


def register(store: Store, name: str, spec: BotSpec, command: str, games: Sequence[str],
             version: str, *, replace: bool = False,
             sandbox: SandboxMode = SandboxMode.AUTO) -> BotInfo:
    """Check the bot (in ``sandbox`` mode, as ``tournament run`` would), then store it.
    Nothing is written if the check fails."""
    unknown = [g for g in games if g not in names()]
    if unknown:
        raise BotCheckError(f"unknown game(s) {', '.join(unknown)} (games: {', '.join(names())})")
    db_path = Path(store.path)
    identity.protect_arena_files(db_path, logs_folder(db_path))
    folders = [info.path for info in store.list_bots() if info.path]
    check_bot(spec, games, sandbox=sandboxing.resolve(sandbox, hide=[
        *sandboxing.private_paths(db_path, logs_folder(db_path)), *folders]))
    return store.add_bot(name, command, version=version, replace=replace, path=spec.cwd,
                         games=list(games))


def registered_specs(db_path: str | None = None) -> dict[str, BotSpec]:
    """Registered bots of the database at ``db_path`` (default path), if the file exists."""
    path = resolve_db_path(db_path)
    if not path.exists():
        return {}
    with Store.open(path) as store:
        return {info.name: spec_of(info) for info in store.list_bots()}
