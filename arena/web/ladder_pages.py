"""The ladders' pages, read-only: the list of ladders and each ladder's live leaderboard,
the conservative skill of its versions over time and its recent games, with JSON twins
(``/api/ladders``, ``/api/ladders/NAME``). ``arena serve`` and the upload server
(``arena.web.uploads``) both serve them.

A ladder's page reads the leaderboard in one snapshot of the database
(``tournaments.ladder.service.ladder_page``), so it counts every game recorded when it was
read, each once; ``static/ladder.js`` polls the JSON twin and, when games are recorded or the
run changes, puts in the page's parts fetched again (the run, the leaderboard, the chart, the
recent games: all of it stays true). A recent game is listed (with its link) only once its deal is
complete (no link answers 409).
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.routing import Route

from arena.web import charts
from arena.web.endpoints import LINKS, endpoint
from arena.web.render import render
from arena.web.site import Site
from tournaments.ladder import service
from tournaments.store.facts import Store

__all__ = ["ROUTES"]

#: Versions drawn in the skill chart (the best active ones).
CHARTED = 8
#: The ladders' batch Elo fits, shared by the server's requests.
ELO = service.EloCache()


def _name(request: Request) -> str:
    return str(request.path_params["name"])


@endpoint("html")
def ladders_page(request: Request, store: Store, site: Site) -> str:
    return render("ladders.html", LINKS, ladders=service.ladders_overview(store))


@endpoint("json")
def ladders_api(request: Request, store: Store, site: Site) -> Any:
    return service.ladders_overview(store)


@endpoint("html")
def ladder_page(request: Request, store: Store, site: Site) -> str:
    data = service.ladder_page(store, _name(request), cache=ELO)
    series = service.skill_series(store, _name(request))
    charted = [line for line in data["lines"] if line["rank"] is not None][:CHARTED]
    chart = charts.line_chart(
        {line["label"]: series.get(line["entry"], []) for line in charted},
        height=240,
        x_title="ladder games (rated, in order)",
        y_title="μ − 3σ (conservative skill)",
        pad=1.0,
    )
    return render(
        "ladder.html",
        LINKS,
        data=data,
        chart=chart,
        charted=CHARTED,
        uploads=bool(getattr(request.app.state, "uploads", False)),
    )


@endpoint("json")
def ladder_api(request: Request, store: Store, site: Site) -> Any:
    return service.ladder_page(store, _name(request), cache=ELO)


ROUTES = [
    Route("/ladders", ladders_page),
    Route("/ladders/{name}", ladder_page),
    Route("/api/ladders", ladders_api),
    Route("/api/ladders/{name}", ladder_api),
]
