"""Ratings from game places: incremental multiplayer Elo, a batch maximum-likelihood fit, and
ladders' OpenSkill skills.

Elo and the batch fit decompose each game into pairwise results (``pairwise``: the better
place wins, equal places draw), counted once into ``PairCounts``, which also gives the
head-to-head results (``Crosstable``). ``elo`` walks the games in plan order
(``incremental_elo``); ``batch`` fits Bradley–Terry ratings with 95 % intervals and the
likelihood of superiority to the counts (``batch_ratings``). The names other modules use are
importable from here. ``skill`` is apart (imported by itself, not from here): OpenSkill's
Plackett–Luce skills a ladder rates its games with, game by game.
"""

from tournaments.ratings.batch import Z95, BatchRatings, Rated, batch_ratings
from tournaments.ratings.elo import (
    DEFAULT_K,
    INITIAL_RATING,
    EloRatings,
    HistoryRow,
    expected_score,
    incremental_elo,
)
from tournaments.ratings.pairwise import (
    DRAW,
    Crosstable,
    GameResult,
    HeadToHead,
    PairCounts,
    pair_weight,
    pairwise_score,
)

__all__ = [
    "DEFAULT_K",
    "DRAW",
    "INITIAL_RATING",
    "Z95",
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
