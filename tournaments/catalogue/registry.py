"""Bot submission: a folder bot's manifest, the entry check, and registration (the use cases of
``arena bot add``).

A bot is registered only after it passes the compliance suite of ``arena bot check``
(``tournaments.catalogue.compliance``): it starts, says hello, echoes ids, plays a few games of each
of its games legally and in time in one process, and exits on bye. It is checked as it will run:

- a folder bot (``add_folder_bot``) is first copied into the arena's store
  (``tournaments.catalogue.botcopies``), and runs from that read-only copy, here and in every
  tournament; its version is the copy's digest;
- a command bot (``add_command_bot``) has the files its command names hashed
  (``tournaments.catalogue.commandfiles``), checked again before each run; its version is the hash
  of its command line and of those files.

The check plays under the move deadline the bot will play under (``move_ms``: every run's
default, ``arena bot add --move-time``, a ladder's or a match's own), and on the games it will be
entered for: those named, else those its ``bot.toml`` lists, else (a command bot) every game, as
``arena bot check`` does. The report says both.

Registering the same code again is the same version (nothing is checked again); new code is a
new version, and the user is told so, and which unfinished tournaments keep the version they
were planned with. ``update_bot`` registers a bot's new code from where it was registered (its
folder, or its command line): ``arena bot add NAME --replace``.
"""

from __future__ import annotations

import os
import shlex
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.errors import ArenaError
from arena.games import names
from arena.procs.botproc import BotSpec
from arena.procs.limits import Limits
from arena.procs.logs import logs_folder
from arena.procs.sandbox import Sandbox, SandboxMode, inside, named_paths, private_paths
from tournaments.catalogue.bot_sandbox import sandbox_for
from tournaments.catalogue.botcopies import BotCopies
from tournaments.catalogue.commandfiles import command_version, record
from tournaments.catalogue.compliance import CheckStop, ComplianceReport, run_checks
from tournaments.catalogue.lookup import PERSON, Catalogue, bundled_bots, split_command
from tournaments.catalogue.remote import is_remote
from tournaments.errors import DuplicateBot, NotFound
from tournaments.store.facts import Store
from tournaments.store.values import (
    BotInfo,
    BotKind,
    bot_name_problem,
)

MANIFEST = "bot.toml"
#: Games of each of its games a bot plays under the referee in its entry check.
ADD_GAMES = 2
#: The move deadline of every run that does not set one (``--move-time``): a bot's entry
#: check plays under it unless told the deadline the bot will play under.
DEFAULT_MOVE_MS = Limits.move_ms


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
    """Read and check ``folder/bot.toml`` (keys: name, command, games; docs/authoring.md):
    ``command`` is a string, split into words as a POSIX shell splits them (``shlex``, no
    expansion), or a list of words, kept as they are."""
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
    if isinstance(command, list) and command and all(isinstance(w, str) for w in command):
        command = shlex.join(command)  # a list is the words themselves, none split again
    if not isinstance(command, str) or not command.strip():
        raise BotCheckError(
            f"{path}: 'command' must be a command line: a string (split as a shell splits "
            'words: "python bot.py --fast") or a list of words (["python", "bot.py"])'
        )
    if isinstance(games, str):
        games = [games]
    if not isinstance(games, list) or not all(isinstance(g, str) for g in games) or not games:
        raise BotCheckError(f"{path}: 'games' must list the games the bot plays")
    return Manifest(name=name.strip(), command=command, games=tuple(games), folder=folder.resolve())


def check_bot(
    spec: BotSpec,
    games: Sequence[str],
    *,
    sandbox: Sandbox | None = None,
    move_ms: int = DEFAULT_MOVE_MS,
    every_game: bool = False,
    stop: CheckStop | None = None,
) -> ComplianceReport:
    """Run the compliance suite of ``arena bot check`` (``tournaments.catalogue.compliance``) on the
    bot, with a few games of each of ``games``, in ``sandbox`` (None: unsandboxed), each move
    within ``move_ms``, until ``stop`` says (None: to its end). Raises BotCheckError naming
    every failed check (``every_game``: the games were every game, none having been named, and
    the error says how to name them), or why the check was stopped."""
    if not games:
        raise BotCheckError("name at least one game the bot plays")
    report = run_checks(
        spec, games, per_game=ADD_GAMES, move_ms=move_ms, sandbox=sandbox, stop=stop
    )
    if report.stopped is not None:
        raise BotCheckError(f"the check was stopped: {report.stopped}", report=report)
    if not report.passed:
        failed = "; ".join(f"{check.title}: {check.detail}" for check in report.failures())
        named = (
            "; it was checked on every game, as none was named: name those it plays with --game"
            if every_game
            else ""
        )
        raise BotCheckError(
            f"check failed ({', '.join(games)}; {move_ms} ms a move): {failed}{named} "
            f"(details: `arena bot check --move-time {move_ms}`)",
            report=report,
        )
    return report


