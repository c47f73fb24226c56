"""Swiss rounds: each round's tables formed from the standings so far.

- **Scores.** An entrant's round score is its share at its table (``rounds.table_scores``:
  its pairwise points over the table's games, over the most it could take: 0 to 1, 0.5 on
  average). A round sat out (a *bye*) scores ``BYE_SHARE``, what an average table gives, so a
  bye neither lifts nor sinks its entrant. Its score is the sum of its round scores.
- **Standings.** Higher score first; ties go to the higher *Buchholz* (the sum, over its
  rounds played, of the mean score of the table mates of that round: who met stronger
  opposition), then to the *draw* (a random order of the entrants drawn from the tournament's
  key and seed before the first round).
- **Byes.** When ``k`` does not divide the field, ``n mod k`` entrants sit each round out: those
  who have sat out least, and among them the lowest placed (in the first round, the last of
  the draw). So no entrant sits out twice while another has not sat out at all.
- **Tables.** The first round seats the draw in order, ``k`` at a table. Every later round
  starts from the standings, ``k`` consecutive entrants at a table. Then, while some entrant
  sits with someone it met before, the best placed such entrant swaps tables with the entrant
  nearest it in the standings whose swap leaves fewer earlier meetings at the tables (each
  earlier meeting of a pair counted). Last, swaps that seat entrants nearer the middle of their
  table's places and make no one meet more often are made while there are some. So entrants of
  close scores meet, and no two meet again while one swap can avoid it.

Every round's tables are a function of the entrants, ``k``, the draw and the results of the
rounds before: the same on every run, whenever the round is planned.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from tournaments.errors import PlanError
from tournaments.plans.rounds import PlayedRound, RoundPlan

__all__ = [
    "BYE_SHARE",
    "MAX_PASSES",
    "SwissLine",
    "check_swiss",
    "pair_round",
    "standings",
]

#: What a round sat out scores: an average table's share.
BYE_SHARE = 0.5

#: Swaps are searched for at most this many passes over every pair of entrants.
MAX_PASSES = 50

#: The most rounds a Swiss tournament may have.
MAX_ROUNDS = 1000


def check_swiss(entrants: int, k: int, rounds: object) -> int:
    """How many tables each round of a Swiss tournament has. Raises PlanError."""
    if not isinstance(rounds, int) or isinstance(rounds, bool) or not 1 <= rounds <= MAX_ROUNDS:
        raise PlanError(f"a Swiss tournament has 1-{MAX_ROUNDS} rounds, not {rounds!r}")
    if entrants < 2 * k:
        raise PlanError(
            f"a Swiss tournament at tables of {k} needs at least {2 * k} entrants (two "
            f"tables a round), not {entrants}: play a round robin"
        )
    return entrants // k


@dataclass(frozen=True, kw_only=True)
class SwissLine:
    """One entrant's line of the standings after some rounds: its place, score, Buchholz,
    byes, and its score after each round (cumulative)."""

    rank: int
    entrant: str
    score: float
    buchholz: float
    byes: int
    after: tuple[float, ...]

    def to_dict(self) -> dict[str, object]:
        return {
            "rank": self.rank,
            "entrant": self.entrant,
            "score": round(self.score, 4),
            "buchholz": round(self.buchholz, 4),
            "byes": self.byes,
            "after": [round(s, 4) for s in self.after],
        }


def standings(
    entrants: Sequence[str], draw: Sequence[str], rounds: Sequence[PlayedRound]
) -> list[SwissLine]:
    """The standings after ``rounds`` (those complete count; see the module's docstring)."""
    complete = [r for r in rounds if r.complete]
    score = dict.fromkeys(entrants, 0.0)
    after: dict[str, list[float]] = {name: [] for name in entrants}
    byes = Counter[str]()
    mates: list[dict[str, list[str]]] = []
    for played in complete:
        seen: dict[str, list[str]] = {}
        for table, scores in played.scores().items():
            members = played.plan.tables[table]
            for line in scores:
                score[line.entrant] += line.share
                seen[line.entrant] = [m for m in members if m != line.entrant]
        for name in played.plan.byes:
            score[name] += BYE_SHARE
            byes[name] += 1
        for name in entrants:
            after[name].append(score[name])
        mates.append(seen)
    buchholz = {
        name: sum(
            sum(score[m] for m in seen[name]) / len(seen[name]) for seen in mates if name in seen
        )
        for name in entrants
    }
    position = {name: i for i, name in enumerate(draw)}
    order = sorted(entrants, key=lambda e: (-score[e], -buchholz[e], position[e]))
    return [
        SwissLine(
            rank=rank,
            entrant=name,
            score=score[name],
            buchholz=buchholz[name],
            byes=byes[name],
            after=tuple(after[name]),
        )
        for rank, name in enumerate(order, 1)
    ]


def pair_round(
    entrants: Sequence[str], k: int, draw: Sequence[str], rounds: Sequence[PlayedRound]
) -> RoundPlan:
    """The tables of the round after ``rounds`` (every one complete; none: the first round)."""
    check_swiss(len(entrants), k, 1)
    number = len(rounds)
    if any(not r.complete for r in rounds):
        raise PlanError(f"round {number + 1} is planned once every round before it is complete")
    spare = len(entrants) % k
    if not rounds:
        seated = list(draw[: len(draw) - spare])
        return RoundPlan(
            number=0,
            tables=tuple(tuple(seated[i : i + k]) for i in range(0, len(seated), k)),
            byes=tuple(draw[len(draw) - spare :]),
        )
    lines = standings(entrants, draw, rounds)
    rank = {line.entrant: line.rank for line in lines}
    sat_out = Counter(name for r in rounds for name in r.plan.byes)
    byes = sorted(entrants, key=lambda e: (sat_out[e], -rank[e]))[:spare]
    order = [line.entrant for line in lines if line.entrant not in byes]
    met = Counter[tuple[str, str]]()
    for played in rounds:
        for table in played.plan.tables:
            for i, a in enumerate(table):
                for b in table[i + 1 :]:
                    met[min(a, b), max(a, b)] += 1
    tables = _arrange(order, k, met)
    return RoundPlan(number=number, tables=tables, byes=tuple(sorted(byes, key=rank.__getitem__)))


def _arrange(
    order: Sequence[str], k: int, met: Counter[tuple[str, str]]
) -> tuple[tuple[str, ...], ...]:
    """``order`` (best first) at tables of ``k``: consecutive, then improved by swaps (see the
    module's docstring)."""
    count = len(order) // k
    table_of = [i // k for i in range(len(order))]  # by position in ``order``
    seats: list[list[int]] = [list(range(t * k, t * k + k)) for t in range(count)]

    before = [  # before[p][q]: how often the entrants at places p and q met
        [met.get((min(a, b), max(a, b)), 0) for b in order] for a in order
    ]

    def meetings(p: int, table: list[int], without: int = -1) -> int:
        row = before[p]
        return sum(row[q] for q in table) - row[p] - (row[without] if without >= 0 else 0)

    def distance(p: int, table: int) -> float:
        return abs(p - (table * k + (k - 1) / 2))

    def swap(p: int, q: int) -> None:
        tp, tq = table_of[p], table_of[q]
        seats[tp][seats[tp].index(p)] = q
        seats[tq][seats[tq].index(q)] = p
        table_of[p], table_of[q] = tq, tp

    def gain(p: int, q: int) -> int:
        """How many fewer earlier meetings the tables hold if ``p`` and ``q`` swap."""
        tp, tq = table_of[p], table_of[q]
        before = meetings(p, seats[tp]) + meetings(q, seats[tq])
        return before - meetings(p, seats[tq], without=q) - meetings(q, seats[tp], without=p)

    nearest = sorted(
        (abs(p - q), p, q) for p in range(len(order)) for q in range(len(order)) if p != q
    )
    by_p: dict[int, list[int]] = {}
    for _, p, q in nearest:
        by_p.setdefault(p, []).append(q)
    # First, rematches: the best placed entrant who meets someone again swaps with the
    # nearest entrant (in the standings) whose swap leaves fewer earlier meetings.
    for _ in range(len(order) * k):
        again = [p for p in range(len(order)) if meetings(p, seats[table_of[p]])]
        moved = next(
            (
                (p, q)
                for p in again
                for q in by_p[p]
                if table_of[q] != table_of[p] and gain(p, q) > 0
            ),
            None,
        )
        if moved is None:
            break
        swap(*moved)
    # Then nearness: swaps that seat entrants nearer their place and meet no one more often.
    for _ in range(MAX_PASSES):
        improved = False
        for p in range(len(order)):
            for q in range(p + 1, len(order)):
                tp, tq = table_of[p], table_of[q]
                if tp == tq or gain(p, q) < 0:
                    continue
                near = distance(p, tp) + distance(q, tq)
                if gain(p, q) > 0 or distance(p, tq) + distance(q, tp) < near:
                    swap(p, q)
                    improved = True
        if not improved:
            break
    return tuple(tuple(order[p] for p in sorted(table)) for table in seats)
