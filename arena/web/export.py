"""``arena export``: the web pages as static files, to publish results on any static host.

Every page links to the others by relative file names (``arena.web.links.ExportLinks``), the
replay viewer loads its frames from ``game-ID-PERSPECTIVE.js`` files next to it, and the CSS
and JavaScript are copied into ``static/``: the folder works from a web server and opened
straight from disk. The database is opened read-only. Games whose deal is still being played
in other seat rotations are left out (as the server refuses them), and so are the logs of
bots with a deal still to be played (``tournaments.withheld``: the page says why).
"""

from __future__ import annotations

import logging
import shutil
from dataclasses import dataclass
from pathlib import Path

from arena.errors import ArenaError
from arena.web.app import STATIC, frames_script
from arena.web.frames import REFEREE
from arena.web.links import ExportLinks
from arena.web.readonly import open_readonly
from arena.web.render import render
from arena.web.site import DealInPlay, Site
from tournaments.catalogue import bundled_bots
from tournaments.store import Store

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
    """Write the pages of every tournament (or only ``tournament``) into ``folder``."""
    out = Path(folder).expanduser()
    if out.exists() and not out.is_dir():
        raise ArenaError(f"{out} exists and is not a folder")
    out.mkdir(parents=True, exist_ok=True)
    shutil.copytree(STATIC, out / "static", dirs_exist_ok=True)
    links = ExportLinks()
    site = Site(str(Path(db_path).expanduser()), bundled=tuple(bundled_bots()))
    pages = replayed = skipped = 0
    with open_readonly(site.db_path) as store:
        infos = store.list_tournaments()
        if tournament is not None:
            infos = [store.tournament(tournament)]
        _write(out / "index.html", render("index.html", links, tournaments=infos))
        pages += 1
        bots: set[str] = set()
        for info in infos:
            bots.update(e.bot for e in info.entrants)
            first = site.tournament_page(store, info.id, per_page=GAMES_PER_PAGE)
            for page in range(1, first["games"].pages + 1):
                data = (
                    first
                    if page == 1
                    else site.tournament_page(store, info.id, page=page, per_page=GAMES_PER_PAGE)
                )
                _write(
                    out / links.tournament(info.id, page=page),
                    render("tournament.html", links, **data),
                )
                pages += 1
                if not replays:
                    continue
                for game in data["games"].games:
                    if game["status"] != "done":
                        continue
                    if _export_game(store, site, links, out, game["id"]):
                        replayed += 1
                    else:
                        skipped += 1
        for name in sorted(bots):
            _write(out / links.bot(name), render("bot.html", links, bot=site.bot(store, name)))
            pages += 1
    log.info("exported %d pages and %d replays to %s", pages, replayed, out)
    return ExportSummary(out, pages + replayed, replayed, skipped)


def _export_game(store: Store, site: Site, links: ExportLinks, out: Path, gid: int) -> bool:
    try:
        data = site.game_page(store, gid)
    except DealInPlay:
        return False
    _write(out / links.game(gid), render("game.html", links, **data))
    for perspective in [REFEREE, *map(str, data["seats"])]:
        _write(
            out / links.frames(gid, perspective),
            frames_script(site.game_frames(store, gid, perspective)),
        )
    return True