@dataclass(frozen=True)
class Registered:
    """A bot just registered (``info``), the version it had before under that name (None:
    new), whether it was checked (not when its code and games were already registered) and
    at which move deadline, what its owner should be told, and the check's report (None when
    it was not checked)."""

    info: BotInfo
    previous: str | None = None
    checked: bool = True
    warnings: tuple[str, ...] = ()
    report: ComplianceReport | None = None
    move_ms: int = DEFAULT_MOVE_MS

    def checked_text(self) -> str:
        """``checked on skull, skyjo at 1000 ms a move`` (or that it was not checked again)."""
        games = ", ".join(self.info.games)
        if not self.checked:
            return f"not checked again: this code is registered for {games}"
        return f"checked on {games} at {self.move_ms} ms a move"


#: Called with a bot's name and games just before its check starts (the check takes seconds).
Announce = Callable[[str, Sequence[str]], None]


def _check_request(store: Store, name: str, games: Sequence[str], replace: bool) -> BotInfo | None:
    """Refuse a name or games that cannot be registered; the bot registered by that name now."""
    problem = bot_name_problem(name)
    if problem is not None:
        raise BotCheckError(problem)
    if name in bundled_bots():
        raise BotCheckError(f"{name!r} is the name of a bundled bot; choose another name")
    if name == PERSON:
        raise BotCheckError(f"{name!r} stands for a person's seat; choose another name")
    unknown = [g for g in games if g not in names()]
    if unknown:
        raise BotCheckError(f"unknown game(s) {', '.join(unknown)} (games: {', '.join(names())})")
    try:
        existing = store.get_bot(name)
    except NotFound:
        return None
    if not replace:
        raise DuplicateBot(
            f"a bot named {name!r} is already registered (version {existing.version}); "
            f"register its new code with `arena bot add {name} --replace`"
        )
    return existing


def add_folder_bot(
    store: Store,
    folder: Path,
    *,
    games: Sequence[str] = (),
    replace: bool = False,
    sandbox: SandboxMode = SandboxMode.AUTO,
    announce: Announce | None = None,
    move_ms: int = DEFAULT_MOVE_MS,
    uploaded: bool = False,
    stop: CheckStop | None = None,
) -> Registered:
    """Copy the bot in ``folder`` (with its ``bot.toml``) into the arena's store, check it
    from the copy, in ``sandbox`` as a tournament would run it, each move within ``move_ms``,
    and register it (``games``: instead of the manifest's; ``uploaded``: code a participant
    uploaded, which then runs only in the sandbox wherever it is entered; ``stop``: may end
    its check early). Nothing is registered if anything fails."""
    manifest = load_manifest(folder)
    chosen = tuple(games or manifest.games)
    existing = _check_request(store, manifest.name, chosen, replace)
    argv = split_command(manifest.command)
    outside = [
        path
        for path in named_paths(argv[1:], str(manifest.folder))
        if not inside(path, [str(manifest.folder)])
    ]
    if outside:
        raise BotCheckError(
            f"{manifest.folder / MANIFEST}: the command names {outside[0]}, outside the bot's "
            "folder: a folder bot runs what its folder holds; copy it into the folder"
        )
    copies = BotCopies.beside(store.path)
    db_path = Path(store.path)
    private = [*private_paths(db_path, logs_folder(db_path)), str(copies.root)]
    held = [path for path in private if inside(path, [str(manifest.folder)])]
    if held:
        raise BotCheckError(
            f"the bot folder {manifest.folder} holds {held[0]}, which is private to the arena "
            "(database, keys, logs, bot copies): keep the bot in a folder of its own"
        )
    copy = copies.add(manifest.folder)
    info = BotInfo(
        name=manifest.name,
        command=manifest.command,
        path=str(manifest.folder),
        kind=BotKind.REGISTERED,
        version=copy.version,
        games=chosen,
        played=0,
        added_at="",
        digest=copy.digest,
        files=(),
        uploaded=uploaded,
    )
    try:
        return _register(store, info, existing, sandbox, announce, move_ms=move_ms, stop=stop)
    except BaseException:
        if copy.new and not _names_copy(store, copy.digest):
            copies.discard(copy)  # a bot that failed its check leaves nothing behind
        raise


def _names_copy(store: Store, digest: str) -> bool:
    """Whether a bot version names the copy ``digest`` (if the database cannot say: yes)."""
    try:
        return any(info.digest == digest for info in store.bot_versions())
    except ArenaError:
        return True


