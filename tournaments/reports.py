"""Reports: aligned text tables and JSON-ready dicts for rankings, crosstables, tournaments.

Pure functions of the values the store returns; no extra dependencies. Text tables align
numbers right and text left, with one header line and a rule under it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from arena.games import options_text
from arena.text import printable
from tournaments.plans.schedule import TournamentKind, TournamentSpec, seatings_per_deal
from tournaments.ratings import BatchRatings, Crosstable
from tournaments.store.values import RatingMethod, RatingRow, Standing, TournamentInfo

__all__ = [
    "RankingRow",
    "crosstable_json",
    "crosstable_table",
    "format_table",
    "kind_text",
    "los_table",
    "rankings",
    "rankings_json",
    "rankings_table",
    "format_words",
    "tournament_json",
    "tournament_text",
    "tournaments_json",
    "tournaments_table",
]

_NUMBER = (int, float)


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.2f}"
    return printable(str(value))


def format_table(
    headers: Sequence[str], rows: Sequence[Sequence[Any]], *, align: str | None = None
) -> str:
    """An aligned text table. ``align`` has one ``l``/``r`` per column; by default columns
    whose values are all numbers (or missing) are right-aligned. Floats show two decimals;
    pre-format values as strings to choose otherwise."""
    if align is None:
        align = "".join(
            "r" if rows and all(isinstance(r[c], _NUMBER) or r[c] is None for r in rows) else "l"
            for c in range(len(headers))
        )
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [max([len(h)] + [len(r[c]) for r in cells]) for c, h in enumerate(headers)]

    def line(values: Sequence[str]) -> str:
        parts = [v.rjust(w) if a == "r" else v.ljust(w) for v, w, a in zip(values, widths, align)]
        return "  ".join(parts).rstrip()

    out = [line(headers), line(["-" * w for w in widths])]
    out.extend(line(r) for r in cells)
    return "\n".join(out)


@dataclass(frozen=True, kw_only=True)
class RankingRow(Standing):
    """One line of the rankings: an entrant's standing with its place and both ratings."""

    place: int
    elo: float | None  # batch maximum-likelihood rating
    elo_lo: float | None  # its 95 % interval
    elo_hi: float | None
    elo_incremental: float | None

    @property
    def margin(self) -> float | None:
        """Half the width of the 95 % interval."""
        if self.elo_lo is None or self.elo_hi is None:
            return None
        return (self.elo_hi - self.elo_lo) / 2


def rankings(standings: Sequence[Standing], ratings: Sequence[RatingRow] = ()) -> list[RankingRow]:
    """Standings ranked by batch rating (when ratings are given), else in standings order.

    Equal ratings (or, without ratings, equal games, wins and mean place) share a place.
    """
    by_method: dict[RatingMethod, dict[str, RatingRow]] = {m: {} for m in RatingMethod}
    for row in ratings:
        by_method[row.method][row.entrant] = row
    mle, inc = by_method[RatingMethod.MLE], by_method[RatingMethod.ELO]
    if mle:
        ordered = sorted(
            standings, key=lambda s: -mle[s.entrant].rating if s.entrant in mle else float("inf")
        )

        def key(s: Standing) -> Any:
            return mle[s.entrant].rating if s.entrant in mle else None
    else:
        ordered = list(standings)

        def key(s: Standing) -> Any:
            return (s.games, s.wins, s.mean_place)

    rows: list[RankingRow] = []
    for i, s in enumerate(ordered):
        place = rows[-1].place if i and key(s) == key(ordered[i - 1]) else i + 1
        rated = mle.get(s.entrant)
        rows.append(
            RankingRow(
                **asdict(s),
                place=place,
                elo=rated.rating if rated else None,
                elo_lo=rated.lo if rated else None,
                elo_hi=rated.hi if rated else None,
                elo_incremental=inc[s.entrant].rating if s.entrant in inc else None,
            )
        )
    return rows


