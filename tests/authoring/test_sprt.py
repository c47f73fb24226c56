"""The SPRT statistics of ``arena match`` (tournaments.matches.sprt): bounds, LLR, Elo, and their
error rates in simulated matches between bots of known strength."""

from __future__ import annotations

import math
import random

import pytest

from tournaments.matches.sprt import (
    DealCounts,
    Decision,
    SprtConfig,
    SprtError,
    deal_half_points,
    elo_of_score,
    llr,
    score_of_elo,
    status,
)


def test_wald_bounds() -> None:
    config = SprtConfig(elo0=0, elo1=10, alpha=0.05, beta=0.05)
    assert config.lower == pytest.approx(math.log(0.05 / 0.95))
    assert config.upper == pytest.approx(math.log(0.95 / 0.05))
    assert config.lower == pytest.approx(-2.944, abs=1e-3)


@pytest.mark.parametrize(
    "words, fragment",
    [
        (["elo0=10", "elo1=5"], "elo0 < elo1"),
        (["elo0=5", "elo1=5"], "elo0 < elo1"),
        (["alpha=0.5"], "alpha"),
        (["beta=0"], "beta"),
        (["alpha=-1"], "alpha"),
        (["alpha=x"], "not a number"),
        (["gamma=1"], "bad SPRT setting"),
        (["elo1"], "bad SPRT setting"),
        (["elo1=nan"], "finite"),
    ],
)
def test_impossible_bounds_are_refused(words: list[str], fragment: str) -> None:
    with pytest.raises(SprtError, match=fragment):
        SprtConfig.parse(words)


def test_parse_keeps_defaults() -> None:
    assert SprtConfig.parse(["elo1=20"]) == SprtConfig(elo0=0, elo1=20, alpha=0.05, beta=0.05)


def test_elo_and_score_are_inverse() -> None:
    for elo in (-300, -10, 0, 7.5, 200):
        assert elo_of_score(score_of_elo(elo)) == pytest.approx(elo)
    assert score_of_elo(0) == 0.5
    assert elo_of_score(1.0) > 2000 and elo_of_score(0.0) < -2000


def test_deal_half_points() -> None:
    deal = [
        {"new": 1, "base": 2, "f": 3},
        {"new": 2, "base": 2, "f": 1},
        {"new": 3, "base": 1, "f": 2},
    ]
    assert deal_half_points(deal, "new", "base") == 2 + 1 + 0
    assert deal_half_points(deal, "base", "new") == 0 + 1 + 2


def test_counts_refuse_impossible_totals() -> None:
    counts = DealCounts(games_per_deal=2)
    assert counts.counts == (0, 0, 0, 0, 0)
    with pytest.raises(SprtError):
        counts.add(5)
    assert counts.add(4).add(4).counts == (0, 0, 0, 0, 2)


def test_llr_sign_follows_the_evidence() -> None:
    config = SprtConfig(elo0=0, elo1=10)
    even = DealCounts(games_per_deal=2, counts=(10, 20, 40, 20, 10))
    strong = DealCounts(games_per_deal=2, counts=(5, 15, 40, 25, 15))
    weak = DealCounts(games_per_deal=2, counts=(15, 25, 40, 15, 5))
    assert llr(DealCounts(games_per_deal=2), config) == 0.0
    assert llr(even, config) < 0  # a mean of exactly 0.5 favours elo0 = 0
    assert llr(strong, config) > 0 > llr(weak, config)
    # the LLR grows with the number of deals at the same frequencies
    double = DealCounts(games_per_deal=2, counts=tuple(2 * n for n in strong.counts))
    assert llr(double, config) == pytest.approx(2 * llr(strong, config), rel=1e-6)


def test_llr_matches_the_pentanomial_normal_approximation() -> None:
    """For small Elo differences the GSPRT LLR is close to the normal approximation
    (s1 − s0)(2·x̄ − s0 − s1) · N / (2σ²) used by fishtest."""
    config = SprtConfig(elo0=0, elo1=5)
    counts = DealCounts(games_per_deal=2, counts=(300, 1800, 4000, 2100, 400))
    values, n = counts.values, counts.deals
    mean = sum(v * c for v, c in zip(values, counts.counts)) / n
    var = sum(c * (v - mean) ** 2 for v, c in zip(values, counts.counts)) / n
    s0, s1 = score_of_elo(config.elo0), score_of_elo(config.elo1)
    approx = (s1 - s0) * (2 * mean - s0 - s1) * n / (2 * var)
    assert llr(counts, config) == pytest.approx(approx, rel=0.02)


