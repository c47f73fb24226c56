"""The bot catalogue: what a bot's name means, how to run it, its version and its folder.

A name is looked up in this order: a bot registered in the results database, then a bundled
bot (``bots/manifest.toml``, read as data: the arena never imports a bot), then, for
``arena play`` only, a command line.

A bot's version names the code that runs, and is checked before it runs (``Catalogue.find``):

- a bundled bot: the hash of its module (it changes when the arena is upgraded);
- a folder bot: the digest of the arena's read-only copy of its folder, which it runs from
  (``tournaments.catalogue.botcopies``); every version registered keeps its copy;
- a command bot: the hash of its command line and of the files it names, which are hashed
  again before each run: a bot whose files changed is refused
  (``tournaments.catalogue.commandfiles``);
- a bot registered before the arena kept copies: its old hash, computed again before it runs
  (``tournaments.catalogue.oldversions``).

A tournament runs each entrant's bot at the version it was planned with: a folder bot
registered again since runs its planned copy; a command or bundled bot whose planned code is
gone is refused. Code a participant uploaded (a version marked ``uploaded``, or any version
whose copy is the same content) runs only in the sandbox, whatever it is entered in
(``BotSpec.sandboxed_only``). Registered bots' folders are hidden from every other bot by the
sandbox, like the store of copies; a remote bot runs elsewhere and needs no sandbox here.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.util
import os
import re
import shlex
import sys
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from arena.errors import ArenaError, BotStartError
from arena.procs.botproc import BotSpec
from tournaments.catalogue.botcopies import BotCopies, BotFilesError
from tournaments.catalogue.commandfiles import changes
from tournaments.catalogue.oldversions import command_version, folder_version
from tournaments.catalogue.remote import is_remote
from tournaments.errors import BotChanged, NotFound
from tournaments.store.facts import Store
from tournaments.store.values import BotInfo

#: The package of the bundled bots, and the file in it that lists them.
BOTS_PACKAGE = "bots"
MANIFEST = "manifest.toml"


def bundled_folder() -> Path | None:
    """The folder of the bundled bots' package, found without importing it (None: absent)."""
    found = importlib.util.find_spec(BOTS_PACKAGE)
    locations = list(found.submodule_search_locations or []) if found else []
    return Path(locations[0]) if locations else None


#: The SPEC of a seat a person plays (``arena play --bot human``): never a bot's name.
PERSON = "human"


@functools.cache
def bundled_bots() -> dict[str, tuple[str, ...]]:
    """Bundled bot names with the games each plays (``("*",)`` for any game)."""
    folder = bundled_folder()
    if folder is None:
        return {}
    path = folder / MANIFEST
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        games = data["games"]
        return {str(name): tuple(str(game) for game in listed) for name, listed in games.items()}
    except (OSError, tomllib.TOMLDecodeError, KeyError, AttributeError, TypeError) as exc:
        raise ArenaError(f"the bundled bots' list {path} cannot be read: {exc}") from None


def bundled_description(name: str) -> str | None:
    """A bundled bot's description: the first paragraph of its module's docstring (read as
    text; the bot is not imported). None for any other name."""
    folder = bundled_folder()
    path = folder / f"{name}.py" if folder and name in bundled_bots() else None
    if path is None or not path.is_file():
        return None
    try:
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return None
    return " ".join(doc.split("\n\n")[0].split()) if doc else None


def plays(games: Sequence[str], game: str) -> bool:
    """Whether a bot that declares ``games`` plays ``game``."""
    return "*" in games or game in games


def bundled_spec(name: str) -> BotSpec:
    """How to run bundled bot ``name`` (a warm start may ready its process ahead of its turn:
    ``arena.procs.warm``)."""
    return BotSpec(name=name, argv=(sys.executable, "-m", f"{BOTS_PACKAGE}.{name}"), warm=True)