def _int(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"


def rankings_table(rows: Sequence[RankingRow]) -> str:
    """Place, entrant, bot, Elo ± 95 %, incremental Elo, games, wins, mean place/score, faults."""
    show_bot = any(r.bot != r.entrant for r in rows)
    headers = (
        ["#", "entrant"]
        + (["bot"] if show_bot else [])
        + [
            "Elo",
            "±95%",
            "inc.Elo",
            "games",
            "wins",
            "mean place",
            "mean score",
            "faults",
            "forfeits",
        ]
    )
    body = []
    for r in rows:
        body.append(
            [r.place, r.entrant]
            + ([r.bot] if show_bot else [])
            + [
                _int(r.elo),
                _int(r.margin),
                _int(r.elo_incremental),
                r.games,
                r.wins,
                r.mean_place,
                r.mean_score,
                r.faults,
                r.forfeits,
            ]
        )
    align = "rl" + ("l" if show_bot else "") + "rrrrrrrrr"
    return format_table(headers, body, align=align)


def rankings_json(rows: Sequence[RankingRow]) -> list[dict[str, Any]]:
    return [asdict(r) | {"margin": r.margin} for r in rows]


def crosstable_table(crosstable: Crosstable, *, wdl: bool = False) -> str:
    """Rows are entrants, columns their opponents by number: score % (or wins-draws-losses
    with ``wdl``) of the row entrant against the column entrant, then the row's total."""
    names = crosstable.entrants
    headers = ["#", "entrant"] + [str(i + 1) for i in range(len(names))] + ["total", "score"]
    body = []
    for i, a in enumerate(names):
        row: list[Any] = [i + 1, a]
        for b in names:
            if a == b:
                row.append("")
                continue
            h2h = crosstable.cell(a, b)
            if wdl:
                row.append(f"{h2h.wins}-{h2h.draws}-{h2h.losses}")
            else:
                row.append("-" if h2h.score is None else f"{100 * h2h.score:.0f}")
        total = crosstable.total(a)
        row.append(f"{total.wins}-{total.draws}-{total.losses}")
        row.append("-" if total.score is None else f"{100 * total.score:.1f}%")
        body.append(row)
    return format_table(headers, body, align="rl" + "r" * (len(names) + 2))


def crosstable_json(crosstable: Crosstable) -> dict[str, Any]:
    return {
        "entrants": list(crosstable.entrants),
        "pairs": [asdict(h) | {"score": h.score} for h in crosstable.pairs.values()],
    }


def los_table(batch: BatchRatings) -> str:
    """Likelihood of superiority (%) of each row entrant over each column entrant, best first."""
    ranked = [r.entrant for r in batch.ranked()]
    headers = ["#", "entrant"] + [str(i + 1) for i in range(len(ranked))]
    body = [
        [i + 1, a] + ["" if a == b else f"{100 * batch.los[a][b]:.0f}" for b in ranked]
        for i, a in enumerate(ranked)
    ]
    return format_table(headers, body, align="rl" + "r" * len(ranked))


#: How each kind of tournament is called (a kind not listed: its name, its dashes spaced).
KIND_WORDS = {
    "round-robin": "round robin",
    "gauntlet": "gauntlet",
    "match": "match",
    "ladder": "ladder batch",
    "balanced": "balanced tournament",
    "swiss": "Swiss tournament",
    "knockout": "knockout",
}


def kind_text(spec: TournamentSpec) -> str:
    """``round robin``, ``gauntlet of mybot``, ``match``, ``ladder batch``... (``KIND_WORDS``)."""
    words = KIND_WORDS.get(spec.kind.value, spec.kind.value.replace("-", " "))
    return f"{words} of {spec.gauntlet}" if spec.gauntlet else words


def when(stamp: str | None) -> str:
    """A stored time (ISO, UTC) as pages and tables show it: ``2025-06-01 12:00:03 UTC``, date
    and zone always said; ``-`` for none."""
    if not stamp:
        return "-"
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return stamp
    if moment.tzinfo is None:  # stored before stamps said their zone: they were UTC
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def tournaments_table(infos: Sequence[TournamentInfo]) -> str:
    headers = ["id", "kind", "game", "status", "entrants", "table", "reps", "games", "created"]
    body = [
        [
            t.id,
            kind_text(t.spec),
            t.spec.game,
            t.status.value,
            len(t.entrants),
            t.spec.table_size,
            t.spec.repetitions,
            f"{t.games_done}/{t.games_total}",
            when(t.created_at),
        ]
        for t in infos
    ]
    return format_table(headers, body, align="rllllrrrl")


def tournaments_json(infos: Sequence[TournamentInfo]) -> list[dict[str, Any]]:
    return [t.to_dict() | {"kind_text": kind_text(t.spec)} for t in infos]


def format_words(spec: TournamentSpec) -> str:
    """``, balanced: 50 tables each`` (after the table size; empty for a round robin)."""
    if spec.kind is TournamentKind.BALANCED:
        return f", balanced: {spec.per_entrant} tables each"
    if spec.kind is TournamentKind.SWISS:
        return f", Swiss: {spec.rounds} rounds"
    if spec.kind is TournamentKind.KNOCKOUT:
        goes = "goes" if spec.advance == 1 else "go"
        return f", knockout: {spec.advance} of each table {goes} on, {spec.rounds} rounds"
    return ""


def tournament_text(info: TournamentInfo, rows: Sequence[RankingRow] = ()) -> str:
    """A tournament's header (spec, progress, entrants with the bot version each plays) followed
    by its rankings, if any."""
    spec = info.spec
    options = options_text(spec.options)
    lines = [
        f"tournament {info.id}: {spec.game} ({options})"
        + (format_words(spec) or f", a {kind_text(spec)}"),
        f"status     {info.status.value}, {info.games_done}/{info.games_total} games played",
        f"tables     {spec.table_size} players, {spec.repetitions} repetition(s), "
        f"seed {spec.seed}, {spec.move_ms} ms per move, {spec.deals} deals"
        + (
            f"; each deal in {seatings_per_deal(spec)} seatings (every rotation, and mirrored)"
            if seatings_per_deal(spec) != spec.table_size
            else ""
        ),
        "entrants   "
        + ", ".join(
            f"{e.name} ({e.version})" if e.name == e.bot else f"{e.name} ({e.bot} {e.version})"
            for e in info.entrants
        ),
        f"created    {info.created_at}",
    ]
    if rows:
        lines += ["", rankings_table(rows)]
    return "\n".join(lines)


def tournament_json(
    info: TournamentInfo, rows: Sequence[RankingRow] = (), crosstable: Crosstable | None = None
) -> dict[str, Any]:
    data = info.to_dict() | {"kind_text": kind_text(info.spec)}
    data["rankings"] = rankings_json(rows)
    if crosstable is not None:
        data["crosstable"] = crosstable_json(crosstable)
    return data
