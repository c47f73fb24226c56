"""A tournament's data files, served (``/tournaments/ID/NAME``) and exported
(``tournament-ID-NAME``) alike: its games as JSON Lines, its rankings and its crosstable as CSV.

Text a bot chose (entrant and bot names) goes into the CSV as data: a cell that a spreadsheet
would read as a formula (starting ``=``, ``+``, ``-``, ``@``, a tab or a carriage return) gets
a leading ``'``.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from tournaments import reports
from tournaments.store.game_lists import RawJSON

__all__ = ["crosstable_csv", "jsonl", "rankings_csv"]

_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def _cell(value: Any) -> Any:
    if isinstance(value, str) and value.startswith(_FORMULA):
        return "'" + value
    return "" if value is None else value


def _csv(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows([_cell(v) for v in row] for row in rows)
    return out.getvalue()


RANKING_COLUMNS = (
    "place",
    "entrant",
    "bot",
    "elo",
    "elo_lo",
    "elo_hi",
    "elo_incremental",
    "games",
    "wins",
    "mean_place",
    "mean_score",
    "faults",
    "forfeits",
)


def rankings_csv(rows: Sequence[reports.RankingRow]) -> str:
    """The rankings, one line an entrant, best first."""
    return _csv(RANKING_COLUMNS, ([getattr(r, c) for c in RANKING_COLUMNS] for r in rows))


def crosstable_csv(crosstable: dict[str, Any]) -> str:
    """The crosstable (``arena crosstable --json``'s ``pairs``), one line an ordered pair."""
    columns = ("entrant", "opponent", "wins", "draws", "losses", "score")
    return _csv(columns, ([p.get(c) for c in columns] for p in crosstable["pairs"]))


_ENCODE = json.JSONEncoder(separators=(",", ":")).encode


def jsonl(lines: Iterable[dict[str, Any]]) -> Iterator[str]:
    """JSON Lines: one JSON object per line (a ``RawJSON`` value is written as it is)."""
    for line in lines:
        raw = {k: v for k, v in line.items() if isinstance(v, RawJSON)}
        text = _ENCODE({k: v for k, v in line.items() if k not in raw})
        if raw:
            text = text[:-1] + "".join(f",{_ENCODE(k)}:{v}" for k, v in raw.items()) + "}"
        yield text + "\n"
