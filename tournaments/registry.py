"""Bot submission: a folder bot's manifest, the entry check, and registration.

A bot is registered only after it passes the compliance suite of ``arena bot check``
(``tournaments.compliance``): it starts, says hello, echoes ids, plays a few games of each of
its games legally and in time in one process, and exits on bye. Its version
(``tournaments.catalogue``) is a hash of its files (a folder bot) or of its command and the
files the command names, so results stay attributable after the bot changes.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.errors import ArenaError
from arena.games import names
from arena.procs.botproc import BotSpec
from arena.procs.sandbox import Sandbox
from tournaments.compliance import ComplianceReport, run_checks
from tournaments.store import Store
from tournaments.values import BotInfo, bot_name_problem

MANIFEST = "bot.toml"
#: Games of each of its games a bot plays under the referee in its entry check.
ADD_GAMES = 2


class BotCheckError(ArenaError):
    """A bot failed its entry check; nothing was registered. ``report`` is the check's whole
    report when the check ran (None for a bot refused before it)."""

    def __init__(self, message: str, *, report: ComplianceReport | None = None) -> None:
        super().__init__(message)
        self.report = report


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
    problem = bot_name_problem(name.strip() if isinstance(name, str) else name)
    if problem is not None:
        raise BotCheckError(f"{path}: {problem}")
    if not isinstance(command, str) or not command.strip():
        raise BotCheckError(f"{path}: 'command' must be a command line (a string)")
    if isinstance(games, str):
        games = [games]
    if not isinstance(games, list) or not all(isinstance(g, str) for g in games) or not games:
        raise BotCheckError(f"{path}: 'games' must list the games the bot plays")
    return Manifest(name=name.strip(), command=command, games=tuple(games), folder=folder.resolve())


def check_bot(
    spec: BotSpec, games: Sequence[str], *, sandbox: Sandbox | None = None
) -> ComplianceReport:
    """Run the compliance suite of ``arena bot check`` (``tournaments.compliance``) on the
    bot, with a few games of each of ``games``, in ``sandbox`` (None: unsandboxed). Raises
    BotCheckError naming every failed check."""
    if not games:
        raise BotCheckError("name at least one game the bot plays")
    report = run_checks(spec, games, per_game=ADD_GAMES, move_ms=2000, sandbox=sandbox)
    if not report.passed:
        failed = "; ".join(f"{check.title}: {check.detail}" for check in report.failures())
        raise BotCheckError(f"check failed: {failed} (details: `arena bot check`)", report=report)
    return report


def register(
    store: Store,
    name: str,
    spec: BotSpec,
    command: str,
    games: Sequence[str],
    version: str,
    *,
    replace: bool = False,
    sandbox: Sandbox | None = None,
    on_report: Callable[[ComplianceReport], None] | None = None,
) -> BotInfo:
    """Check the bot (in ``sandbox``, as ``tournament run`` would run it), then store it.
    Nothing is written if the check fails (the BotCheckError holds the check's report);
    ``on_report`` sees the report of a check that passed."""
    problem = bot_name_problem(name)
    if problem is not None:
        raise BotCheckError(problem)
    unknown = [g for g in games if g not in names()]
    if unknown:
        raise BotCheckError(f"unknown game(s) {', '.join(unknown)} (games: {', '.join(names())})")
    report = check_bot(spec, games, sandbox=sandbox)
    if on_report is not None:
        on_report(report)
    return store.add_bot(
        name, command, version=version, replace=replace, path=spec.cwd, games=list(games)
    )