def add_command_bot(
    store: Store,
    name: str,
    argv: Sequence[str],
    *,
    games: Sequence[str] = (),
    replace: bool = False,
    sandbox: SandboxMode = SandboxMode.AUTO,
    announce: Announce | None = None,
    move_ms: int = DEFAULT_MOVE_MS,
) -> Registered:
    """Hash the files command line ``argv`` names, check the bot in ``sandbox``, each move
    within ``move_ms``, on ``games`` (none: every game, as ``arena bot check`` does) and
    register it. Nothing is registered if anything fails."""
    chosen = tuple(games or names())
    existing = _check_request(store, name, chosen, replace)
    if not argv:
        raise BotCheckError("give the bot's command line after --")
    text = shlex.join(argv)
    files = record(argv, os.getcwd())
    info = BotInfo(
        name=name,
        command=text,
        path=None,
        kind=BotKind.REGISTERED,
        version=command_version(text, files),
        games=chosen,
        played=0,
        added_at="",
        files=files,
    )
    return _register(
        store, info, existing, sandbox, announce, move_ms=move_ms, every_game=not games
    )


def update_bot(
    store: Store,
    name: str,
    *,
    games: Sequence[str] = (),
    sandbox: SandboxMode = SandboxMode.AUTO,
    announce: Announce | None = None,
    move_ms: int = DEFAULT_MOVE_MS,
) -> Registered:
    """Register the code of registered bot ``name`` again, from where it was registered: its
    folder (a new copy), or its command line (its files hashed again), checked each move
    within ``move_ms``."""
    existing = store.get_bot(name)
    if is_remote(existing):
        raise BotCheckError(f"{name!r} is a remote bot: its code runs elsewhere")
    if existing.path:
        manifest = load_manifest(Path(existing.path))
        if manifest.name != name:
            raise BotCheckError(
                f"{existing.path}/{MANIFEST} now names the bot {manifest.name!r}, not {name!r}"
            )
        return add_folder_bot(
            store,
            Path(existing.path),
            games=games,
            replace=True,
            sandbox=sandbox,
            announce=announce,
            move_ms=move_ms,
        )
    return add_command_bot(
        store,
        name,
        split_command(existing.command),
        games=games or existing.games,
        replace=True,
        sandbox=sandbox,
        announce=announce,
        move_ms=move_ms,
    )


def _register(
    store: Store,
    info: BotInfo,
    existing: BotInfo | None,
    mode: SandboxMode,
    announce: Announce | None,
    *,
    move_ms: int,
    every_game: bool = False,
    stop: CheckStop | None = None,
) -> Registered:
    """Check ``info`` as it will run, each move within ``move_ms`` (unless that code and
    those games are registered), then store it."""
    previous = existing.version if existing else None
    same = ("version", "command", "path", "games", "digest", "files")
    if (
        existing is not None
        and all(getattr(existing, k) == getattr(info, k) for k in same)
        and existing.uploaded >= info.uploaded  # code now uploaded is marked (and checked)
    ):
        return Registered(existing, previous, checked=False, move_ms=move_ms)
    if announce is not None:
        announce(info.name, info.games)
    report = check_again(store, info, mode, move_ms=move_ms, every_game=every_game, stop=stop)
    stored = store.add_bot(
        info.name,
        info.command,
        version=info.version,
        path=info.path,
        games=info.games,
        replace=existing is not None,
        digest=info.digest,
        files=info.files,
        uploaded=info.uploaded,
    )
    return Registered(
        stored, previous, warnings=_planned_before(store, stored), report=report, move_ms=move_ms
    )


def check_again(
    store: Store,
    info: BotInfo,
    mode: SandboxMode,
    *,
    move_ms: int = DEFAULT_MOVE_MS,
    every_game: bool = False,
    stop: CheckStop | None = None,
) -> ComplianceReport:
    """The entry check of bot version ``info`` (registered, or about to be) as it will run:
    from its copy or command line, in sandbox ``mode``, each move within ``move_ms`` (a
    ladder checks the same code again at its own deadline), until ``stop`` says. Raises
    BotCheckError."""
    catalogue = Catalogue.of(store)
    spec = catalogue.runnable(info).spec
    box = sandbox_for(mode, Path(store.path), catalogue.folders(), specs=[spec])
    return check_bot(
        spec, info.games, sandbox=box, move_ms=move_ms, every_game=every_game, stop=stop
    )


def _planned_before(store: Store, info: BotInfo) -> tuple[str, ...]:
    """What to tell the owner of a bot just registered at a new version about the unfinished
    tournaments planned with another version of it."""
    rows = store.unfinished_with_other_version(info.name, info.version)
    if info.digest is not None:
        keeps = "goes on with that version (its copy is kept)"
    else:
        keeps = "goes on with that version only while its files are as they were"
    return tuple(
        f"tournament {tid} was planned with {info.name} version {version}: it {keeps}"
        for tid, version in rows
    )
