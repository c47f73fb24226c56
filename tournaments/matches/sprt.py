"""The sequential probability ratio test of ``arena match``: is NEW stronger than BASE?

The sampling unit is the **deal**: one deal seed played in every seat rotation of its table,
as fastchess's pentanomial model takes a game pair (the same opening with colours reversed)
as its unit. Luck of the deal and of the seats cancels within a deal, and the deals are
independent of each other, while the games of one deal are not. A deal of ``k`` games scores
NEW's pairwise result against BASE in each game (1 if NEW placed better, ½ if equal, 0 if
worse), so its total is one of ``2k + 1`` half-point values: five, for ``k = 2``, as in the
pentanomial model.

The test is Van den Bergh's generalized SPRT on that multinomial (as fastchess and fishtest do
for pentanomial results): under each hypothesis the deal distribution is the maximum-likelihood
one with the hypothesis's expected score (``elo0``, ``elo1`` in logistic Elo), and the
log-likelihood ratio of the two is compared with Wald's bounds ``log(β/(1−α))`` (accept H0)
and ``log((1−β)/α)`` (accept H1). Empty outcome classes are regularised with a small count,
as fastchess does, so the estimates stay inside the simplex.

Pure Python, no I/O: ``arena match`` feeds it deal totals from the store.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tournaments.errors import TournamentError
from tournaments.ratings import Z95, pairwise_score

__all__ = [
    "DealCounts",
    "Decision",
    "SprtConfig",
    "SprtError",
    "SprtStatus",
    "deal_half_points",
    "elo_of_score",
    "elo_text",
    "score_of_elo",
    "status",
]

#: Count given to an empty outcome class (fastchess regularises pentanomial zeros the same way).
REGULARISE = 1e-3
#: Scores are kept this far from 0 and 1 when turned into Elo (about ±2400 Elo).
SCORE_CLAMP = 1e-6


class SprtError(TournamentError):
    """SPRT bounds that cannot be tested (elo0 ≥ elo1, alpha or beta outside (0, 0.5))."""


class Decision(enum.StrEnum):
    """Where a match stands: H1 accepted (NEW is stronger), H0 accepted, go on, or stopped
    because NEW or BASE faulted past its limit (no verdict on strength: ``FAULTS`` never comes
    from the test itself, see ``tournaments.matches.match``)."""

    H1 = "H1"
    H0 = "H0"
    CONTINUE = "continue"
    FAULTS = "faults"


def score_of_elo(elo: float) -> float:
    """The expected score of a player ``elo`` points stronger (logistic model)."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def elo_of_score(score: float) -> float:
    """The logistic Elo difference that gives expected score ``score`` (clamped near 0, 1)."""
    score = min(max(score, SCORE_CLAMP), 1.0 - SCORE_CLAMP)
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0  # never -0.0


