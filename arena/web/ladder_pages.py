"""The ladders' pages, read-only: the list of ladders and each ladder's live leaderboard,
the conservative skill of its versions over time and its recent games, with JSON twins
(``/api/ladders``, ``/api/ladders/NAME``). ``arena serve`` and the upload server
(``arena.web.uploads``) both serve them.

A ladder's page reads the leaderboard in one snapshot of the database
(``tournaments.ladder.board``), so it counts every game recorded when it was read, each
once; ``static/ladder.js`` polls the JSON twin and redraws the table while games are played.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.routing import Route

from arena.web import charts
from arena.web.endpoints import LINKS, endpoint
from arena.web.render import render
from arena.web.site import Site
from tournaments.ladder.board import EloCache, read_board, skill_history
from tournaments.ladder.records import LadderStore
from tournaments.store.facts import Store

__all__ = ["ROUTES", "ladder_data"]

#: Recent games listed on a ladder's page.
RECENT = 20
#: Versions drawn in the skill chart (the best active ones).
CHARTED = 8
#: The ladders' batch Elo fits, shared by the server's requests.
ELO = EloCache()


def _name(request: Request) -> str:
    return str(request.path_params["name"])


def ladder_data(store: Store, name: str) -> dict[str, Any]:
    """A ladder's leaderboard and its recent games (each seat's version and place)."""
    lstore = LadderStore(store)
    ladder = lstore.ladder(name)
    board = read_board(lstore, ladder, cache=ELO)
    labels = {line.entry.id: line.entry.label for line in board.lines}
    recent = [
        {
            "id": game["id"],
            "finished_at": game["finished_at"],
            "seats": [
                {"label": labels.get(entry, "?"), "place": place}
                for entry, place in zip(game["entries"], game["places"])
            ],
        }
        for game in lstore.recent_games(ladder.id, RECENT)
    ]
    data = board.to_dict()
    data["recent"] = recent
    for line, out in zip(board.lines, data["lines"]):
        out["entry"] = line.entry.id
        out["runs_as"] = line.entry.runs_as
    return data


@endpoint("html")
def ladders_page(request: Request, store: Store, site: Site) -> str:
    return render("ladders.html", LINKS, ladders=LadderStore(store).ladders())


@endpoint("json")
def ladders_api(request: Request, store: Store, site: Site) -> Any:
    return [info.to_dict() for info in LadderStore(store).ladders()]


@endpoint("html")
def ladder_page(request: Request, store: Store, site: Site) -> str:
    data = ladder_data(store, _name(request))
    lstore = LadderStore(store)
    series = skill_history(lstore, lstore.ladder(_name(request)))
    charted = [line for line in data["lines"] if line["rank"] is not None][:CHARTED]
    chart = charts.line_chart(
        {line["label"]: series.get(line["entry"], []) for line in charted}, height=240
    )
    return render(
        "ladder.html",
        LINKS,
        data=data,
        chart=chart,
        uploads=bool(getattr(request.app.state, "uploads", False)),
    )


@endpoint("json")
def ladder_api(request: Request, store: Store, site: Site) -> Any:
    return ladder_data(store, _name(request))


ROUTES = [
    Route("/ladders", ladders_page),
    Route("/ladders/{name}", ladder_page),
    Route("/api/ladders", ladders_api),
    Route("/api/ladders/{name}", ladder_api),
]
