"""Skill ratings of a ladder (``tournaments.ladder``): OpenSkill's Plackett–Luce model, from
the ``openskill`` package.

Each bot version has a skill: a Gaussian belief with mean ``mu`` and deviation ``sigma``
(OpenSkill's defaults: 25 and 25/3). After each game every seat's skill is updated from the
places (ties share a place) by ``PlackettLuce.rate`` with the package's default parameters,
which add a little deviation before each game (``tau``), so a skill can still move after
many games. The leaderboard orders bots by the conservative estimate ``mu - 3 sigma``: a bot
ranks high only once it is both good and known to be good.

A ladder's games are rated one by one in a fixed order (game ids: batch after batch, plan
order within a batch), so recomputing from the stored games gives the same skills, bit for
bit (``tournaments.ladder.rating``).

A new version of a bot starts from its predecessor's skill, ``mu`` kept and ``sigma`` widened
(``inherited``): the predecessor's mu is the best guess of a version that is usually a small
change, and the wider sigma lets a version that is better or worse move quickly and puts it
back in placement; its conservative estimate drops, so it must earn back its rank.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tournaments.errors import TournamentError

__all__ = ["MU", "SIGMA", "Skill", "inherited", "initial", "rate"]

#: OpenSkill's defaults: the prior of a bot never seen.
MU = 25.0
SIGMA = 25.0 / 3.0
#: The conservative estimate is ``mu - Z * sigma``.
Z = 3.0
#: Deviation added (in quadrature) to a predecessor's sigma for its new version: half the prior.
INHERIT_SIGMA = SIGMA / 2


class SkillError(TournamentError):
    """Skills cannot be computed (the ``openskill`` package is missing)."""


@dataclass(frozen=True, slots=True)
class Skill:
    """A skill belief: mean and deviation."""

    mu: float
    sigma: float

    @property
    def conservative(self) -> float:
        """``mu - 3 sigma``: the leaderboard's order."""
        return self.mu - Z * self.sigma


def initial() -> Skill:
    """The skill of a bot version with no games and no predecessor."""
    return Skill(MU, SIGMA)


def inherited(previous: Skill) -> Skill:
    """The starting skill of a new version of a bot whose last version had ``previous``:
    its mu, and a sigma widened by ``INHERIT_SIGMA`` in quadrature (never above the prior's)."""
    return Skill(previous.mu, min(SIGMA, math.hypot(previous.sigma, INHERIT_SIGMA)))


@functools.cache
def model() -> Any:
    """OpenSkill's Plackett–Luce model with its default parameters. Raises SkillError if the
    package is missing."""
    try:
        from openskill.models import PlackettLuce
    except ImportError:
        raise SkillError(
            "ladders rate bots with OpenSkill: install it with `pip install openskill` "
            "(or reinstall the arena, which depends on it)"
        ) from None
    return PlackettLuce()


def rate(skills: Sequence[Skill], places: Sequence[int]) -> list[Skill]:
    """The skills of a game's seats after it, from their skills before and their places
    (1 = first; equal places are a tie), by ``PlackettLuce.rate``."""
    pl = model()
    rating = pl.PlackettLuceRating
    teams = [[rating(s.mu, s.sigma)] for s in skills]
    after = pl.rate(teams, ranks=[float(p) for p in places])
    return [Skill(team[0].mu, team[0].sigma) for team in after]
