"""Reports: aligned tables and JSON-ready data from stored values."""

from __future__ import annotations

import json

from tournaments import reports
from tournaments.plans.schedule import TournamentSpec
from tournaments.ratings import GameResult, PairCounts, batch_ratings
from tournaments.store.values import (
    EntrantInfo,
    RatingMethod,
    RatingRow,
    Standing,
    TournamentInfo,
    TournamentStatus,
)


def standing(
    entrant: str, games: int, wins: int, mean_place: float | None, bot: str | None = None
) -> Standing:
    return Standing(
        entrant=entrant,
        bot=bot or entrant,
        games=games,
        wins=wins,
        mean_place=mean_place,
        mean_score=None if mean_place is None else 10.0,
        faults=1,
        forfeits=0,
    )


def mle(entrant: str, rating: float, margin: float = 50.0) -> RatingRow:
    return RatingRow(
        entrant=entrant,
        method=RatingMethod.MLE,
        rating=rating,
        lo=rating - margin,
        hi=rating + margin,
        games=10,
    )


STANDINGS = [
    standing("b", 10, 5, 1.8),
    standing("a", 10, 4, 1.9),
    standing("c#2", 10, 1, 2.9, bot="c"),
]
RATINGS = [
    mle("a", 1600),
    mle("b", 1550),
    mle("c#2", 1350, 80.5),
    RatingRow(entrant="a", method=RatingMethod.ELO, rating=1590.4, lo=None, hi=None, games=10),
]


def test_format_table_aligns() -> None:
    text = reports.format_table(["name", "n", "x"], [["a", 1, 0.5], ["long", 100, None]])
    assert text.splitlines() == [
        "name    n     x",
        "----  ---  ----",
        "a       1  0.50",
        "long  100     -",
    ]


def test_rankings_order_by_batch_rating_with_shared_places() -> None:
    rows = reports.rankings(STANDINGS, RATINGS + [mle("b", 1600)])
    assert [(r.place, r.entrant) for r in rows] == [(1, "b"), (1, "a"), (3, "c#2")]
    rows = reports.rankings(STANDINGS, RATINGS)
    assert [(r.place, r.entrant) for r in rows] == [(1, "a"), (2, "b"), (3, "c#2")]
    assert rows[0].elo_incremental == 1590.4 and rows[1].elo_incremental is None
    assert rows[2].margin == 80.5 and rows[2].bot == "c"


def test_rankings_without_ratings_keep_standings_order() -> None:
    rows = reports.rankings(STANDINGS + [standing("d", 0, 0, None)])
    assert [(r.place, r.entrant, r.elo) for r in rows] == [
        (1, "b", None),
        (2, "a", None),
        (3, "c#2", None),
        (4, "d", None),
    ]
    assert "-" in reports.rankings_table(rows)


def test_rankings_table_and_json() -> None:
    rows = reports.rankings(STANDINGS, RATINGS)
    lines = reports.rankings_table(rows).splitlines()
    assert lines[0].split() == [
        "#",
        "entrant",
        "bot",
        "Elo",
        "±95%",
        "inc.Elo",
        "games",
        "wins",
        "mean",
        "place",
        "mean",
        "score",
        "faults",
        "forfeits",
    ]
    assert lines[2].split()[:6] == ["1", "a", "a", "1600", "50", "1590"]
    assert lines[4].split()[:5] == ["3", "c#2", "c", "1350", "80"]
    assert len({line.index("Elo") for line in lines[:1]}) == 1
    data = json.loads(json.dumps(reports.rankings_json(rows)))
    assert data[0]["entrant"] == "a" and data[0]["margin"] == 50.0 and data[0]["place"] == 1


def crosstable() -> tuple[PairCounts, object]:
    counts = PairCounts(["a", "b", "c"])
    for i, (seating, places) in enumerate(
        [("abc", (1, 2, 3)), ("bca", (1, 1, 3)), ("cab", (1, 2, 3))]
    ):
        result = GameResult(index=i, seating=tuple(seating), places=places)
        counts.add_game(result.seating, result.places)
    return counts, counts.crosstable()


def test_crosstable_table() -> None:
    _, table = crosstable()
    lines = reports.crosstable_table(table).splitlines()
    assert lines[0].split() == ["#", "entrant", "1", "2", "3", "total", "score"]
    # a: beat b twice... a vs b: games 1 (a 1st, b 2nd), 2 (b 1st, a 3rd), 3 (a 2nd, b 3rd).
    assert lines[2].split() == ["1", "a", "67", "33", "3-0-3", "50.0%"]
    wdl = reports.crosstable_table(table, wdl=True).splitlines()
    assert wdl[2].split() == ["1", "a", "2-0-1", "1-0-2", "3-0-3", "50.0%"]
    data = json.loads(json.dumps(reports.crosstable_json(table)))
    assert data["entrants"] == ["a", "b", "c"] and len(data["pairs"]) == 6


def test_los_table() -> None:
    counts, _ = crosstable()
    text = reports.los_table(batch_ratings(counts))
    assert len(text.splitlines()) == 5


def info_of(
    spec: TournamentSpec, tid: int, status: TournamentStatus, *, done: int, total: int
) -> TournamentInfo:
    """Tournament ``tid`` of ``spec`` as the store gives it, its entrants its bots."""
    return TournamentInfo(
        id=tid,
        spec=spec,
        created_at="2026-01-02T03:04:05.000+00:00",
        status=status,
        entrants=tuple(EntrantInfo(name=x, bot=x, version="v") for x in spec.bots),
        games_done=done,
        games_total=total,
    )


def test_tournament_list_and_show() -> None:
    spec = TournamentSpec(
        game="skull", options={"variant": "x"}, bots=("a", "b", "c"), table_size=3, seed=5
    )
    info = info_of(spec, 3, TournamentStatus.IN_PROGRESS, done=1, total=3)
    listing = reports.tournaments_table([info]).splitlines()
    assert listing[0].split()[:3] == ["id", "kind", "game"]
    assert listing[2].split() == [
        "3",
        "round",
        "robin",
        "skull",
        "in-progress",
        "3",
        "3",
        "1",
        "1/3",
        "2026-01-02",
        "03:04:05",
        "UTC",
    ]
    rows = reports.rankings(STANDINGS, RATINGS)
    text = reports.tournament_text(info, rows)
    assert "tournament 3: skull (variant=x)" in text and "1/3 games" in text
    assert "1600" in text
    data = json.loads(json.dumps(reports.tournament_json(info, rows, crosstable()[1])))
    assert data["id"] == 3 and data["rankings"][0]["entrant"] == "a"
    assert data["crosstable"]["entrants"] == ["a", "b", "c"]
    assert reports.tournaments_json([info])[0]["status"] == "in-progress"


def test_options_are_said_as_they_are_given() -> None:
    """``advanced=false``, as ``--option`` takes it, never Python's ``advanced=False``."""
    spec = TournamentSpec(
        game="skull_king",
        options={"rounds": 5, "advanced": False},
        bots=("a", "b"),
        table_size=2,
        seed=1,
    )
    info = info_of(spec, 1, TournamentStatus.PLANNED, done=0, total=2)
    assert "tournament 1: skull_king (advanced=false, rounds=5), a round robin" in (
        reports.tournament_text(info)
    )
