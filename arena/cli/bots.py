"""``arena bot``: register (after a check), list and remove bots; tokens for remote bots;
bot logs."""

from __future__ import annotations

import shlex
import socket
from pathlib import Path

import click

from arena.cli.common import echo_json
from arena.cli.safety import sandbox_option
from arena.cli.storage import db_option
from arena.errors import ArenaError
from arena.procs.botproc import BotSpec
from arena.procs.logs import bot_logs, logs_folder
from arena.procs.remote import check_listen
from arena.procs.sandbox import SandboxMode
from arena.text import printable
from tournaments.catalogue import (
    Catalogue,
    bundled_bots,
    bundled_version,
    command_version,
    folder_version,
)
from tournaments.gamelogs import LogLine, game_log, tournament_games
from tournaments.registry import BotCheckError, load_manifest, register
from tournaments.remote import TOKEN_TTL_HOURS, add_remote_bot, issue_token
from tournaments.reports import format_table
from tournaments.service import sandbox_for
from tournaments.store import Store


@click.group()
def bot() -> None:
    """Register, list and remove bots; tokens for remote bots; bot logs."""


@bot.command("add", context_settings={"ignore_unknown_options": True})
@click.argument("target", metavar="NAME|PATH")
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
@click.option(
    "--game",
    "games",
    multiple=True,
    metavar="GAME",
    help="A game the bot plays (repeatable; with NAME -- COMMAND). Default: skull.",
)
@click.option("--replace", is_flag=True, help="Replace a bot already registered by that name.")
@click.option(
    "--remote",
    is_flag=True,
    help="A bot started by hand elsewhere that connects over TCP with a token from "
    "`arena bot token NAME` (no command, no check).",
)
@sandbox_option
@db_option
def add(
    target: str,
    command: tuple[str, ...],
    games: tuple[str, ...],
    replace: bool,
    remote: bool,
    sandbox: SandboxMode,
    store: Store,
) -> None:
    """Register a bot after checking that it starts and plays legally.

    \b
    arena bot add NAME -- COMMAND...   a program run by a command line
    arena bot add PATH                 a folder with a bot.toml (name, command, games)
    arena bot add NAME --remote        a bot that joins over TCP (see `arena bot token`)
    """
    if remote:
        if command:
            raise click.UsageError("a remote bot has no command: it is started by hand")
        if target in bundled_bots():
            raise BotCheckError(f"{target!r} is the name of a bundled bot; choose another name")
        info = add_remote_bot(store, target, games or ("skull",), replace=replace)
        click.echo(
            f"registered remote bot {info.name}; give it a token with `arena bot token {info.name}`"
        )
        return
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
                f"`arena bot add {target} -- COMMAND...`"
            )
        manifest = load_manifest(folder)
        name, text = manifest.name, manifest.command
        spec = BotSpec(name=name, argv=tuple(shlex.split(text)), cwd=str(manifest.folder))
        version = folder_version(manifest.folder)
        chosen = games or manifest.games
    if name in bundled_bots():
        raise BotCheckError(f"{name!r} is the name of a bundled bot; choose another name")
    click.echo(f"checking {name} ({', '.join(chosen)})...", err=True)
    box = sandbox_for(sandbox, Path(store.path), Catalogue.of(store).folders())
    info = register(store, name, spec, text, chosen, version, replace=replace, sandbox=box)
    click.echo(f"registered {info.name} version {info.version}")


@bot.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
@db_option
def list_bots(as_json: bool, store: Store) -> None:
    """List the bundled and registered bots."""
    rows = [
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
            }
        )
    if as_json:
        echo_json(rows)
        return
    click.echo(
        format_table(
            ["bot", "kind", "version", "games", "played", "command"],
            [
                [
                    r["name"],
                    r["kind"],
                    r["version"],
                    ",".join(r["games"]) or "-",
                    "-" if r["played"] is None else r["played"],
                    r["command"],
                ]
                for r in rows
            ],
            align="lllrrl",
        )
    )


@bot.command("remove")
@click.argument("name")
@db_option
def remove(name: str, store: Store) -> None:
    """Unregister a bot (past results keep its name and version)."""
    store.remove_bot(name)
    click.echo(f"removed {name}")


