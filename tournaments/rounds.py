"""Tournaments of large fields: Swiss and knockout rounds read back and planned, and the views of
every format's shape (a balanced plan's balance, Swiss standings after each round, a knockout's
bracket).

A tournament played in rounds stores each round's games as any plan's
(``tournaments.plans.rounds``: round ``r``'s deals are repetitions ``r * repetitions`` on).
``played_rounds`` reads them back as rounds; ``plan_next_round`` plans the next one from them
(``tournaments.plans.swiss`` or ``tournaments.plans.knockout``, with the tournament's key for its
deals) once the round before is complete, and writes it in one transaction
(``Store.add_round``: a round planned twice, by two runs, is written once). The next round is a
function of the stored results, the draw and the key only, so a run killed at any moment and
run again plans the very round it would have.

``format_view`` is what ``arena tournament show`` and the tournament page show of a format.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tournaments.plans import knockout, swiss
from tournaments.plans.balanced import Balance, balance_of
from tournaments.plans.rounds import PlayedRound, RoundGame, RoundPlan, round_of
from tournaments.plans.schedule import TournamentKind, round_games
from tournaments.plans.swiss import SwissLine
from tournaments.reports import format_table
from tournaments.store.facts import Store
from tournaments.store.values import TournamentInfo

__all__ = ["FormatView", "RoundPlanned", "format_view", "plan_next_round", "played_rounds"]


def played_rounds(store: Store, info: TournamentInfo) -> list[PlayedRound]:
    """The rounds of ``info``'s tournament (played in rounds) planned so far, with their
    finished games."""
    spec = info.spec
    deals = spec.repetitions
    tables: dict[int, dict[int, tuple[str, ...]]] = {}
    games: dict[int, list[RoundGame]] = {}
    pending: set[int] = set()
    draw = store.tournament_draw(info.id)
    for game in store.results.seated_games(info.id):
        number = round_of(game.repetition, deals)
        if game.rotation == 0 and game.repetition % deals == 0:
            tables.setdefault(number, {})[game.table] = game.seating
        if game.places is None:
            pending.add(number)
        else:
            games.setdefault(number, []).append(RoundGame(game.table, game.seating, game.places))
    out: list[PlayedRound] = []
    for number in sorted(tables):
        seated = tables[number]
        at_tables = tuple(seated[t] for t in sorted(seated))
        sitting = {name for table in at_tables for name in table}
        field = (
            knockout.field_of(draw, int(spec.advance or 0), out)
            if spec.kind is TournamentKind.KNOCKOUT
            else draw
        )
        out.append(
            PlayedRound(
                plan=RoundPlan(
                    number=number,
                    tables=at_tables,
                    byes=tuple(e for e in field if e not in sitting),
                ),
                games=tuple(games.get(number, ())),
                complete=number not in pending,
            )
        )
    return out


@dataclass(frozen=True, kw_only=True)
class RoundPlanned:
    """A round just planned (``number`` from 0, of ``rounds``) and its number of games."""

    number: int
    rounds: int
    games: int
    byes: tuple[str, ...]


def plan_next_round(store: Store, tid: int) -> RoundPlanned | None:
    """Plan and write the next round of tournament ``tid`` if it is played in rounds, its
    rounds so far are complete and it has rounds left; else None. Raises PlanError."""
    info = store.tournament(tid)
    spec = info.spec
    if not spec.kind.in_rounds or spec.rounds is None or info.status.finished:
        return None  # (a cancelled tournament plays no more rounds)
    rounds = played_rounds(store, info)
    if len(rounds) >= spec.rounds or any(not r.complete for r in rounds):
        return None
    key = store.tournament_key(tid)
    draw = store.tournament_draw(tid)
    if spec.kind is TournamentKind.SWISS:
        plan: RoundPlan | None = swiss.pair_round(spec.entrants, spec.table_size, draw, rounds)
    else:
        plan = knockout.pair_round(
            spec.entrants, spec.table_size, int(spec.advance or 0), draw, rounds
        )
    if plan is None:
        return None
    games = round_games(spec, key, plan, info.games_total)
    store.add_round(tid, plan.number, games, key=key)
    return RoundPlanned(number=plan.number, rounds=spec.rounds, games=len(games), byes=plan.byes)


@dataclass(frozen=True, kw_only=True)
class FormatView:
    """What a tournament's format adds to its views: a balanced plan's ``balance``; a Swiss
    tournament's standings after each round (``standings[r]``: after round ``r + 1``, each
    line's ``after`` its score after each round); a knockout's ``bracket`` and its entrants
    from the winner down (``order``)."""

    kind: TournamentKind
    rounds_planned: int = 0
    balance: Balance | None = None
    standings: tuple[tuple[SwissLine, ...], ...] = ()
    bracket: tuple[knockout.BracketRound, ...] = ()
    order: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"format": self.kind.value}
        if self.balance is not None:
            data["balance"] = self.balance.to_dict()
        if self.kind is TournamentKind.SWISS:
            data["rounds_planned"] = self.rounds_planned
            data["standings"] = [[line.to_dict() for line in lines] for lines in self.standings]
        if self.kind is TournamentKind.KNOCKOUT:
            data["rounds_planned"] = self.rounds_planned
            data["bracket"] = [r.to_dict() for r in self.bracket]
            data["order"] = list(self.order)
        return data

    def text(self) -> str:
        """Aligned text for ``arena tournament show`` and ``run`` (empty for a format with
        nothing of its own to show)."""
        if self.balance is not None:
            return f"balance    {self.balance.text()}"
        if self.kind is TournamentKind.SWISS and self.standings:
            return _swiss_text(self.standings)
        if self.kind is TournamentKind.KNOCKOUT and self.bracket:
            return _bracket_text(self.bracket, self.order)
        return ""


def _swiss_text(standings: tuple[tuple[SwissLine, ...], ...]) -> str:
    """The standings after the last round, with each entrant's place after every round."""
    rank_after = [{line.entrant: line.rank for line in lines} for lines in standings]
    rounds = [f"r{number}" for number in range(1, len(standings) + 1)]
    rows = [
        [line.rank, line.entrant, f"{line.score:.3f}", f"{line.buchholz:.3f}", line.byes]
        + [ranks[line.entrant] for ranks in rank_after]
        for line in standings[-1]
    ]
    return (
        f"standings after round {len(standings)} (score: the share of points taken at each "
        "table, summed; place after each round on the right)\n"
        + format_table(
            ["#", "entrant", "score", "Buchholz", "byes", *rounds],
            rows,
            align="rlrrr" + "r" * len(rounds),
        )
    )


