"""``arena serve`` and ``arena export``: the results in a browser, live or as static files."""

from __future__ import annotations

import threading
import webbrowser

import click

from arena.cli.storage import db_path_option
from tournaments.store.facts import resolve_db_path


@click.command()
@db_path_option()
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on (the default answers this machine only).",
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8000,
    show_default=True,
    help="Port to listen on.",
)
@click.option("--open", "open_browser", is_flag=True, help="Open the home page in a browser.")
def serve(db_path: str | None, host: str, port: int, open_browser: bool) -> None:
    """Serve rankings, live tournaments, bots and game replays over HTTP (read-only).

    Every page has a JSON twin under /api/. The database is opened read-only for each
    request, so a tournament can run meanwhile (its pages update by themselves)."""
    import uvicorn

    from arena.web.app import create_app

    path = resolve_db_path(db_path)
    app = create_app(path, warm=True)
    url = f"http://{'[' + host + ']' if ':' in host else host}:{port}/"
    click.echo(f"serving {path} at {url} (read-only; Ctrl-C to stop)")
    if host not in ("127.0.0.1", "localhost", "::1"):
        click.echo(
            f"note: listening on {host}: anyone who can reach this address sees the "
            "results, the replays and the bots' logs",
            err=True,
        )
    if open_browser:
        threading.Timer(1.0, webbrowser.open, args=(url,)).start()
    uvicorn.run(app, host=host, port=port, log_level="warning")


@click.command()
@click.argument("folder", metavar="DIR")
@click.option(
    "--tournament",
    "tid",
    type=int,
    default=None,
    help="Export only this tournament (default: all).",
)
@click.option("--no-replays", is_flag=True, help="Leave out the game replay pages.")
@db_path_option()
def export(folder: str, tid: int | None, no_replays: bool, db_path: str | None) -> None:
    """Write the web pages into DIR as static files (no server needed to view them)."""
    from arena.web.export import export_site

    summary = export_site(resolve_db_path(db_path), folder, tournament=tid, replays=not no_replays)
    skipped = (
        f"; {summary.skipped} replay(s) left out: their deals are still in play"
        if summary.skipped
        else ""
    )
    click.echo(
        f"exported {summary.pages} pages ({summary.replays} replays) to "
        f"{summary.folder}{skipped}; open {summary.folder / 'index.html'}"
    )
