"""Ratings from game places: incremental multiplayer Elo and a batch maximum-likelihood fit.

Both decompose each game into pairwise results: for every pair of seats, the better place
wins (1), the worse loses (0), equal places draw (0.5).

**Incremental Elo** (``incremental_elo``) walks the games in plan order. Everyone starts at
1500. After a game with ``n`` players, each player's rating moves by
``K / (n - 1) * sum over opponents (S - E)`` with ``E = 1 / (1 + 10 ** ((R_opp - R) / 400))``,
all from the ratings before the game; so a game counts like one two-player game whatever its
size. ``K`` defaults to 16: small enough that ratings settle over the hundreds of games of a
tournament, large enough to move noticeably within the first few dozen.

**Batch rating** (``batch_ratings``) is the Bradley–Terry maximum-likelihood fit on the Elo
scale (a rating difference ``d`` gives an expected score ``1 / (1 + 10 ** (-d / 400))``), as
BayesElo and Ordo do for engine testing:

- draws count as half a win and half a loss;
- pairwise results of one game are not independent (a player's place decides all of its ``n-1``
  results at once). For equal players the variance of a player's summed pairwise score is
  ``(n + 1) / 3`` times what independent results would give, so each pairwise result of an
  ``n``-player game is weighted ``3 / (n + 1)`` (1 for two players). This leaves the ratings of a
  tournament at one table size unchanged and keeps the intervals honest instead of too narrow;
- a prior of ``prior`` virtual draws per player (default 1), spread evenly over its possible
  opponents, keeps ratings finite for a bot that won (or lost) everything and for tables that
  never met; ``prior=0`` gives the plain maximum-likelihood fit;
- the ratings are anchored so that their mean is ``anchor`` (default 1500);
- the fit is by Newton's method with a line search on the log-likelihood; the covariance of the
  anchored ratings is the (pseudo-)inverse of the Fisher information; intervals are
  ``rating ± 1.96 se`` (95 %); the likelihood of superiority is
  ``LOS[a][b] = Phi((r_a - r_b) / sqrt(var_a + var_b - 2 cov_ab))``.

Counting is done once into integer matrices (``PairCounts``), so rating 100,000 games costs
one pass over the games plus a fit on an entrants-by-entrants matrix.
"""

from __future__ import annotations

import logging
import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from tournaments.errors import RatingError

__all__ = [
    "DEFAULT_K",
    "INITIAL_RATING",
    "BatchRatings",
    "Crosstable",
    "EloRatings",
    "GameResult",
    "HeadToHead",
    "HistoryRow",
    "PairCounts",
    "Rated",
    "batch_ratings",
    "expected_score",
    "incremental_elo",
    "pair_weight",
    "pairwise_score",
]

log = logging.getLogger(__name__)

DEFAULT_K = 16.0
INITIAL_RATING = 1500.0
Z95 = 1.959963984540054
_C = math.log(10.0) / 400.0  # d(logit p)/d(rating difference)


#: What a tie in places counts for, between the win (1) and the loss (0).
DRAW = 0.5


def pairwise_score(place: int, other: int) -> float:
    """The pairwise result of a seat placed ``place`` against a seat placed ``other`` in the
    same game (1 = best): 1 for the better place, 0 for the worse, ``DRAW`` for the same place.
    Every rating, head-to-head count and match score of the arena scores a pair this way."""
    return 1.0 if place < other else 0.0 if place > other else DRAW


def expected_score(rating: float, opponent: float) -> float:
    """Elo expected score of ``rating`` against ``opponent``."""
    return 1.0 / (1.0 + 10.0 ** ((opponent - rating) / 400.0))


def pair_weight(players: int) -> float:
    """Weight of one pairwise result of a ``players``-player game in the batch fit."""
    return 3.0 / (players + 1)


class GameResult(NamedTuple):
    """The part of a finished game that ratings use: entrant labels by seat, places by seat.

    (A named tuple: a store reads back hundreds of thousands of them at once.)
    """

    index: int
    seating: tuple[str, ...]
    places: tuple[int, ...]