def bundled_version(name: str) -> str:
    """A bundled bot's version: the hash of its module's source, and of the source of every
    bundled module it imports (``ismcts`` plays Skyjo with ``skyjo_greedy``'s rules of thumb:
    a change to them is a new ``ismcts``). A module that imports none hashes as its source."""
    folder = bundled_folder()
    path = folder / f"{name}.py" if folder else None
    if not path or not path.is_file():
        return hashlib.sha256(name.encode()).hexdigest()[:12]
    return module_version(path)


def module_version(path: Path) -> str:
    """The version of the bundled module at ``path`` (``bundled_version``)."""
    digest = hashlib.sha256(path.read_bytes())
    for used in sorted(_bundled_imports(path) - {path.stem}):
        digest.update(b"\0" + used.encode() + b"\0" + (path.parent / f"{used}.py").read_bytes())
    return digest.hexdigest()[:12]


def _bundled_imports(path: Path) -> set[str]:
    """The bundled modules (by name) the module at ``path`` imports, directly or through one
    another (``from bots import x``, ``from bots.x import y``, ``import bots.x``)."""
    found: set[str] = set()
    todo = [path]
    while todo:
        tree = ast.parse(todo.pop().read_bytes())
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                if node.module == BOTS_PACKAGE:
                    names = [alias.name for alias in node.names]
                elif node.module.startswith(BOTS_PACKAGE + "."):
                    names = [node.module.split(".")[1]]
            elif isinstance(node, ast.Import):
                names = [
                    alias.name.split(".")[1]
                    for alias in node.names
                    if alias.name.startswith(BOTS_PACKAGE + ".")
                ]
            for used in names:
                module = path.parent / f"{used}.py"
                if used not in found and module.is_file():
                    found.add(used)
                    todo.append(module)
    return found


def split_command(text: str) -> tuple[str, ...]:
    """The words of a bot's command line (raises BotStartError if it cannot be parsed or is
    empty)."""
    try:
        argv = tuple(shlex.split(text))
    except ValueError as exc:
        raise BotStartError(f"cannot parse bot command {text!r}: {exc}") from None
    if not argv:
        raise BotStartError("an empty bot spec")
    return argv


#: What a script's file name ends with (``bot.py``, ``bot.js``, ``bot.jar``): letters first,
#: so that a number (``sleep 1.5``) is never taken for one.
_SCRIPT_SUFFIX = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,7}")


def command_spec(text: str) -> BotSpec:
    """A bot run by the command line ``text``, named by what identifies it: the module of
    ``-m``, else the script or folder the program runs (the first argument that exists or
    looks like a script: ``python /x/rogue.py --strategy v2`` is ``rogue.py``), else the
    program itself (``./target/release/mybot --strategy v2`` is ``mybot``, never ``v2``)."""
    argv = split_command(text)
    if "-m" in argv[1:-1]:
        named = argv[argv.index("-m", 1) + 1]
    else:
        scripts = [
            arg
            for arg in argv[1:]
            if not arg.startswith("-")
            and (os.path.exists(arg) or _SCRIPT_SUFFIX.fullmatch(Path(arg).suffix))
        ]
        named = scripts[0] if scripts else argv[0]
    return BotSpec(name=Path(named).name or text[:40], argv=argv)


def relocated(argv: Sequence[str], old: str, new: str) -> tuple[str, ...]:
    """``argv`` with every argument that is a path inside folder ``old`` moved to ``new``
    (a folder bot's command naming its own files, run from a copy of the folder)."""
    prefix = old.rstrip("/") + "/"
    return tuple(
        new + arg[len(old.rstrip("/")) :] if arg.startswith(prefix) or arg == old else arg
        for arg in argv
    )


@dataclass(frozen=True)
class Runnable:
    """A bot as it will run: how (``spec``), its version, whether it is bundled, and the
    digest of the copy a folder bot runs from (None for any other)."""

    spec: BotSpec
    version: str
    bundled: bool = False
    digest: str | None = None


def needs_sandbox(specs: Iterable[BotSpec]) -> bool:
    """Whether any of ``specs`` runs here (a remote bot runs elsewhere, unsandboxed by us)."""
    return any(not spec.remote for spec in specs)