def test_status_decides_at_the_bounds_and_reports_elo() -> None:
    config = SprtConfig(elo0=0, elo1=10)
    wins = DealCounts(games_per_deal=3, counts=(0, 0, 0, 0, 0, 0, 200))
    state = status(wins, config)
    assert state.decision is Decision.H1 and state.llr >= state.upper
    assert state.games == 600 and state.elo > 1000
    losses = DealCounts(games_per_deal=3, counts=(200, 0, 0, 0, 0, 0, 0))
    assert status(losses, config).decision is Decision.H0
    mixed = DealCounts(games_per_deal=2, counts=(10, 20, 40, 20, 10))
    state = status(mixed, config)
    assert state.score == pytest.approx(0.5)
    assert state.elo == pytest.approx(0.0, abs=1e-9)
    assert state.elo_lo < 0 < state.elo_hi
    assert state.elo_hi == pytest.approx(-state.elo_lo)
    assert status(DealCounts(games_per_deal=2), config).decision is Decision.CONTINUE


# -- simulation: error rates -------------------------------------------------------------------


def simulated_deal(rng: random.Random, score: float, games: int) -> int:
    """One deal of a simulated match between NEW and BASE whose expected pairwise score is
    ``score``: the deal's luck favours one seat, and over the rotations NEW sits in every seat,
    so the luck cancels within the deal (the games of a deal are correlated, as in the arena).
    Draws (equal places) happen a fifth of the time; the other games are won with a
    probability that makes the expected score ``score``."""
    win_rate = (score - 0.1) / 0.8
    lucks = [rng.uniform(-0.3, 0.3) for _ in range(games)]
    mean_luck = sum(lucks) / games
    half_points = 0
    for luck in lucks:
        if rng.random() < 0.2:
            half_points += 1
            continue
        win = min(1.0, max(0.0, win_rate + luck - mean_luck))
        half_points += 2 if rng.random() < win else 0
    return half_points


def run_match(
    rng: random.Random, elo: float, config: SprtConfig, *, games: int, max_deals: int
) -> Decision:
    counts = DealCounts(games_per_deal=games)
    score = score_of_elo(elo)
    for _ in range(max_deals):
        counts = counts.add(simulated_deal(rng, score, games))
        decision = status(counts, config).decision
        if decision is not Decision.CONTINUE:
            return decision
    return Decision.CONTINUE


def error_rates(runs: int, config: SprtConfig, *, games: int, seed: int) -> tuple[float, float]:
    """(false positives when NEW is elo0 stronger, false negatives when elo1 stronger)."""
    rng = random.Random(seed)
    false_pos = sum(
        run_match(rng, config.elo0, config, games=games, max_deals=5000) is Decision.H1
        for _ in range(runs)
    )
    false_neg = sum(
        run_match(rng, config.elo1, config, games=games, max_deals=5000) is Decision.H0
        for _ in range(runs)
    )
    return false_pos / runs, false_neg / runs


def within(rate: float, bound: float, runs: int) -> bool:
    """``rate`` is not significantly above ``bound`` (three binomial standard errors)."""
    return rate <= bound + 3 * math.sqrt(bound * (1 - bound) / runs)


@pytest.mark.parametrize("games", [2, 3])
def test_error_rates_stay_within_alpha_and_beta(games: int) -> None:
    config = SprtConfig(elo0=0, elo1=60, alpha=0.05, beta=0.1)
    runs = 150
    false_pos, false_neg = error_rates(runs, config, games=games, seed=games)
    assert within(false_pos, config.alpha, runs), false_pos
    assert within(false_neg, config.beta, runs), false_neg


@pytest.mark.slow
def test_error_rates_long() -> None:
    config = SprtConfig(elo0=0, elo1=40, alpha=0.05, beta=0.05)
    runs = 300
    false_pos, false_neg = error_rates(runs, config, games=2, seed=99)
    assert within(false_pos, config.alpha, runs), false_pos
    assert within(false_neg, config.beta, runs), false_neg
