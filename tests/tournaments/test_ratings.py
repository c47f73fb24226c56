"""Ratings: hand-computed Elo and maximum-likelihood cases, and properties of the batch fit."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.errors import RatingError
from tournaments.ratings import (
    GameResult,
    PairCounts,
    batch_ratings,
    expected_score,
    incremental_elo,
)

C = math.log(10) / 400


def game(index: int, seating: str, places: tuple[int, ...]) -> GameResult:
    return GameResult(index=index, seating=tuple(seating), places=places)


def counts_of(results: list[GameResult], entrants: str = "") -> PairCounts:
    counts = PairCounts(tuple(entrants))
    for r in results:
        counts.add_game(r.seating, r.places)
    return counts


# -- incremental Elo -------------------------------------------------------------------------


def test_expected_score() -> None:
    assert expected_score(1500, 1500) == 0.5
    assert expected_score(1900, 1500) == pytest.approx(10 / 11)


def test_incremental_elo_two_players_by_hand() -> None:
    elo = incremental_elo([game(0, "ab", (1, 2)), game(1, "ba", (1, 2))], k=16)
    # Game 0: both 1500, E = 0.5: a +8, b -8.
    # Game 1: b (1492) beats a (1508): E_b = 1 / (1 + 10 ** (16 / 400)) = 0.4769904...
    e_b = 1 / (1 + 10**0.04)
    assert e_b == pytest.approx(0.4769904)
    assert elo.ratings["b"] == pytest.approx(1492 + 16 * (1 - e_b))
    assert elo.ratings["a"] == pytest.approx(1508 - 16 * (1 - e_b))
    assert elo.games == {"a": 2, "b": 2}
    assert [(h.game_index, h.entrant, round(h.rating, 3)) for h in elo.history] == [
        (0, "a", 1508.0),
        (0, "b", 1492.0),
        (1, "b", 1500.368),
        (1, "a", 1499.632),
    ]


def test_incremental_elo_multiplayer_and_ties_by_hand() -> None:
    # Three players at 1500: each pair scores 0.5 - E = +-0.5, scaled by K / (n - 1) = 8.
    elo = incremental_elo([game(0, "abc", (1, 2, 3))], k=16)
    assert elo.ratings == {"a": 1508.0, "b": 1500.0, "c": 1492.0}
    # a and b share first place: each draws the other and beats c.
    elo = incremental_elo([game(0, "abc", (1, 1, 3))], k=16)
    assert elo.ratings == {"a": 1504.0, "b": 1504.0, "c": 1492.0}
    # Entrants that did not play are reported at the initial rating.
    elo = incremental_elo([], entrants=["x"], initial=1000)
    assert elo.ratings == {"x": 1000} and elo.history == ()


@given(st.lists(st.permutations([1, 2, 3, 4]), max_size=30), st.floats(1, 64))
def test_incremental_elo_is_zero_sum(placings: list[list[int]], k: float) -> None:
    results = [game(i, "abcd"[i % 4 :] + "abcd"[: i % 4], tuple(p)) for i, p in enumerate(placings)]
    elo = incremental_elo(results, entrants="abcd", k=k)
    assert sum(elo.ratings.values()) == pytest.approx(4 * 1500)
    assert len(elo.history) == 4 * len(results)


# -- batch maximum likelihood ----------------------------------------------------------------


def three_wins_one_loss() -> PairCounts:
    return counts_of([game(i, "ab", (1, 2)) for i in range(3)] + [game(3, "ab", (2, 1))])


def test_mle_three_wins_one_loss_without_prior() -> None:
    batch = batch_ratings(three_wins_one_loss(), prior=0)
    a, b = batch.by_entrant()["a"], batch.by_entrant()["b"]
    assert a.rating - b.rating == pytest.approx(400 * math.log10(3))
    assert (a.rating + b.rating) / 2 == pytest.approx(1500)
    # Fisher information of the difference: C^2 * N * p * (1 - p), p = 3/4, N = 4;
    # each rating is the mean +- d/2, so its variance is a quarter of the difference's.
    var_d = 1 / (C * C * 4 * 0.75 * 0.25)
    assert a.se == pytest.approx(math.sqrt(var_d) / 2)
    assert a.hi - a.rating == pytest.approx(1.959964 * a.se)
    assert batch.covariance[0][1] == pytest.approx(-var_d / 4)
    z = (a.rating - b.rating) / math.sqrt(var_d)
    assert batch.los["a"]["b"] == pytest.approx(0.5 * (1 + math.erf(z / math.sqrt(2))))
    assert batch.los["a"]["b"] + batch.los["b"]["a"] == pytest.approx(1)
    assert a.games == b.games == 4


def test_prior_is_one_virtual_draw() -> None:
    # Prior 1, two entrants: one virtual draw between them: 3.5 points out of 5.
    batch = batch_ratings(three_wins_one_loss(), prior=1)
    diff = batch.by_entrant()["a"].rating - batch.by_entrant()["b"].rating
    assert diff == pytest.approx(400 * math.log10(3.5 / 1.5))


def test_draws_count_half() -> None:
    # Two wins and two draws = three points of four, like three wins and a loss.
    counts = counts_of(
        [game(0, "ab", (1, 2)), game(1, "ab", (1, 2)), game(2, "ab", (1, 1)), game(3, "ba", (1, 1))]
    )
    diff = batch_ratings(counts, prior=0).by_entrant()
    assert diff["a"].rating - diff["b"].rating == pytest.approx(400 * math.log10(3))


def test_multiplayer_pairs_are_weighted_for_their_correlation() -> None:
    places = [(1, 2, 3, 4), (2, 1, 4, 3), (4, 3, 1, 2), (1, 3, 2, 4), (3, 4, 1, 2)]
    four = counts_of([game(i, "abcd", p) for i, p in enumerate(places)])
    naive = PairCounts()
    for p in places:
        for i in range(4):
            for j in range(i + 1, 4):
                naive.add("abcd"[i], "abcd"[j], wins=int(p[i] < p[j]), losses=int(p[i] > p[j]))
    got, plain = batch_ratings(four, prior=0), batch_ratings(naive, prior=0)
    for x, y in zip(got.ratings, plain.ratings):
        assert x.rating == pytest.approx(y.rating)
        assert x.se == pytest.approx(y.se * math.sqrt(5 / 3))  # design effect (n + 1) / 3


def test_undefeated_bot_needs_the_prior() -> None:
    counts = counts_of([game(i, "ab", (1, 2)) for i in range(5)])
    with pytest.raises(RatingError, match="prior"):
        batch_ratings(counts, prior=0)
    batch = batch_ratings(counts)
    assert batch.ranked()[0].entrant == "a"
    assert all(math.isfinite(r.rating) and math.isfinite(r.se) for r in batch.ratings)


def test_entrants_that_never_met() -> None:
    counts = counts_of([game(0, "ab", (1, 2)), game(1, "ab", (2, 1))], entrants="abcd")
    with pytest.raises(RatingError):
        batch_ratings(counts, prior=0)
    batch = batch_ratings(counts).by_entrant()
    assert batch["c"].rating == pytest.approx(batch["d"].rating)
    assert batch["c"].games == 0
    assert batch["c"].se > batch["a"].se


def test_no_entrants() -> None:
    assert batch_ratings(PairCounts()).ratings == ()


def test_crosstable_counts() -> None:
    counts = counts_of([game(0, "abc", (1, 2, 2)), game(1, "cab", (1, 2, 3))])
    table = counts.crosstable()
    assert table.cell("a", "b").wins == 2 and table.cell("b", "a").losses == 2
    assert table.cell("b", "c").draws == 1 and table.cell("b", "c").losses == 1
    assert table.cell("c", "a").score == pytest.approx(0.5)
    total = table.total("a")
    assert (total.wins, total.draws, total.losses) == (3, 0, 1)


# -- properties -------------------------------------------------------------------------------

LABELS = "abcde"


@st.composite
def tournaments(draw: st.DrawFn, min_games: int = 1) -> list[GameResult]:
    n = draw(st.integers(2, 4))
    tables = st.lists(st.sampled_from(LABELS), min_size=n, max_size=n, unique=True)
    games = draw(
        st.lists(
            st.tuples(tables, st.lists(st.integers(1, n), min_size=n, max_size=n)),
            min_size=min_games,
            max_size=25,
        )
    )
    return [
        GameResult(index=i, seating=tuple(t), places=tuple(p)) for i, (t, p) in enumerate(games)
    ]


def rate(results: list[GameResult], **kw: float) -> dict[str, float]:
    batch = batch_ratings(counts_of(results, LABELS), **kw)
    return {r.entrant: r.rating for r in batch.ratings}


@given(tournaments(), st.permutations(LABELS))
def test_relabelling_permutes_ratings(results: list[GameResult], perm: list[str]) -> None:
    rename = dict(zip(LABELS, perm))
    renamed = [
        GameResult(index=r.index, seating=tuple(rename[x] for x in r.seating), places=r.places)
        for r in results
    ]
    before, after = rate(results), rate(renamed)
    for label in LABELS:
        assert after[rename[label]] == pytest.approx(before[label], abs=1e-6)


@given(tournaments(), st.randoms(use_true_random=False))
def test_batch_rating_ignores_game_order(results: list[GameResult], rnd: random.Random) -> None:
    shuffled = results[:]
    rnd.shuffle(shuffled)
    assert rate(shuffled) == rate(results)


@given(tournaments(), st.floats(-3000, 3000))
def test_mean_is_anchored(results: list[GameResult], anchor: float) -> None:
    ratings = rate(results, anchor=anchor)
    assert sum(ratings.values()) / len(ratings) == pytest.approx(anchor, abs=1e-6)


@given(tournaments(), st.data())
def test_a_better_place_never_lowers_a_rating(
    results: list[GameResult], data: st.DataObject
) -> None:
    i = data.draw(st.integers(0, len(results) - 1))
    r = results[i]
    seat = data.draw(st.integers(0, len(r.seating) - 1))
    better = list(r.places)
    if better[seat] == 1:
        return
    better[seat] -= 1
    improved = (
        results[:i]
        + [GameResult(index=i, seating=r.seating, places=tuple(better))]
        + results[i + 1 :]
    )
    label = r.seating[seat]
    assert rate(improved)[label] >= rate(results)[label] - 1e-6


@given(tournaments())
def test_intervals_shrink_with_more_games(results: list[GameResult]) -> None:
    """The same results twice over: the fit is unchanged and every interval is 1/sqrt(2) as
    wide (without a prior, where the information exactly doubles). With a prior, lopsided
    results may widen: an undefeated bot's rating and interval rightly keep growing."""
    try:
        once = batch_ratings(counts_of(results), prior=0).by_entrant()
    except RatingError:
        return  # not estimable without a prior
    twice = batch_ratings(counts_of(results * 2), prior=0).by_entrant()
    for label, rated in once.items():
        assert twice[label].rating == pytest.approx(rated.rating, abs=1e-6)
        assert twice[label].se == pytest.approx(rated.se / math.sqrt(2))