def _bracket_text(bracket: tuple[knockout.BracketRound, ...], order: tuple[str, ...]) -> str:
    """Each round's tables, entrants best first with their points (``>`` goes on), byes, and
    the final order."""
    lines = []
    for played in bracket:
        title = "final" if played.final else f"round {played.number + 1}"
        state = "" if played.complete else " (not complete)"
        lines.append(f"{title}{state}")
        for table in played.tables:
            marks = [
                f"{'>' if place <= table.going_on else ' '}{s.entrant} {s.points:g}"
                for place, s in enumerate(table.scores, 1)
            ]
            lines.append(f"  table {table.table + 1:<3d} " + "  ".join(marks))
        if played.byes:
            lines.append(f"  byes       >{'  >'.join(played.byes)}")
    if bracket[-1].final and bracket[-1].complete:
        lines.append("order      " + ", ".join(f"{i}. {name}" for i, name in enumerate(order, 1)))
    return "\n".join(lines)


def format_view(store: Store, info: TournamentInfo) -> FormatView | None:
    """The view of ``info``'s format (None for a round robin, gauntlet, match or ladder
    batch). Reads no key: a read-only store serves it."""
    spec = info.spec
    if spec.kind is TournamentKind.BALANCED:
        first = [g.seating for g in store.results.seated_games(info.id, first_rotation=True)]
        return FormatView(
            kind=spec.kind,
            balance=balance_of(spec.entrants, first[: len(first) // spec.repetitions]),
        )
    if not spec.kind.in_rounds:
        return None
    rounds = played_rounds(store, info)
    draw = store.tournament_draw(info.id)
    k = spec.table_size
    if spec.kind is TournamentKind.SWISS:
        complete = [r for r in rounds if r.complete]
        return FormatView(
            kind=spec.kind,
            rounds_planned=len(rounds),
            standings=tuple(
                tuple(swiss.standings(spec.entrants, draw, complete[: r + 1]))
                for r in range(len(complete))
            ),
        )
    advance = int(spec.advance or 0)
    return FormatView(
        kind=spec.kind,
        rounds_planned=len(rounds),
        bracket=tuple(knockout.bracket(spec.entrants, k, advance, draw, rounds)),
        order=tuple(knockout.final_order(spec.entrants, k, advance, draw, rounds)),
    )
