"""Typed errors of the tournaments package (all ArenaError, shown to users as one line):
database problems, bad tournament specs, unknown ids, ratings that cannot be computed and
ladder requests that cannot be done."""

from __future__ import annotations

from arena.errors import ArenaError


class StoreError(ArenaError):
    """The results database is corrupt, locked, or of an unknown schema."""


class BadParameter(ArenaError):
    """A filter or sort that the lists of games do not know (``tournaments.store.game_lists``)."""


class TournamentError(ArenaError):
    """A problem with a tournament, its plan or its results."""


class PlanError(TournamentError):
    """A tournament spec cannot be planned (too few entrants, bad table size, repetitions...)."""


class RatingError(TournamentError):
    """Ratings cannot be computed (e.g. no prior and a bot that won or lost every game)."""


class NotFound(TournamentError):
    """No tournament, game or bot with that id or name is in the database."""


class BotChanged(TournamentError):
    """A bot's code is not that of the version it would run under (its files changed, or the
    version planned is gone): it is not run."""


class DuplicateBot(TournamentError):
    """A bot with that name is already registered."""


class ArchiveError(TournamentError):
    """A bot's archive cannot be unpacked safely (corrupt, too big, or holding a device, a
    path out of its folder or a link out of it)."""


class ClusterError(TournamentError):
    """A tournament cannot run on a Dask cluster, or lost it: the scheduler is unreachable or
    gone, a worker runs another arena version, lacks a bot's file or cannot sandbox."""


class ClusterLost(ClusterError):
    """The Dask scheduler went away during a run: what finished is recorded; run again."""


class BarrierError(TournamentError):
    """A bot process could not be confirmed gone at the end of a phase: the run stops there
    (what finished is recorded), since the next phase's processes must never meet it."""


class LadderError(TournamentError):
    """A ladder request that cannot be done (a name taken, a bot another participant owns, a
    version already entered...)."""


class NotYourBot(LadderError):
    """A participant tried to replace a bot that another participant entered."""


class UsageProblem(TournamentError):
    """A request that cannot work as given (two arguments that exclude each other, a match of a
    bot against itself...): the command line shows it as a usage error."""


class Interrupted(TournamentError):
    """A run was interrupted (Ctrl-C): what finished is recorded; the message says how to go
    on."""
