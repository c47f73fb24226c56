"""The bot catalogue: what a bot's name means, how to run it, its version and its folder.

A name is looked up in this order: a bot registered in the results database, then a bundled
bot (``bots/manifest.toml``, read as data: the arena never imports a bot), then, for
``arena play`` only, a command line. A bot's version is a hash of what it runs: a bundled bot's
module, a folder bot's files, or a command and the files it names. Registered bots that run in
a folder of their own have that folder hidden from every other bot by the sandbox; a remote bot
runs elsewhere and needs no sandbox here.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import re
import shlex
import stat
import sys
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.errors import ArenaError, BotStartError
from arena.procs.botproc import BotSpec
from tournaments.errors import NotFound, TournamentError
from tournaments.remote import is_remote
from tournaments.store import Store
from tournaments.values import BotInfo

#: The package of the bundled bots, and the file in it that lists them.
BOTS_PACKAGE = "bots"
MANIFEST = "manifest.toml"
#: Folders left out of a folder bot's version.
SKIP_DIRS = {"__pycache__", ".git", ".venv", "node_modules", ".mypy_cache", ".pytest_cache"}


def bundled_folder() -> Path | None:
    """The folder of the bundled bots' package, found without importing it (None: absent)."""
    found = importlib.util.find_spec(BOTS_PACKAGE)
    locations = list(found.submodule_search_locations or []) if found else []
    return Path(locations[0]) if locations else None


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


def plays(games: Sequence[str], game: str) -> bool:
    """Whether a bot that declares ``games`` plays ``game``."""
    return "*" in games or game in games


def bundled_spec(name: str) -> BotSpec:
    """How to run bundled bot ``name``."""
    return BotSpec(name=name, argv=(sys.executable, "-m", f"{BOTS_PACKAGE}.{name}"))


def bundled_version(name: str) -> str:
    """A bundled bot's version: the hash of its module's source."""
    folder = bundled_folder()
    path = folder / f"{name}.py" if folder else None
    data = path.read_bytes() if path and path.is_file() else name.encode()
    return hashlib.sha256(data).hexdigest()[:12]


#: The most bytes of a bot's files a version hash reads (a bigger bot folder is refused).
MAX_HASHED_BYTES = 1 << 30


def _hash_file(digest: Any, path: Path, budget: list[int]) -> None:
    """Add one entry of a bot's files to ``digest``: a regular file's bytes, a link's target
    (never followed), or only the kind of anything else (a FIFO or a device is never opened,
    so a hostile folder cannot make the hash block or read without end)."""
    try:
        info = os.lstat(path)
    except OSError:
        return
    if stat.S_ISLNK(info.st_mode):
        digest.update(b"link:" + os.fsencode(os.readlink(path)))
    elif not stat.S_ISREG(info.st_mode):
        digest.update(b"special:" + str(stat.S_IFMT(info.st_mode)).encode())
    else:
        budget[0] -= info.st_size
        if budget[0] < 0:
            raise TournamentError(
                f"the bot's files are over {MAX_HASHED_BYTES >> 20} MiB; keep data elsewhere"
            )
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            return
        with os.fdopen(fd, "rb") as file:
            for chunk in iter(lambda: file.read(1 << 20), b""):
                digest.update(chunk)


def folder_version(folder: Path) -> str:
    """Hash of every file under ``folder`` (names and contents, in a fixed order)."""
    digest = hashlib.sha256()
    budget = [MAX_HASHED_BYTES]
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in sorted(files):
            path = Path(root) / name
            digest.update(str(path.relative_to(folder)).encode() + b"\0")
            _hash_file(digest, path, budget)
            digest.update(b"\0")
    return digest.hexdigest()[:12]


def command_version(argv: Sequence[str], cwd: str | None = None) -> str:
    """Hash of a command line and of each file it names that exists."""
    digest = hashlib.sha256("\0".join(argv).encode())
    budget = [MAX_HASHED_BYTES]
    for arg in argv:
        path = Path(cwd or ".") / arg
        if path.is_file():
            _hash_file(digest, path.resolve(), budget)
    return digest.hexdigest()[:12]


#: What a script's file name ends with (``bot.py``, ``bot.js``, ``bot.jar``): letters first,
#: so that a number (``sleep 1.5``) is never taken for one.
_SCRIPT_SUFFIX = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,7}")


def command_spec(text: str) -> BotSpec:
    """A bot run by the command line ``text``, named by what identifies it: the module of
    ``-m``, else the script or folder the program runs (the first argument that exists or
    looks like a script: ``python /x/rogue.py --strategy v2`` is ``rogue.py``), else the
    program itself (``./target/release/mybot --strategy v2`` is ``mybot``, never ``v2``)."""
    try:
        argv = tuple(shlex.split(text))
    except ValueError as exc:
        raise BotStartError(f"cannot parse bot command {text!r}: {exc}") from None
    if not argv:
        raise BotStartError("an empty bot spec")
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


def spec_of(info: BotInfo) -> BotSpec:
    """How to run a registered bot (a folder bot runs in its folder; a remote bot connects)."""
    if is_remote(info):
        return BotSpec(name=info.name, argv=(), remote=True)
    try:
        argv = tuple(shlex.split(info.command))
    except ValueError as exc:
        raise BotStartError(f"bot {info.name!r} has an unparsable command: {exc}") from None
    return BotSpec(name=info.name, argv=argv, cwd=info.path or None)


def needs_sandbox(specs: Iterable[BotSpec]) -> bool:
    """Whether any of ``specs`` runs here (a remote bot runs elsewhere, unsandboxed by us)."""
    return any(not spec.remote for spec in specs)


@dataclass(frozen=True)
class Catalogue:
    """The bots a name can mean: those registered in one database, then the bundled ones."""

    registered: Mapping[str, BotInfo]

    @classmethod
    def of(cls, store: Store) -> Catalogue:
        return cls({info.name: info for info in store.list_bots()})

    @classmethod
    def at(cls, db_path: Path) -> Catalogue:
        """The catalogue of the database at ``db_path``; bundled bots only if there is none
        (the file is not created)."""
        if not db_path.exists():
            return cls({})
        with Store.open(db_path) as store:
            return cls.of(store)

    def known(self) -> list[str]:
        return sorted(set(bundled_bots()) | set(self.registered))

    def known_name(self, text: str) -> bool:
        """Whether ``text`` is a registered or bundled bot's name."""
        return text in self.registered or text in bundled_bots()

    def lookup(self, name: str) -> tuple[BotSpec, str]:
        """How to run the bot called ``name`` and its version (raises NotFound)."""
        info = self.registered.get(name)
        if info is not None:
            return spec_of(info), info.version
        if name in bundled_bots():
            return bundled_spec(name), bundled_version(name)
        raise NotFound(
            f"no bot named {name!r} (known: {', '.join(self.known())}); "
            "register one with `arena bot add`"
        )

    def resolve(self, text: str) -> BotSpec:
        """A bot given on the command line: a registered or bundled bot's name, or a command
        line (raises BotStartError)."""
        text = text.strip()
        if not text:
            raise BotStartError("an empty bot spec")
        if text in self.registered:
            return spec_of(self.registered[text])
        if text.isidentifier():
            if text in bundled_bots():
                return bundled_spec(text)
            known = ", ".join(sorted(bundled_bots()))
            raise BotStartError(
                f"no bundled or registered bot {text!r} (bundled: {known}); "
                "give a command line to run a program"
            )
        return command_spec(text)

    def folders(self) -> list[str]:
        """The folders of registered bots that run in a folder of their own (the sandbox hides
        each from every other bot)."""
        return [info.path for info in self.registered.values() if info.path]