@dataclass(frozen=True, kw_only=True)
class SprtConfig:
    """The hypotheses (H0: NEW is ``elo0`` stronger; H1: ``elo1``) and the error rates."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        for name in ("elo0", "elo1", "alpha", "beta"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not math.isfinite(value):
                raise SprtError(f"SPRT {name} must be a finite number, not {value!r}")
        if self.elo0 >= self.elo1:
            raise SprtError(f"SPRT needs elo0 < elo1 (got elo0={self.elo0:g}, elo1={self.elo1:g})")
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not 0.0 < value < 0.5:
                raise SprtError(f"SPRT {name} must lie strictly between 0 and 0.5, not {value:g}")
        if abs(self.elo0) >= 2000 or abs(self.elo1) >= 2000:
            raise SprtError("SPRT Elo bounds must lie within ±2000")

    @classmethod
    def parse(cls, words: Sequence[str]) -> SprtConfig:
        """From ``KEY=VALUE`` words (``elo0``, ``elo1``, ``alpha``, ``beta``; others keep their
        defaults). Raises SprtError naming the bad word."""
        values: dict[str, float] = {}
        for word in words:
            key, sep, text = word.partition("=")
            key = key.strip()
            if not sep or key not in ("elo0", "elo1", "alpha", "beta"):
                raise SprtError(f"bad SPRT setting {word!r}: use elo0=, elo1=, alpha=, beta=")
            try:
                values[key] = float(text)
            except ValueError:
                raise SprtError(f"bad SPRT setting {word!r}: {text!r} is not a number") from None
        return cls(**values)

    @property
    def lower(self) -> float:
        """Accept H0 at or below this LLR."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 at or above this LLR."""
        return math.log((1.0 - self.beta) / self.alpha)

    def to_dict(self) -> dict[str, float]:
        return {"elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta}


def deal_half_points(places: Sequence[Mapping[str, int]], new: str, base: str) -> int:
    """NEW's pairwise result against BASE over one deal's games, in half points.

    ``places`` holds, per game of the deal, each entrant's place (1 = best)."""
    return sum(round(2 * pairwise_score(game[new], game[base])) for game in places)


@dataclass(frozen=True, kw_only=True)
class DealCounts:
    """How many deals ended with each total: ``counts[h]`` deals scored ``h`` half points
    (``h`` from 0 to ``2 * games_per_deal``)."""

    games_per_deal: int
    counts: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        size = 2 * self.games_per_deal + 1
        if self.games_per_deal < 1:
            raise SprtError("a deal has at least one game")
        if not self.counts:
            object.__setattr__(self, "counts", (0,) * size)
        elif len(self.counts) != size:
            raise SprtError(
                f"{len(self.counts)} outcome classes for deals of "
                f"{self.games_per_deal} games (need {size})"
            )

    def add(self, half_points: int) -> DealCounts:
        """These counts with one more deal of ``half_points``."""
        if not 0 <= half_points < len(self.counts):
            raise SprtError(
                f"a deal of {self.games_per_deal} games cannot score {half_points} half points"
            )
        counts = list(self.counts)
        counts[half_points] += 1
        return DealCounts(games_per_deal=self.games_per_deal, counts=tuple(counts))

    @property
    def deals(self) -> int:
        return sum(self.counts)

    @property
    def values(self) -> list[float]:
        """Each class's score per game, in [0, 1]."""
        top = 2 * self.games_per_deal
        return [h / top for h in range(top + 1)]


def _constrained_mle(values: Sequence[float], probs: Sequence[float], score: float) -> list[float]:
    """The distribution over ``values`` nearest ``probs`` (in likelihood) whose mean is
    ``score``: ``p_i = probs_i / (1 + λ (values_i − score))``, λ found by bisection.

    Requires every ``probs_i > 0`` and ``min(values) < score < max(values)``."""
    shifted = [v - score for v in values]
    lo = -1.0 / max(shifted) + 1e-12  # keeps every 1 + λ·shifted positive
    hi = -1.0 / min(shifted) - 1e-12
    for _ in range(80):
        mid = (lo + hi) / 2.0
        slope = sum(p * d / (1.0 + mid * d) for p, d in zip(probs, shifted))
        if slope > 0:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12:
            break
    lam = (lo + hi) / 2.0
    return [p / (1.0 + lam * d) for p, d in zip(probs, shifted)]


def llr(counts: DealCounts, config: SprtConfig) -> float:
    """The generalized log-likelihood ratio of H1 against H0 for these deals (0 for none)."""
    deals = counts.deals
    if deals == 0:
        return 0.0
    regular = [n if n > 0 else REGULARISE for n in counts.counts]
    total = sum(regular)
    probs = [n / total for n in regular]
    values = counts.values
    p0 = _constrained_mle(values, probs, score_of_elo(config.elo0))
    p1 = _constrained_mle(values, probs, score_of_elo(config.elo1))
    return deals * sum(p * math.log(a / b) for p, a, b in zip(probs, p1, p0))


#: Fewest deals with which the Elo difference is given an interval (one deal has no spread).
INTERVAL_DEALS = 2


def elo_text(elo: float | None, lo: float | None = None, hi: float | None = None) -> str:
    """``+12.3 [-5.0, +30.1]``: an Elo difference and its interval (``-inf``/``+inf`` for a
    bound at the clamp, nothing for an interval not known), or ``-`` for none."""

    def one(value: float) -> str:
        bound = elo_of_score(1.0)
        return "+inf" if value >= bound else "-inf" if value <= -bound else f"{value:+.1f}"

    if elo is None:
        return "-"
    text = one(elo)
    return text if lo is None or hi is None else f"{text} [{one(lo)}, {one(hi)}]"


@dataclass(frozen=True, kw_only=True)
class SprtStatus:
    """Where a match stands: deals and games counted, the LLR and its bounds, the decision,
    NEW's mean pairwise score against BASE and its Elo difference with a 95 % interval
    (``interval``: whether that interval means something yet: two deals or more, and a score
    neither 0 nor 1, whose Elo is infinite)."""

    deals: int
    games: int
    llr: float
    lower: float
    upper: float
    decision: Decision
    score: float
    elo: float
    elo_lo: float
    elo_hi: float

    @property
    def interval(self) -> bool:
        return self.deals >= INTERVAL_DEALS and 0.0 < self.score < 1.0

    def to_dict(self) -> dict[str, object]:
        """JSON-ready; ``elo`` is None before any deal, ``elo_lo`` and ``elo_hi`` while the
        interval means nothing (``interval``)."""
        return {
            "deals": self.deals,
            "games": self.games,
            "llr": round(self.llr, 4),
            "lower": round(self.lower, 4),
            "upper": round(self.upper, 4),
            "decision": self.decision.value,
            "score": round(self.score, 4),
            "elo": round(self.elo, 1) if self.deals else None,
            "elo_lo": round(self.elo_lo, 1) if self.interval else None,
            "elo_hi": round(self.elo_hi, 1) if self.interval else None,
        }

    def elo_text(self) -> str:
        """``+12.3 [-5.0, +30.1]``, the interval only once it means something."""
        if not self.deals:
            return "-"
        if not self.interval:
            return elo_text(self.elo)
        return elo_text(self.elo, self.elo_lo, self.elo_hi)

    def line(self) -> str:
        """The test in one line."""
        return (
            f"LLR {self.llr:+.2f} [{self.lower:+.2f}, {self.upper:+.2f}]  Elo {self.elo_text()}  "
            f"score {100 * self.score:.1f}%"
        )


def status(counts: DealCounts, config: SprtConfig) -> SprtStatus:
    """The test's state after these deals."""
    deals = counts.deals
    values = counts.values
    if deals:
        mean = sum(v * n for v, n in zip(values, counts.counts)) / deals
        variance = sum(n * (v - mean) ** 2 for v, n in zip(values, counts.counts)) / deals
        spread = Z95 * math.sqrt(variance / deals)
    else:
        mean, spread = 0.5, 0.5
    ratio = llr(counts, config)
    decision = (
        Decision.H1
        if ratio >= config.upper
        else Decision.H0
        if ratio <= config.lower
        else Decision.CONTINUE
    )
    return SprtStatus(
        deals=deals,
        games=deals * counts.games_per_deal,
        llr=ratio,
        lower=config.lower,
        upper=config.upper,
        decision=decision,
        score=mean,
        elo=elo_of_score(mean),
        elo_lo=elo_of_score(mean - spread),
        elo_hi=elo_of_score(mean + spread),
    )