class HistoryRow(NamedTuple):
    """An entrant's incremental Elo rating after the game with plan index ``game_index``.

    (A named tuple rather than a dataclass: a tournament has hundreds of thousands of rows.)
    """

    game_index: int
    entrant: str
    rating: float


@dataclass(frozen=True, kw_only=True)
class EloRatings:
    """Final incremental Elo ratings, games counted per entrant, and the per-game history."""

    ratings: dict[str, float]
    games: dict[str, int]
    history: tuple[HistoryRow, ...]


def incremental_elo(
    results: Iterable[GameResult],
    *,
    entrants: Sequence[str] = (),
    k: float = DEFAULT_K,
    initial: float = INITIAL_RATING,
) -> EloRatings:
    """Incremental multiplayer Elo over ``results`` in the order given (use plan order).

    ``entrants`` lists entrants to report even if they played no game (they keep ``initial``).
    """
    index: dict[str, int] = {}
    ratings: list[float] = []
    games: list[int] = []

    def ids_of(seating: tuple[str, ...]) -> list[int]:
        for label in seating:
            if label not in index:
                index[label] = len(ratings)
                ratings.append(initial)
                games.append(0)
        return [index[label] for label in seating]

    ids_of(tuple(entrants))
    seatings: dict[tuple[str, ...], list[int]] = {}
    pairs_of: dict[tuple[int, ...], list[tuple[int, int, float]]] = {}
    history: list[HistoryRow] = []
    row = tuple.__new__  # builds HistoryRow without NamedTuple's slow keyword __new__
    for result in results:
        seating, places = result.seating, result.places
        n = len(seating)
        if n < 2:
            continue
        ids = seatings.get(seating)
        if ids is None:
            ids = seatings[seating] = ids_of(seating)
        pairs = pairs_of.get(places)
        if pairs is None:
            pairs = pairs_of[places] = [
                (i, j, pairwise_score(places[i], places[j]))
                for i in range(n)
                for j in range(i + 1, n)
            ]
        before = [ratings[a] for a in ids]
        # E_ij = q_i / (q_i + q_j) with q = 10 ** (R / 400), taken relative to the first seat
        # so that q stays in floating-point range whatever the ratings.
        first = before[0]
        q = [10.0 ** ((r - first) / 400.0) for r in before]
        delta = [0.0] * n
        for i, j, score in pairs:
            diff = score - q[i] / (q[i] + q[j])
            delta[i] += diff
            delta[j] -= diff
        scale = k / (n - 1)
        game_index = result.index
        for i, a in enumerate(ids):
            rating = before[i] + scale * delta[i]
            ratings[a] = rating
            games[a] += 1
            history.append(row(HistoryRow, (game_index, seating[i], rating)))
    return EloRatings(
        ratings={label: ratings[i] for label, i in index.items()},
        games={label: games[i] for label, i in index.items()},
        history=tuple(history),
    )


