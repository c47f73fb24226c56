"""``arena bot``: register (after a check), list and remove bots; tokens for remote bots;
bot logs (``tournaments.bots``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import click

from arena.cli.common import echo_json, json_option, move_time_option
from arena.cli.safety import sandbox_option
from arena.cli.storage import db_option, db_path_option, read_db_option
from arena.text import printable
from tournaments import bots
from tournaments.reports import format_table
from tournaments.service import SandboxMode
from tournaments.store.facts import Store, resolve_db_path
from tournaments.store.gamelogs import GameLogLine


@click.group()
def bot() -> None:
    """Check a bot (bot check), ask it a recorded turn (bot ask), register, list, logs."""


@bot.command("add", context_settings={"ignore_unknown_options": True})
@click.argument("target", metavar="NAME|PATH")
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
@click.option(
    "--game",
    "games",
    multiple=True,
    metavar="GAME",
    help="A game the bot plays (repeatable). Default: the bot.toml's games, a command "
    "bot's games when registered again, else every game (as `arena bot check`).",
)
@click.option(
    "--replace",
    is_flag=True,
    help="Register a new version of a bot already registered by that name (alone with NAME: "
    "from its folder or its command line, as registered).",
)
@click.option(
    "--remote",
    is_flag=True,
    help="A bot started by hand elsewhere that connects over TCP with a token from "
    "`arena bot token NAME` (no command, no check).",
)
@move_time_option
@sandbox_option
@db_option
def add(
    target: str,
    command: tuple[str, ...],
    games: tuple[str, ...],
    replace: bool,
    remote: bool,
    move_ms: int,
    sandbox: SandboxMode,
    store: Store,
) -> None:
    """Register a bot after checking that it starts and plays legally.

    \b
    arena bot add NAME -- COMMAND...   a program run by a command line
    arena bot add PATH                 a folder with a bot.toml (name, command, games),
                                       copied into arena-bots/ and run from that copy
    arena bot add NAME --replace       the bot's new code, from where it was registered
    arena bot add NAME --remote        a bot that joins over TCP (see `arena bot token`)

    The check plays every move under --move-time, the deadline of every run that sets none:
    a bot that will play under a longer one is checked with that --move-time, and a run with
    a shorter one is stricter than its check. The same code registered again is the same
    version; new code is a new version.
    """
    if remote:
        if command:
            raise click.UsageError("a remote bot has no command: it is started by hand")
        info = bots.add_remote(store, target, games, replace=replace)
        click.echo(
            f"registered remote bot {info.name} for {', '.join(info.games)}; give it a token "
            f"with `arena bot token {info.name}`"
        )
        return

    def announce(name: str, chosen: Sequence[str]) -> None:
        click.echo(f"checking {name} ({', '.join(chosen)})...", err=True)

    how = {"sandbox": sandbox, "announce": announce, "move_ms": move_ms}
    if command:
        done = bots.add_command_bot(store, target, command, games=games, replace=replace, **how)
    elif Path(target).is_dir():
        done = bots.add_folder_bot(store, Path(target), games=games, replace=replace, **how)
    elif replace:
        done = bots.update_bot(store, target, games=games, **how)
    else:
        raise click.UsageError(
            f"{target!r} is not a folder; to register a command use "
            f"`arena bot add {target} -- COMMAND...`, to register a registered bot's new code "
            f"`arena bot add {target} --replace`"
        )
    info = done.info
    if not done.checked:
        click.echo(f"{info.name} is unchanged: version {info.version} is registered")
    else:
        how = (
            ""
            if done.previous is None
            else " again"
            if done.previous == info.version
            else f", a new version (was {done.previous})"
        )
        click.echo(f"registered {info.name} version {info.version}{how}; {done.checked_text()}")
    for line in done.warnings:
        click.echo(f"note: {line}", err=True)


@bot.command("list")
@json_option()
@read_db_option
def list_bots(as_json: bool, store: Store) -> None:
    """List the bundled and registered bots. A command bot whose files changed since its
    version was registered is marked "(changed)", and why is said on stderr: it will not run
    until `arena bot add NAME --replace` registers the new code."""
    rows = bots.listed(store)
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
                    r["version"] + (" (changed)" if r["changed"] else ""),
                    ",".join(r["games"]) or "-",
                    "-" if r["played"] is None else r["played"],
                    r["command"],
                ]
                for r in rows
            ],
            align="lllrrl",
        )
    )
    for row in rows:
        if row["changed"]:
            click.echo(f"changed: {printable(row['changed'])}", err=True)


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
    default=bots.TOKEN_TTL_HOURS,
    show_default=True,
    help="Hours the token stays valid if it is not used.",
)
@db_option
def token(name: str, endpoint: str | None, curve: bool, ttl_hours: float, store: Store) -> None:
    """Print the environment a remote bot NAME needs for one connection.

    The token is single use: ask for a new one for every start of the bot. Only its hash is
    stored; with --curve the bot's secret key is shown here once and stored nowhere.
    """
    issued = bots.token(store, name, endpoint=endpoint, curve=curve, ttl_hours=ttl_hours)
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
@db_path_option(
    "Results database; the logs are in arena-logs/ next to it (default: "
    "$ARENA_DB, else ./arena.db)."
)
def logs(
    name: str, only_list: bool, game_id: int | None, tid: int | None, db_path: str | None
) -> None:
    """Print what bot NAME wrote to its standard output and error (bounded per process),
    each line with the time the arena read it and the game and step it was written at.

    A log is withheld while a tournament the bot is entered in has a deal to play."""
    db = resolve_db_path(db_path)
    if game_id is not None or tid is not None:
        show_game_logs(db, name, game_id, tid)
        return
    for path in bots.log_files(db, name):
        if only_list:
            click.echo(f"{path}  {path.stat().st_size} bytes")
            continue
        click.echo(f"==> {path} <==")
        click.echo(
            printable(path.read_text(encoding="utf-8", errors="replace"), keep_lines=True), nl=False
        )


def show_game_logs(db: Path, name: str, game_id: int | None, tid: int | None) -> None:
    """``arena bot logs NAME --game ID`` / ``--tournament ID``: the bot's lines of each game,
    by step (``tournaments.bots.game_logs``); exit status 1 if any was withheld."""
    if game_id is not None and tid is not None:
        raise click.UsageError("give --game or --tournament, not both")
    found = bots.game_logs(db, name, game_id=game_id, tid=tid)
    withheld = 0
    for log in found:
        click.echo(f"== game {log.game_id} (tournament {log.tournament_id}) ==")
        if log.withheld is not None:
            click.echo(f"withheld: {log.withheld}")
            withheld += 1
            continue
        if not log.lines:
            click.echo(f"{name} wrote nothing during game {log.game_id}")
        for line in log.lines:
            click.echo(log_line_text(line))
        if log.truncated:
            click.echo(f"(only the first {len(log.lines)} lines)")
    if tid is not None and not found:
        click.echo(f"{name} wrote nothing during the games of tournament {tid}")
    if withheld:  # as ``arena bot logs NAME`` exits for the same withholding
        raise click.ClickException(
            f"{withheld} of {len(found)} game log(s) of {name} withheld (shown once their "
            "deals are complete)"
        )


def log_line_text(line: GameLogLine) -> str:
    """One line of a game's log: its step (``*``: its process had several games open, so the
    line may be another's), seat and time, then the text, escaped."""
    step = "*" if line.shared else "-" if line.step is None else str(line.step)
    return f"step {step:>4} seat {line.seat} {line.at[11:23]} | {printable(line.text)}"


def _add_commands() -> None:
    from arena.cli.ask import ask
    from arena.cli.check import check

    bot.add_command(check)
    bot.add_command(ask)


_add_commands()
