"""How the web app answers: the links its pages use, the security headers on every response,
errors as pages or JSON (never a traceback), and ``endpoint``, the decorator that gives a route's
handler the request, an open read-only store and the site. No answer names a path of the
server's file system (``arena.web.serverpaths``). The app (``arena.web.app``) and the
ladder's and uploads' pages build their routes from it.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from arena.errors import ArenaError
from arena.web.links import Links
from arena.web.render import render
from arena.web.serverpaths import hide_paths
from arena.web.site import DealInPlay, Site
from tournaments.errors import NotFound, StoreError
from tournaments.store.facts import Store

log = logging.getLogger(__name__)

LINKS = Links()
HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
    "style-src 'self'; script-src 'self'; object-src 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def status_of(exc: Exception) -> tuple[int, str]:
    """The HTTP status and page title an error is answered with."""
    if isinstance(exc, DealInPlay):
        return 409, "Not yet"
    if isinstance(exc, NotFound):
        return 404, "Not found"
    if isinstance(exc, StoreError):
        return 503, "Database unavailable"
    if isinstance(exc, ArenaError):
        return 400, "Bad request"
    return 500, "Internal error"


def error_response(exc: Exception, api: bool) -> Response:
    """An error as a page (``api``: as ``{"error": ..., "status": ...}``); one the app did not
    expect is logged whole and answered with a sentence. No server path is said
    (``hide_paths``)."""
    status, title = status_of(exc)
    if status == 500:
        log.exception("internal error serving a request")
        message = "the server met an unexpected error; see its log"
    else:
        message = hide_paths(str(exc))
    if api:
        return JSONResponse({"error": message, "status": status}, status, headers=HEADERS)
    return HTMLResponse(
        render("error.html", LINKS, title=title, message=message), status, headers=HEADERS
    )


Handler = Callable[[Request, Store, Site], Any]


def endpoint(kind: str) -> Callable[[Handler], Callable[[Request], Any]]:
    """A route whose handler gets the request, an open read-only store and the site;
    ``kind`` is ``html`` (a page), ``json``, ``js`` or ``csv``."""

    def decorate(handler: Handler) -> Callable[[Request], Any]:
        @functools.wraps(handler)
        def wrapper(request: Request) -> Response:
            site: Site = request.app.state.site
            try:
                with request.app.state.pool.store() as store:
                    result = handler(request, store, site)
                if kind == "json":
                    return JSONResponse(result, headers=HEADERS)
                if kind == "js":
                    return Response(result, media_type="application/javascript", headers=HEADERS)
                if kind == "csv":
                    name = request.url.path.rsplit("/", 1)[-1]
                    tid = request.path_params.get("tid")
                    disposition = f'attachment; filename="tournament-{tid}-{name}"'
                    return Response(
                        result,
                        media_type="text/csv; charset=utf-8",
                        headers={**HEADERS, "Content-Disposition": disposition},
                    )
                return HTMLResponse(result, headers=HEADERS)
            except Exception as exc:  # noqa: BLE001 - every error becomes a response
                return error_response(exc, api=kind != "html")

        return wrapper

    return decorate