@bot.command("token")
@click.argument("name")
@click.option(
    "--endpoint",
    default=None,
    metavar="tcp://HOST:PORT",
    help="Where the bot connects: the arena's --listen address as the bot's machine "
    "reaches it (default: tcp://THIS-HOST:5555).",
)
@click.option(
    "--curve",
    is_flag=True,
    help="Also make CURVE keys, for an arena run with --listen ... --curve.",
)
@click.option(
    "--ttl",
    "ttl_hours",
    type=click.FloatRange(0.01, 24 * 365),
    default=TOKEN_TTL_HOURS,
    show_default=True,
    help="Hours the token stays valid if it is not used.",
)
@db_option
def token(name: str, endpoint: str | None, curve: bool, ttl_hours: float, store: Store) -> None:
    """Print the environment a remote bot NAME needs for one connection.

    The token is single use: ask for a new one for every start of the bot. Only its hash is
    stored; with --curve the bot's secret key is shown here once and stored nowhere.
    """
    endpoint = check_listen(endpoint or f"tcp://{socket.gethostname()}:5555")
    issued = issue_token(store, name, endpoint=endpoint, curve=curve, ttl_hours=ttl_hours)
    click.echo(f"# remote bot {issued.bot}: single use, valid until {issued.expires_at}", err=True)
    click.echo(issued.exports())


@bot.command("logs")
@click.argument("name")
@click.option("--list", "only_list", is_flag=True, help="Only list the log files.")
@click.option(
    "--game",
    "game_id",
    type=int,
    default=None,
    metavar="ID",
    help="Only what it wrote during game ID, by step (see `arena tournament games`).",
)
@click.option(
    "--tournament",
    "tid",
    type=int,
    default=None,
    metavar="ID",
    help="Only what it wrote during the games of tournament ID, game by game.",
)
@click.option(
    "--db",
    "db_path",
    default=None,
    metavar="PATH",
    help="Results database; the logs are in arena-logs/ next to it (default: "
    "$ARENA_DB, else ./arena.db).",
)
def logs(
    name: str, only_list: bool, game_id: int | None, tid: int | None, db_path: str | None
) -> None:
    """Print what bot NAME wrote to its standard output and error (bounded per process),
    each line with the time the arena read it and the game and step it was written at."""
    from tournaments.store import resolve_db_path

    db = resolve_db_path(db_path)
    if game_id is not None or tid is not None:
        show_game_logs(db, name, game_id, tid)
        return
    folder = logs_folder(db)
    files = bot_logs(folder, name)
    if not files:
        raise ArenaError(f"no logs of bot {name!r} in {folder}")
    for path in files:
        if only_list:
            click.echo(f"{path}  {path.stat().st_size} bytes")
            continue
        click.echo(f"==> {path} <==")
        click.echo(
            printable(path.read_text(encoding="utf-8", errors="replace"), keep_lines=True), nl=False
        )


def show_game_logs(db: Path, name: str, game_id: int | None, tid: int | None) -> None:
    """``arena bot logs NAME --game ID`` / ``--tournament ID``: the bot's lines of each game,
    by step (``tournaments.gamelogs``)."""
    if game_id is not None and tid is not None:
        raise click.UsageError("give --game or --tournament, not both")
    with Store.open(db) as store:
        ids = [game_id] if game_id is not None else tournament_games(store, tid)
        shown = 0
        for gid in ids:
            stored = store.game(gid)
            if name not in stored.bots:
                if game_id is not None:
                    raise ArenaError(
                        f"bot {name!r} did not play game {gid} (its bots: "
                        f"{', '.join(dict.fromkeys(stored.bots))})"
                    )
                continue
            found = game_log(store, gid, bot=name)
            if tid is not None and not found.lines and found.withheld is None:
                continue
            shown += 1
            click.echo(f"== game {gid} (tournament {stored.tournament_id}) ==")
            if found.withheld is not None:
                click.echo(f"withheld: {found.withheld}")
                continue
            if not found.lines:
                click.echo(f"{name} wrote nothing during game {gid}")
            for line in found.lines:
                click.echo(log_line_text(line))
            if found.truncated:
                click.echo(f"(only the first {len(found.lines)} lines)")
        if tid is not None and not shown:
            click.echo(f"{name} wrote nothing during the games of tournament {tid}")


def log_line_text(line: LogLine) -> str:
    """One line of a game's log: its step (``*``: its process had several games open, so the
    line may be another's), seat and time, then the text, escaped."""
    step = "*" if line.shared else "-" if line.step is None else str(line.step)
    return f"step {step:>4} seat {line.seat} {line.at[11:23]} | {printable(line.text)}"