def test_intervals_shrink_with_more_simulated_games() -> None:
    few = batch_ratings(counts_of(simulate(60, seed=1))).by_entrant()
    many = batch_ratings(counts_of(simulate(600, seed=2))).by_entrant()
    for label, rated in few.items():
        assert many[label].se < rated.se / 2


@given(tournaments())
def test_los_is_consistent(results: list[GameResult]) -> None:
    batch = batch_ratings(counts_of(results, LABELS))
    by = batch.by_entrant()
    for a in LABELS:
        for b in LABELS:
            if a != b:
                assert batch.los[a][b] + batch.los[b][a] == pytest.approx(1)
                assert (batch.los[a][b] > 0.5) == (by[a].rating > by[b].rating + 1e-9) or abs(
                    by[a].rating - by[b].rating
                ) < 1e-6


STRENGTH = {"a": 300.0, "b": 150.0, "c": 0.0, "d": -150.0}


def simulate(games: int, *, seed: int) -> list[GameResult]:
    """Three-player games among bots of known strength (Elo-like, with noise)."""
    rng = random.Random(seed)
    results = []
    for i in range(games):
        seating = rng.sample(sorted(STRENGTH), 3)
        keys = [-(STRENGTH[x] + rng.gauss(0, 200)) for x in seating]
        order = sorted(range(3), key=lambda s: keys[s])
        places = [0] * 3
        for place, seat in enumerate(order):
            places[seat] = place + 1
        results.append(GameResult(index=i, seating=tuple(seating), places=tuple(places)))
    return results


def test_stronger_bots_rate_higher() -> None:
    results = simulate(400, seed=5)
    batch = batch_ratings(counts_of(results))
    assert [r.entrant for r in batch.ranked()] == ["a", "b", "c", "d"]
    elo = incremental_elo(results)
    assert sorted(elo.ratings, key=lambda x: -elo.ratings[x]) == ["a", "b", "c", "d"]
    assert batch.los["a"]["d"] > 0.99