#: What to do when a registered bot's code is no longer its version's.
REGISTER_AGAIN = "register the new code with `arena bot add {name} --replace`"


@dataclass(frozen=True)
class Catalogue:
    """The bots a name can mean: those registered in one database (with every version each
    was registered at), then the bundled ones; ``copies`` is the database's store of folder
    bots' copies."""

    registered: Mapping[str, BotInfo]
    copies: BotCopies | None = None
    versions: Mapping[tuple[str, str], BotInfo] = field(default_factory=dict)

    @classmethod
    def of(cls, store: Store) -> Catalogue:
        return cls(
            {info.name: info for info in store.list_bots()},
            BotCopies.beside(store.path),
            {(info.name, info.version): info for info in store.bot_versions()},
        )

    @classmethod
    def at(cls, db_path: Path) -> Catalogue:
        """The catalogue of the database at ``db_path``; bundled bots only if there is none
        (the file is not created)."""
        if not db_path.exists():
            return cls({}, BotCopies.beside(db_path))
        with Store.open(db_path) as store:
            return cls.of(store)

    def known(self) -> list[str]:
        return sorted(set(bundled_bots()) | set(self.registered))

    @functools.cached_property
    def _uploaded_copies(self) -> frozenset[str]:
        """The digests of the copies of every version a participant uploaded."""
        infos = [*self.registered.values(), *self.versions.values()]
        return frozenset(info.digest for info in infos if info.uploaded and info.digest)

    def uploaded(self, info: BotInfo) -> bool:
        """Whether bot version ``info`` runs code a participant uploaded: it is marked so, or
        its copy holds the content of one that is."""
        return info.uploaded or (info.digest is not None and info.digest in self._uploaded_copies)

    def runnable(self, info: BotInfo, *, advice: str = REGISTER_AGAIN) -> Runnable:
        """How to run registered bot version ``info``, once its code is checked to be that
        version's. Raises BotChanged (naming what changed, then ``advice``) or BotFilesError."""
        if is_remote(info):
            return Runnable(BotSpec(name=info.name, argv=(), remote=True), info.version)
        argv = split_command(info.command)
        todo = advice.format(name=info.name)
        only = self.uploaded(info)
        if info.digest is not None:
            if self.copies is None:
                raise BotFilesError(f"bot {info.name!r} runs from a copy: open its database")
            try:
                copy = str(self.copies.checked(info.digest))
            except BotChanged as exc:
                why = f"bot {info.name!r} version {info.version}: {exc}; {todo}"
                raise BotChanged(why) from None
            if info.path:
                argv = relocated(argv, info.path, copy)
            spec = BotSpec(name=info.name, argv=argv, cwd=copy, sandboxed_only=only)
            return Runnable(spec, info.version, digest=info.digest)
        if info.path:  # a folder bot registered before the arena kept copies
            now = folder_version(Path(info.path))
            if now != info.version:
                raise BotChanged(
                    f"bot {info.name!r} changed since version {info.version} was registered: "
                    f"its folder {info.path} now hashes to {now}; {todo}"
                )
            spec = BotSpec(name=info.name, argv=argv, cwd=info.path, sandboxed_only=only)
            return Runnable(spec, info.version)
        if info.files is None:  # a command bot registered before its files were recorded
            changed = None if command_version(argv) == info.version else "one of its files"
        else:
            changed = changes(info.files, argv, os.getcwd())
        if changed is not None:
            raise BotChanged(
                f"bot {info.name!r} is not the code of its version {info.version}: "
                f"{changed}; {todo}"
            )
        return Runnable(BotSpec(name=info.name, argv=argv, sandboxed_only=only), info.version)

    def find(self, name: str, version: str | None = None, *, advice: str | None = None) -> Runnable:
        """How to run the bot called ``name`` at ``version`` (None: its current one), its code
        checked. Raises NotFound, or BotChanged when that version's code is gone, saying what
        to do (``advice``, ``{name}`` the bot's name: what helps the plan that needs that
        version; by default, register the new code)."""
        info = self.registered.get(name)
        gone = "" if advice is None else f"; {advice.format(name=name)}"
        if info is not None:
            if version is None or version == info.version:
                return self.runnable(info, advice=advice or REGISTER_AGAIN)
            planned = self.versions.get((name, version))
            if planned is None:
                raise BotChanged(
                    f"bot {name!r} is now version {info.version}, and its version {version} "
                    f"was registered before the arena kept every version: it cannot run again{gone}"
                )
            return self.runnable(
                planned,
                advice=advice
                or "put its files back as they were, or plan a new tournament (a folder bot "
                "keeps every version it was registered at)",
            )
        if name in bundled_bots():
            now = bundled_version(name)
            if version is not None and version != now:
                raise BotChanged(
                    f"bundled bot {name!r} is now version {now} (the arena was upgraded), and "
                    f"its version {version} is not kept: it cannot run again{gone}"
                )
            return Runnable(bundled_spec(name), now, bundled=True)
        raise NotFound(
            f"no bot named {name!r} (known: {', '.join(self.known())}); "
            "register one with `arena bot add`"
        )

    def lookup(self, name: str) -> tuple[BotSpec, str]:
        """How to run the bot called ``name`` and its version: ``find(name)`` as a pair."""
        found = self.find(name)
        return found.spec, found.version

    def resolve(self, text: str) -> BotSpec:
        """A bot given on the command line: a registered or bundled bot's name, or a command
        line (raises BotStartError, or BotChanged for a registered bot whose code changed)."""
        text = text.strip()
        if not text:
            raise BotStartError("an empty bot spec")
        if text in self.registered:
            return self.runnable(self.registered[text]).spec
        if text.isidentifier():
            if text in bundled_bots():
                return bundled_spec(text)
            known = ", ".join(sorted(bundled_bots()))
            raise BotStartError(
                f"no bundled or registered bot {text!r} (bundled: {known}); "
                "give a command line to run a program"
            )
        return command_spec(text)

    def planned(self, versions: Mapping[str, tuple[str, str]]) -> PlannedCode:
        """The code of a run whose entrants run ``versions`` (entrant -> bot and version), to
        be checked again during the run (``PlannedCode``)."""
        bots = {bot for bot, _ in versions.values()}
        return PlannedCode(
            Catalogue(
                {name: info for name, info in self.registered.items() if name in bots},
                self.copies,
                {key: info for key, info in self.versions.items() if key[0] in bots},
            ),
            dict(versions),
        )

    def folders(self) -> list[str]:
        """The folders registered bots were registered from (the sandbox hides each from every
        other bot; a bot runs from its copy, or, registered before copies, from its folder)."""
        found = [info.path for info in self.registered.values() if info.path]
        found += [info.path for info in self.versions.values() if info.path]
        return list(dict.fromkeys(found))


@dataclass(frozen=True)
class PlannedCode:
    """The code each entrant of a run was planned with (``versions``: entrant -> bot and
    version), checked again (``check``) by the run before each phase and by its executors
    before each process starts (``tournaments.run.runner``, ``tournaments.run.playing``): a
    command bot's files hashed, a folder bot's copy hashed, a bundled bot's module hashed,
    each against its version. It travels with the run's configuration to ``--jobs`` workers
    (a few records: only the run's bots), not to a cluster's."""

    catalogue: Catalogue
    versions: Mapping[str, tuple[str, str]]

    def check(self, entrants: Iterable[str]) -> None:
        """Raise BotChanged, naming the bot and what changed, if the code of any of
        ``entrants`` is no longer that of its version (entrants it does not know are not
        checked)."""
        for bot, version in dict.fromkeys(self.versions[e] for e in entrants if e in self.versions):
            try:
                self.catalogue.find(bot, version)
            except BotFilesError as exc:  # a file gone, unreadable, or writable by all
                raise BotChanged(f"bot {bot!r} version {version}: {exc}") from None