@dataclass(frozen=True, kw_only=True)
class HeadToHead:
    """Pairwise results of ``entrant`` against ``opponent`` (over all games they met)."""

    entrant: str
    opponent: str
    wins: int
    draws: int
    losses: int

    @property
    def played(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float | None:
        """Share of points (win 1, draw ``DRAW``), or None if they never met."""
        if not self.played:
            return None
        return (self.wins + DRAW * self.draws) / self.played


@dataclass(frozen=True, kw_only=True)
class Crosstable:
    """Head-to-head results between every ordered pair of entrants (entrant order kept)."""

    entrants: tuple[str, ...]
    pairs: dict[tuple[str, str], HeadToHead]

    def cell(self, entrant: str, opponent: str) -> HeadToHead:
        return self.pairs[(entrant, opponent)]

    def total(self, entrant: str) -> HeadToHead:
        """``entrant``'s pairwise results against everyone."""
        cells = [self.pairs[(entrant, o)] for o in self.entrants if o != entrant]
        return HeadToHead(
            entrant=entrant,
            opponent="*",
            wins=sum(c.wins for c in cells),
            draws=sum(c.draws for c in cells),
            losses=sum(c.losses for c in cells),
        )

    def leader(self) -> str | None:
        """The entrant with the best pairwise score so far (None before any game)."""
        scored = [
            (score, entrant)
            for entrant in self.entrants
            if (score := self.total(entrant).score) is not None
        ]
        return max(scored)[1] if scored else None


class PairCounts:
    """Integer counts of pairwise results, by table size: the input of the batch fit.

    Counts are exact integers, so the result does not depend on the order games are added.
    """

    def __init__(self, entrants: Sequence[str] = ()) -> None:
        self.entrants: list[str] = []
        self._index: dict[str, int] = {}
        self.games: list[int] = []
        # players -> (wins[a][b], draws[a][b]); draws is kept symmetric.
        self._by_size: dict[int, tuple[list[list[int]], list[list[int]]]] = {}
        for label in entrants:
            self._id(label)

    def _id(self, label: str) -> int:
        found = self._index.get(label)
        if found is not None:
            return found
        new = len(self.entrants)
        self._index[label] = new
        self.entrants.append(label)
        self.games.append(0)
        for wins, draws in self._by_size.values():
            for row in wins:
                row.append(0)
            for row in draws:
                row.append(0)
            wins.append([0] * (new + 1))
            draws.append([0] * (new + 1))
        return new

    def _matrices(self, players: int) -> tuple[list[list[int]], list[list[int]]]:
        found = self._by_size.get(players)
        if found is None:
            size = len(self.entrants)
            found = ([[0] * size for _ in range(size)], [[0] * size for _ in range(size)])
            self._by_size[players] = found
        return found

    def add_game(self, seating: Sequence[str], places: Sequence[int], *, times: int = 1) -> None:
        """Count one game's pairwise results (``times`` times)."""
        ids = [self._id(label) for label in seating]
        n = len(ids)
        wins, draws = self._matrices(n)
        for i in range(n):
            a, pa = ids[i], places[i]
            self.games[a] += times
            for j in range(i + 1, n):
                b = ids[j]
                score = pairwise_score(pa, places[j])
                if score == 1.0:
                    wins[a][b] += times
                elif score == 0.0:
                    wins[b][a] += times
                else:
                    draws[a][b] += times
                    draws[b][a] += times

    def add_results(self, results: Iterable[GameResult]) -> None:
        """Count many games; identical (seating, places) pairs are counted once, with weight."""
        for (seating, places), times in Counter((r.seating, r.places) for r in results).items():
            self.add_game(seating, places, times=times)

    def add(
        self,
        entrant: str,
        opponent: str,
        *,
        wins: int = 0,
        draws: int = 0,
        losses: int = 0,
        players: int = 2,
    ) -> None:
        """Count pairwise results aggregated elsewhere (e.g. in SQL)."""
        a, b = self._id(entrant), self._id(opponent)
        win, draw = self._matrices(players)
        win[a][b] += wins
        win[b][a] += losses
        draw[a][b] += draws
        draw[b][a] += draws

    def head_to_head(self, entrant: str, opponent: str) -> HeadToHead:
        a, b = self._id(entrant), self._id(opponent)
        wins = draws = losses = 0
        for win, draw in self._by_size.values():
            wins += win[a][b]
            losses += win[b][a]
            draws += draw[a][b]
        return HeadToHead(entrant=entrant, opponent=opponent, wins=wins, draws=draws, losses=losses)

    def crosstable(self) -> Crosstable:
        return Crosstable(
            entrants=tuple(self.entrants),
            pairs={
                (a, b): self.head_to_head(a, b)
                for a in self.entrants
                for b in self.entrants
                if a != b
            },
        )

    def weighted(self) -> tuple[list[list[float]], list[list[float]]]:
        """(points[a][b], played[a][b]) with each pairwise result weighted by table size."""
        size = len(self.entrants)
        points = [[0.0] * size for _ in range(size)]
        played = [[0.0] * size for _ in range(size)]
        for players, (win, draw) in sorted(self._by_size.items()):
            w = pair_weight(players)
            for a in range(size):
                for b in range(size):
                    if a != b:
                        points[a][b] += w * (win[a][b] + DRAW * draw[a][b])
                        played[a][b] += w * (win[a][b] + win[b][a] + draw[a][b])
        return points, played


@dataclass(frozen=True, kw_only=True)
class Rated:
    """One entrant's batch rating with its standard error and 95 % interval."""

    entrant: str
    rating: float
    se: float
    lo: float
    hi: float
    games: int


@dataclass(frozen=True, kw_only=True)
class BatchRatings:
    """The batch fit: ratings in entrant order, their covariance and likelihood of superiority."""

    ratings: tuple[Rated, ...]
    covariance: tuple[tuple[float, ...], ...]
    los: dict[str, dict[str, float]]
    prior: float
    anchor: float
    iterations: int

    def by_entrant(self) -> dict[str, Rated]:
        return {r.entrant: r for r in self.ratings}

    def ranked(self) -> list[Rated]:
        """Ratings best first (ties in entrant order)."""
        return sorted(self.ratings, key=lambda r: -r.rating)


def _solve(matrix: list[list[float]], rhs: list[list[float]]) -> list[list[float]]:
    """Solve ``matrix @ X = rhs`` (Gauss–Jordan, partial pivoting). Raises RatingError."""
    n = len(matrix)
    a = [row[:] + extra[:] for row, extra in zip(matrix, rhs)]
    scale = max((abs(x) for row in matrix for x in row), default=1.0) or 1.0
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        if abs(a[pivot][col]) <= 1e-12 * scale:
            raise RatingError(
                "ratings are undetermined: some entrants never met the others (use a prior > 0)"
            )
        a[col], a[pivot] = a[pivot], a[col]
        inv = 1.0 / a[col][col]
        row_c = [x * inv for x in a[col]]
        a[col] = row_c
        for r in range(n):
            if r != col:
                factor = a[r][col]
                if factor:
                    row_r = a[r]
                    for c in range(col, len(row_r)):
                        row_r[c] -= factor * row_c[c]
    return [row[n:] for row in a]


def _loglik(r: list[float], points: list[list[float]], played: list[list[float]]) -> float:
    total = 0.0
    n = len(r)
    for a in range(n):
        for b in range(a + 1, n):
            if played[a][b]:
                d = _C * (r[a] - r[b])
                # log p = -log(1 + e^-d); log(1-p) = -log(1 + e^d), computed stably.
                log_p = -math.log1p(math.exp(-d)) if d > -30 else d
                log_q = -math.log1p(math.exp(d)) if d < 30 else -d
                total += points[a][b] * log_p + points[b][a] * log_q
    return total


def _information(
    r: list[float], points: list[list[float]], played: list[list[float]]
) -> tuple[list[float], list[list[float]]]:
    """Gradient of the log-likelihood and Fisher information, in Elo units."""
    n = len(r)
    grad = [0.0] * n
    info = [[0.0] * n for _ in range(n)]
    for a in range(n):
        for b in range(a + 1, n):
            m = played[a][b]
            if not m:
                continue
            p = 1.0 / (1.0 + 10.0 ** ((r[b] - r[a]) / 400.0))
            g = _C * (points[a][b] - m * p)
            grad[a] += g
            grad[b] -= g
            h = _C * _C * m * p * (1.0 - p)
            info[a][b] -= h
            info[b][a] -= h
            info[a][a] += h
            info[b][b] += h
    return grad, info


def _check_estimable(labels: list[str], points: list[list[float]]) -> None:
    """Without a prior the fit is finite only if every group of entrants scored against the
    rest and the rest scored against it: the graph "a scored against b" is strongly connected.
    """
    n = len(labels)

    def reach(forward: bool) -> set[int]:
        seen, todo = {0}, [0]
        while todo:
            a = todo.pop()
            for b in range(n):
                scored = points[a][b] if forward else points[b][a]
                if b not in seen and scored > 0:
                    seen.add(b)
                    todo.append(b)
        return seen

    for forward in (True, False):
        missing = set(range(n)) - reach(forward)
        if missing:
            names = ", ".join(sorted(labels[i] for i in missing))
            raise RatingError(
                f"maximum-likelihood ratings are infinite without a prior "
                f"(compare: {names}); use a prior > 0"
            )


def _pseudo_inverse_system(info: list[list[float]]) -> tuple[list[list[float]], float]:
    """``info + alpha * 1 1^T`` (full rank when the comparison graph is connected), and alpha."""
    n = len(info)
    alpha = max(sum(info[i][i] for i in range(n)) / (n * n), 1e-12)
    return [[x + alpha for x in row] for row in info], alpha


def batch_ratings(
    counts: PairCounts,
    *,
    prior: float = 1.0,
    anchor: float = INITIAL_RATING,
    max_iterations: int = 100,
    tolerance: float = 1e-6,
) -> BatchRatings:
    """Bradley–Terry maximum-likelihood ratings (Elo scale) from ``counts``; see module doc."""
    labels = list(counts.entrants)
    n = len(labels)
    if n == 0:
        return BatchRatings(
            ratings=(), covariance=(), los={}, prior=prior, anchor=anchor, iterations=0
        )
    points, played = counts.weighted()
    if prior < 0:
        raise RatingError(f"prior must be >= 0, not {prior}")
    if prior and n > 1:
        share = prior / (n - 1)
        for a in range(n):
            for b in range(n):
                if a != b:
                    points[a][b] += share / 2
                    played[a][b] += share
    if not prior:
        _check_estimable(labels, points)
    r, iterations = _fit(points, played, max_iterations=max_iterations, tolerance=tolerance)
    _, info = _information(r, points, played)
    system, alpha = _pseudo_inverse_system(info)
    identity = [[1.0 if i == j else 0.0 for j in range(n)] for i in range(n)]
    inverse = _solve(system, identity)
    correction = 1.0 / (alpha * n * n)
    cov = tuple(tuple(inverse[i][j] - correction for j in range(n)) for i in range(n))
    rated = []
    for i, label in enumerate(labels):
        se = math.sqrt(max(cov[i][i], 0.0))
        rating = anchor + r[i]
        rated.append(
            Rated(
                entrant=label,
                rating=rating,
                se=se,
                lo=rating - Z95 * se,
                hi=rating + Z95 * se,
                games=counts.games[i],
            )
        )
    return BatchRatings(
        ratings=tuple(rated),
        covariance=cov,
        los=_superiority(labels, r, cov),
        prior=prior,
        anchor=anchor,
        iterations=iterations,
    )


def _fit(
    points: list[list[float]],
    played: list[list[float]],
    *,
    max_iterations: int,
    tolerance: float,
) -> tuple[list[float], int]:
    """Newton's method with step halving on the log-likelihood: the ratings (centred on 0)
    and the iterations it took."""
    n = len(points)
    r = [0.0] * n
    current = _loglik(r, points, played)
    iterations = 0
    for iterations in range(1, max_iterations + 1):  # noqa: B007 - reported after the loop
        grad, info = _information(r, points, played)
        system, _ = _pseudo_inverse_system(info)
        step = [row[0] for row in _solve(system, [[g] for g in grad])]
        t = 1.0
        while True:
            trial = [x + t * s for x, s in zip(r, step)]
            value = _loglik(trial, points, played)
            if value >= current - 1e-12 or t < 1e-6:
                break
            t /= 2
        mean = sum(trial) / n
        r = [x - mean for x in trial]
        current = value
        if max(abs(t * s) for s in step) < tolerance:
            break
    else:
        log.warning("batch ratings stopped after %d iterations without converging", max_iterations)
    return r, iterations


def _superiority(
    entrants: Sequence[str], r: Sequence[float], cov: Sequence[Sequence[float]]
) -> dict[str, dict[str, float]]:
    """Likelihood of superiority of every entrant over every other, from the fitted ratings
    ``r`` and their covariance (normal approximation of the difference)."""
    los: dict[str, dict[str, float]] = {entrant: {} for entrant in entrants}
    for i, a in enumerate(entrants):
        for j, b in enumerate(entrants):
            if i != j:
                var = cov[i][i] + cov[j][j] - 2 * cov[i][j]
                diff = r[i] - r[j]
                if var > 0:
                    los[a][b] = 0.5 * (1.0 + math.erf(diff / math.sqrt(2.0 * var)))
                else:
                    los[a][b] = 0.5 if diff == 0 else float(diff > 0)
    return los
