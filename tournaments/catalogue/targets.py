"""What a bot SPEC on the command line means, for every command that takes one (``arena bot
check``, ``arena match``, ``arena bot ask``): a bundled or registered bot's name, a folder with
a ``bot.toml``, a program on the PATH, or a command line (one quoted word, or the words after
``--``).

A match stores its entrants by name, so a SPEC that is no name is registered for it
(``match_bot``), after the same check as ``arena bot add``: a command line under its name and
version (``bot.py-3f2a1c9b``: the same files make the same bot, and a changed file a new one),
a folder under its ``bot.toml``'s name.
"""

from __future__ import annotations

import os
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

from arena.games import names
from arena.procs.botproc import BotSpec
from arena.procs.sandbox import SandboxMode
from tournaments.catalogue.botcopies import tree_digest, version_of
from tournaments.catalogue.commandfiles import command_version, record
from tournaments.catalogue.lookup import Catalogue, bundled_bots, split_command
from tournaments.catalogue.registry import (
    DEFAULT_MOVE_MS,
    MANIFEST,
    add_command_bot,
    add_folder_bot,
    load_manifest,
)
from tournaments.errors import UsageProblem
from tournaments.store.facts import Store
from tournaments.store.values import bot_name_problem

__all__ = ["Target", "bot_target", "common_game", "match_bot"]


@dataclass(frozen=True, kw_only=True)
class Target:
    """A bot a SPEC names: how to run it, the games it claims (none known: empty), its
    command line as text, its folder (a folder bot) and whether the SPEC was a known name."""

    spec: BotSpec
    games: tuple[str, ...]
    command: str
    folder: Path | None = None
    named: bool = False


def bot_target(words: tuple[str, ...] | list[str], catalogue: Catalogue) -> Target:
    """The bot a SPEC (one word, or the words of a command line) names. Raises UsageProblem
    for no SPEC or a remote bot (checked where it runs), NotFound or BotStartError for an
    unknown name or an unparsable command."""
    if not words:
        raise UsageProblem(
            f"name a bot: a bundled or registered bot, a folder with a {MANIFEST}, or a "
            "command line"
        )
    text = words[0] if len(words) == 1 else shlex.join(words)
    folder = Path(text)
    if len(words) == 1 and folder.is_dir():
        manifest = load_manifest(folder)
        spec = BotSpec(
            name=manifest.name, argv=tuple(shlex.split(manifest.command)), cwd=str(manifest.folder)
        )
        return Target(
            spec=spec, games=manifest.games, command=manifest.command, folder=manifest.folder
        )
    registered = catalogue.registered
    if (
        text.isidentifier()
        and text not in registered
        and text not in bundled_bots()
        and shutil.which(text)
    ):
        return Target(spec=BotSpec(name=text, argv=(text,)), games=(), command=text)
    spec = catalogue.resolve(text)
    if spec.remote:
        raise UsageProblem(
            f"{spec.name!r} is a remote bot: check it where it runs, as a command line"
        )
    named = text in registered or text in bundled_bots()
    claimed = bundled_bots().get(text, ())
    if text in registered:
        claimed = registered[text].games
    return Target(spec=spec, games=tuple(claimed), command=text, named=named)


def common_game(store: Store, texts: tuple[str, ...] | list[str]) -> str:
    """The one game every bot of SPECs ``texts`` claims to play (``*``: any game), for a
    match given no ``--game``. Raises UsageProblem when there is none, or several, or a
    bot's games are not known (a command line claims none)."""
    catalogue = Catalogue.of(store)
    every = set(names())
    claims = []
    for text in texts:
        words = [text] if Path(text).is_dir() else split_command(text)
        games = bot_target(words, catalogue).games
        claims.append(every if "*" in games else set(games) & every)
    said = "; ".join(
        f"{text} plays {', '.join(sorted(claim)) if claim != every else 'any game'}"
        if claim
        else f"{text} names no game"
        for text, claim in zip(texts, claims)
    )
    common = set.intersection(*claims) if claims else set()
    if len(common) != 1:
        raise UsageProblem(f"give --game GAME: {said}")
    return common.pop()


def match_bot(
    store: Store,
    text: str,
    game: str,
    *,
    sandbox: SandboxMode = SandboxMode.AUTO,
    move_ms: int = DEFAULT_MOVE_MS,
) -> tuple[str, str | None]:
    """The name a match enters the bot of SPEC ``text`` under, and what the user should be
    told: a known name as it is; a command line registered (after ``arena bot add``'s check,
    for ``game``, in ``sandbox``, at the match's ``move_ms``) as ``NAME-VERSION``, unless that
    is registered already; a
    folder under its ``bot.toml``'s name (registered with the same code already, or now).
    Raises BotCheckError when the bot fails its check (nothing is registered), UsageProblem
    for a folder whose name is registered with other code."""
    catalogue = Catalogue.of(store)
    words = [text] if Path(text).is_dir() else split_command(text)
    target = bot_target(words, catalogue)
    if target.named:
        return text, None
    games = tuple(dict.fromkeys([game, *[g for g in target.games if g != "*"]]))
    if target.folder is not None:
        name = target.spec.name
        version = version_of(tree_digest(target.folder))
        if name in catalogue.registered:
            if catalogue.registered[name].version != version:
                raise UsageProblem(
                    f"a bot named {name!r} is registered with other code (version "
                    f"{catalogue.registered[name].version}; {text} is {version}): register it "
                    f"with `arena bot add {text} --replace`, or name another bot"
                )
            return name, None
        done = add_folder_bot(store, target.folder, games=games, sandbox=sandbox, move_ms=move_ms)
        return name, f"registered {text} as bot {name} ({done.checked_text()})"
    argv = target.spec.argv
    version = command_version(shlex.join(argv), record(argv, os.getcwd()))
    name = f"{target.spec.name}-{version[:8]}"
    if bot_name_problem(name) is not None:
        name = f"bot-{version[:8]}"
    if name in catalogue.registered:
        return name, None
    done = add_command_bot(store, name, argv, games=games, sandbox=sandbox, move_ms=move_ms)
    return name, f"registered {text!r} as bot {name} ({done.checked_text()})"
