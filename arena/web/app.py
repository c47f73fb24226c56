"""The web app (Starlette): pages and their JSON twins over one results database, read-only.

Requests read the database through read-only connections (``tournaments.store.readonly``)
kept in a small pool between requests; an idle reader holds no lock, so a running tournament
never waits on the server. Errors become a clear page
(or ``{"error": ...}`` under ``/api/``) with a 4xx/5xx status and never a traceback: unknown
ids 404, a deal still in play 409, bad parameters 400, a database that cannot be read
(missing, corrupt, locked, another schema) 503; anything else is logged and answered 500.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from arena.errors import ArenaError
from arena.web import downloads
from arena.web.endpoints import HEADERS, LINKS, endpoint, error_response
from arena.web.frames import REFEREE
from arena.web.render import render
from arena.web.site import Site
from tournaments import published
from tournaments.errors import NotFound
from tournaments.store import game_lists
from tournaments.store.facts import Store
from tournaments.store.game_lists import GamesFilter
from tournaments.store.readonly import ReadOnlyPool

__all__ = ["STATIC", "create_app"]

log = logging.getLogger(__name__)

STATIC = Path(__file__).resolve().parent / "static"


class BadRequest(ArenaError):
    """A request parameter that is not valid."""


def _int(request: Request, name: str, default: int | None = None) -> int | None:
    raw = request.query_params.get(name)
    if raw in (None, ""):
        return default
    try:
        value = int(raw)
    except ValueError:
        raise BadRequest(f"{name} must be a whole number, not {raw!r}") from None
    if not 0 <= value <= 10**9:
        raise BadRequest(f"{name} must be between 0 and 1000000000")
    return value


_WHAT = {"tid": "tournament", "game_id": "game"}


def _path_int(request: Request, name: str) -> int:
    raw = request.path_params[name]
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 18:
        raise NotFound(f"no {_WHAT[name]} {raw!r}")
    return int(raw)


@endpoint("html")
def index_page(request: Request, store: Store, site: Site) -> str:
    return render("index.html", LINKS, **site.index(store, request.query_params))


@endpoint("json")
def tournaments_api(request: Request, store: Store, site: Site) -> Any:
    return published.tournaments_data(store)


@endpoint("html")
def tournament_page(request: Request, store: Store, site: Site) -> str:
    data = site.tournament_page(
        store,
        _path_int(request, "tid"),
        links=LINKS,
        page=_int(request, "page", 1) or 1,
        games_filter=GamesFilter.from_params(request.query_params),
    )
    return render("tournament.html", LINKS, **data)


@endpoint("json")
def tournament_api(request: Request, store: Store, site: Site) -> Any:
    return site.tournament_json(store, _path_int(request, "tid"))


@endpoint("json")
def rankings_api(request: Request, store: Store, site: Site) -> Any:
    return site.bundle(store, _path_int(request, "tid")).rankings


@endpoint("json")
def crosstable_api(request: Request, store: Store, site: Site) -> Any:
    return site.bundle(store, _path_int(request, "tid")).crosstable


@endpoint("json")
def history_api(request: Request, store: Store, site: Site) -> Any:
    tid = _path_int(request, "tid")
    return {"tournament": tid, "history": site.bundle(store, tid).history}


@endpoint("json")
def games_api(request: Request, store: Store, site: Site) -> Any:
    per_page = min(_int(request, "per_page", 50) or 50, 1000)
    return game_lists.games_page(
        store,
        _path_int(request, "tid"),
        games_filter=GamesFilter.from_params(request.query_params),
        page=_int(request, "page", 1) or 1,
        per_page=per_page,
    ).to_dict()


@endpoint("csv")
def rankings_csv(request: Request, store: Store, site: Site) -> Any:
    return downloads.rankings_csv(site.bundle(store, _path_int(request, "tid")).rows)


@endpoint("csv")
def crosstable_csv(request: Request, store: Store, site: Site) -> Any:
    return downloads.crosstable_csv(site.bundle(store, _path_int(request, "tid")).crosstable)


def games_jsonl(request: Request) -> Response:
    """Every game of a tournament as JSON Lines, streamed: each chunk of games is read
    through its own short read of the database."""
    pool: ReadOnlyPool = request.app.state.pool
    try:
        tid = _path_int(request, "tid")
        with pool.store() as store:
            store.tournament(tid)
    except Exception as exc:  # noqa: BLE001 - every error becomes a response
        return error_response(exc, api=True)
    lines = game_lists.iter_game_lines(pool.store, tid)
    return StreamingResponse(
        downloads.jsonl(lines),
        media_type="application/x-ndjson",
        headers={
            **HEADERS,
            "Content-Disposition": f'attachment; filename="tournament-{tid}-games.jsonl"',
        },
    )


@endpoint("json")
def live_api(request: Request, store: Store, site: Site) -> Any:
    return site.live(store, _path_int(request, "tid"))


@endpoint("html")
def bot_page(request: Request, store: Store, site: Site) -> str:
    return render(
        "bot.html", LINKS, **site.bot_page(store, request.path_params["name"], links=LINKS)
    )


@endpoint("json")
def bot_api(request: Request, store: Store, site: Site) -> Any:
    return site.bot(store, request.path_params["name"])


@endpoint("html")
def game_page(request: Request, store: Store, site: Site) -> str:
    return render("game.html", LINKS, **site.game_page(store, _path_int(request, "game_id")))


@endpoint("json")
def game_api(request: Request, store: Store, site: Site) -> Any:
    return site.game_json(store, _path_int(request, "game_id"), _int(request, "seat"))


def _frames(request: Request, store: Store, site: Site) -> dict[str, Any]:
    perspective = request.path_params["perspective"]
    if perspective != REFEREE and not (perspective.isascii() and perspective.isdigit()):
        raise NotFound(f"no perspective {perspective!r} (referee or a seat number)")
    return site.game_frames(store, _path_int(request, "game_id"), perspective)


frames_api = endpoint("json")(_frames)


@endpoint("js")
def replay_js(request: Request, store: Store, site: Site) -> str:
    return site.replay_script(store, _path_int(request, "game_id"))


async def not_found(request: Request, exc: Exception) -> Response:
    return error_response(
        NotFound(f"no page at {request.url.path}"), api=request.url.path.startswith("/api/")
    )


def _warm(site: Site, pool: ReadOnlyPool) -> None:
    try:
        with pool.store() as store:
            site.warm(store)
    except Exception as exc:  # noqa: BLE001 - pages report database problems themselves
        log.info("could not compute the tournaments' data ahead: %s", exc)


def create_app(
    db_path: str | Path, *, warm: bool = False, extra: Sequence[BaseRoute] = ()
) -> Starlette:
    """The app serving the database at ``db_path`` (read-only; the file may not exist yet:
    pages then say so). With ``warm``, every tournament's ratings are computed in the
    background at start-up, so that no visitor waits for a large tournament's. ``extra``
    routes come first (the ladders' upload server adds its write path there:
    ``arena.web.uploads``; ``arena serve`` adds none)."""
    from arena.web.ladder_pages import ROUTES as LADDER_ROUTES

    routes = [
        *extra,
        *LADDER_ROUTES,
        Route("/", index_page),
        Route("/tournaments/{tid}", tournament_page),
        Route("/tournaments/{tid}/games.jsonl", games_jsonl),
        Route("/tournaments/{tid}/rankings.csv", rankings_csv),
        Route("/tournaments/{tid}/crosstable.csv", crosstable_csv),
        Route("/bots/{name:path}", bot_page),
        Route("/games/{game_id}", game_page),
        Route("/games/{game_id}/replay.js", replay_js),
        Route("/api/tournaments", tournaments_api),
        Route("/api/tournaments/{tid}", tournament_api),
        Route("/api/tournaments/{tid}/rankings", rankings_api),
        Route("/api/tournaments/{tid}/crosstable", crosstable_api),
        Route("/api/tournaments/{tid}/history", history_api),
        Route("/api/tournaments/{tid}/games", games_api),
        Route("/api/tournaments/{tid}/live", live_api),
        Route("/api/bots/{name:path}", bot_api),
        Route("/api/games/{game_id}", game_api),
        Route("/api/games/{game_id}/frames/{perspective}", frames_api),
        Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={404: not_found, 405: not_found})
    app.state.site = Site(str(Path(db_path).expanduser()))
    app.state.pool = ReadOnlyPool(db_path)
    if warm:
        threading.Thread(
            target=_warm, args=(app.state.site, app.state.pool), daemon=True, name="arena-web-warm"
        ).start()
    app.add_middleware(GZipMiddleware, minimum_size=2048)
    return app
