"""``arena export``: the web pages as static files, to publish results on any static host.

Every page links to the others by relative file names (``arena.web.links.ExportLinks``), the
replay viewer loads its data (every perspective, packed) from ``game-ID.js`` next to it, and the CSS
and JavaScript are copied into ``static/``: the folder works from a web server and opened
straight from disk. The database is opened read-only. Games whose deal is still being played
in other seat rotations are left out (as the server refuses them), and so are the logs of
bots with a deal still to be played (``tournaments.store.withheld``: the page says why).
"""

from __future__ import annotations

import contextlib
import logging
import shutil
from dataclasses import dataclass
from pathlib import Path

from arena.errors import ArenaError
from arena.web import downloads
from arena.web.app import STATIC
from arena.web.links import ExportLinks
from arena.web.render import render
from arena.web.site import Site
from tournaments.store import game_lists
from tournaments.store.facts import Store
from tournaments.store.game_lists import GamesFilter
from tournaments.store.readonly import open_readonly

__all__ = ["ExportSummary", "export_site"]

log = logging.getLogger(__name__)

GAMES_PER_PAGE = 100


@dataclass(frozen=True)
class ExportSummary:
    """What an export wrote."""

    folder: Path
    pages: int
    replays: int
    skipped: int


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def export_site(
    db_path: str | Path, folder: str | Path, *, tournament: int | None = None, replays: bool = True
) -> ExportSummary:
    """Write the pages of every tournament (or only ``tournament``) into ``folder``: index,
    tournament pages (games page by page, and the games of each pair of entrants), data files,
    bot pages and replays. Only pages that are written are linked to."""
    out = Path(folder).expanduser()
    if out.exists() and not out.is_dir():
        raise ArenaError(f"{out} exists and is not a folder")
    out.mkdir(parents=True, exist_ok=True)
    shutil.copytree(STATIC, out / "static", dirs_exist_ok=True)
    site = Site(str(Path(db_path).expanduser()))
    pages = replayed = 0
    with open_readonly(site.db_path) as store:
        infos = store.list_tournaments()
        if tournament is not None:
            infos = [store.tournament(tournament)]
        shown = game_lists.shown_games(store, [info.id for info in infos])
        skipped = sum(info.games_done for info in infos) - len(shown)  # deals in play
        if not replays:
            shown = set()
        links = ExportLinks(tournaments={info.id for info in infos}, games=shown)
        index = site.index(store, {})
        index["tournaments"] = [
            t for t in index["tournaments"] if t.id in links.tournaments_written
        ]
        _write(out / "index.html", render("index.html", links, **index))
        pages += 1
        bots: set[str] = set()
        for info in infos:
            bots.update(e.bot for e in info.entrants)
            pages += _export_tournament(store, site, links, out, info.id)
            for name, text in _data_files(store, site, info.id):
                _write(out / links.download(info.id, name), text)
        for gid in sorted(shown):
            _export_game(store, site, links, out, gid)
            replayed += 1
        for name in sorted(bots):
            data = site.bot_page(store, name, links=links)
            _write(out / links.bot(name), render("bot.html", links, **data))
            pages += 1
    log.info("exported %d pages and %d replays to %s", pages, replayed, out)
    return ExportSummary(out, pages + replayed, replayed, skipped)


def _export_tournament(store: Store, site: Site, links: ExportLinks, out: Path, tid: int) -> int:
    """A tournament's pages: its games page by page, and the games of each pair of entrants
    (page by page too); returns how many were written."""
    labels = [e.name for e in store.tournament(tid).entrants]
    filters = [GamesFilter()] + [
        GamesFilter(entrant=a, opponent=b) for i, a in enumerate(labels) for b in labels[i + 1 :]
    ]
    written = 0
    for chosen in filters:
        page, pages = 1, 1
        while page <= pages:
            data = site.tournament_page(
                store, tid, links=links, page=page, games_filter=chosen, per_page=GAMES_PER_PAGE
            )
            target = links.tournament(tid, page=page, games_filter=chosen)
            assert target is not None
            _write(out / target, render("tournament.html", links, **data))
            written += 1
            pages = data["games"].pages
            page += 1
    return written


def _data_files(store: Store, site: Site, tid: int) -> list[tuple[str, str]]:
    """A tournament's data files, by name (``links.DOWNLOADS``)."""
    bundle = site.bundle(store, tid)
    lines = game_lists.iter_game_lines(lambda: contextlib.nullcontext(store), tid)
    return [
        ("games.jsonl", "".join(downloads.jsonl(lines))),
        ("rankings.csv", downloads.rankings_csv(bundle.rows)),
        ("crosstable.csv", downloads.crosstable_csv(bundle.crosstable)),
    ]


def _export_game(store: Store, site: Site, links: ExportLinks, out: Path, gid: int) -> None:
    page = links.game(gid)
    assert page is not None
    _write(out / page, render("game.html", links, **site.game_page(store, gid)))
    _write(out / links.replay(gid), site.replay_script(store, gid))
