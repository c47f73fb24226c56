"""Batch ratings: the Bradley–Terry maximum-likelihood fit, with intervals and the
likelihood of superiority.

The fit is on the Elo scale (a rating difference ``d`` gives an expected score
``1 / (1 + 10 ** (-d / 400))``), as BayesElo and Ordo do for engine testing, over the pairwise
results counted in a ``PairCounts`` (``tournaments.ratings.pairwise``):

- draws count as half a win and half a loss;
- pairwise results of one game are not independent (a player's place decides all of its ``n-1``
  results at once). For equal players the variance of a player's summed pairwise score is
  ``(n + 1) / 3`` times what independent results would give, so each pairwise result of an
  ``n``-player game is weighted ``3 / (n + 1)`` (``pair_weight``; 1 for two players). This
  leaves the ratings of a tournament at one table size unchanged and keeps the intervals honest
  instead of too narrow;
- a prior of ``prior`` virtual draws per player (default 1), spread evenly over its possible
  opponents, keeps ratings finite for a bot that won (or lost) everything and for tables that
  never met; ``prior=0`` gives the plain maximum-likelihood fit;
- the ratings are anchored so that their mean is ``anchor`` (default 1500);
- the fit is by Newton's method with a line search on the log-likelihood; the covariance of the
  anchored ratings is the (pseudo-)inverse of the Fisher information; intervals are
  ``rating ± 1.96 se`` (95 %, ``Z95``); the likelihood of superiority is
  ``LOS[a][b] = Phi((r_a - r_b) / sqrt(var_a + var_b - 2 cov_ab))``.

Counting is done once into integer matrices, so rating 100,000 games costs one pass over the
games plus a fit on an entrants-by-entrants matrix.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass

from tournaments.errors import RatingError
from tournaments.ratings.elo import INITIAL_RATING
from tournaments.ratings.pairwise import PairCounts

__all__ = ["Z95", "BatchRatings", "Rated", "batch_ratings"]

log = logging.getLogger(__name__)

Z95 = 1.959963984540054
_C = math.log(10.0) / 400.0  # d(logit p)/d(rating difference)


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
