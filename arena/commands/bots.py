"""``arena bot``: register (after a check), list and remove bots."""

from __future__ import annotations

import shlex
from pathlib import Path

import click

from arena.botproc import BotSpec, bundled_bots
from arena.commands.common import echo_json, table
from arena.commands.storage import bundled_version, db_option
from tournaments.registry import (BotCheckError, command_version, folder_version,
                                  load_manifest, register)
from tournaments.store import Store


@click.group()
def bot() -> None:
    """Register, list and remove bots."""


@bot.command("add", context_settings={"ignore_unknown_options": True})
@click.argument("target", metavar="NAME|PATH")
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
@click.option("--game", "games", multiple=True, metavar="GAME",
              help="A game the bot plays (repeatable; with NAME -- COMMAND). Default: skull.")
@click.option("--replace", is_flag=True, help="Replace a bot already registered by that name.")
@db_option
def add(target: str, command: tuple[str, ...], games: tuple[str, ...], replace: bool,
        store: Store) -> None:
    """Register a bot after checking that it starts and plays legally.

    \b
    arena bot add NAME -- COMMAND...   a program run by a command line
    arena bot add PATH                 a folder with a bot.toml (name, command, games)
    """
    if command:
        name = target
        argv = tuple(command)
        text = shlex.join(argv)
        spec = BotSpec(name=name, argv=argv)
        version = command_version(argv)
        chosen = games or ("skull",)
    else:
        folder = Path(target)
        if not folder.is_dir():
            raise click.UsageError(
                f"{target!r} is not a folder; to register a command use "
                f"`arena bot add {target} -- COMMAND...`")
        manifest = load_manifest(folder)
        name, text = manifest.name, manifest.command
        spec = BotSpec(name=name, argv=tuple(shlex.split(text)), cwd=str(manifest.folder))
        version = folder_version(manifest.folder)
        chosen = games or manifest.games
    if name in bundled_bots():
        raise BotCheckError(f"{name!r} is the name of a bundled bot; choose another name")
    click.echo(f"checking {name} ({', '.join(chosen)})...", err=True)
    info = register(store, name, spec, text, chosen, version, replace=replace)
    click.echo(f"registered {info.name} version {info.version}")


@bot.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
@db_option
def list_bots(as_json: bool, store: Store) -> None:
    """List the bundled and registered bots."""
    rows = [{"name": name, "kind": "bundled", "version": bundled_version(name),
             "games": list(games), "command": f"python -m bots.{name}", "played": None}
            for name, games in sorted(bundled_bots().items())]
    for info in store.list_bots():
        data = info.to_dict()
        rows.append({"name": info.name, "kind": info.kind.value, "version": info.version,
                     "games": data.get("games") or [], "command": info.command,
                     "played": info.played})
    if as_json:
        echo_json(rows)
        return
    click.echo(table(["bot", "kind", "version", "games", "played", "command"],
                     [[r["name"], r["kind"], r["version"], ",".join(r["games"]) or "-",
                       "-" if r["played"] is None else r["played"], r["command"]]
                      for r in rows], "lllrrl"))


@bot.command("remove")
@click.argument("name")
@db_option
def remove(name: str, store: Store) -> None:
    """Unregister a bot (past results keep its name and version)."""
    store.remove_bot(name)
    click.echo(f"removed {name}")
