"""Tournaments: plans, the bot catalogue, running, ratings, the results store and reports.

- ``schedule``: ``TournamentSpec`` → ``plan(spec, key=...)``: every k-subset of entrants (or the
  tables of a gauntlet or a match), every seat rotation on the same deal seed, ``repetitions``
  times; seeds keyed with the tournament's secret key (``arena.keys.seeds``), which the store keeps
  in the key file beside the database.
- ``catalogue``: what a bot name means (registered, bundled or a command line), its version;
  ``targets``: what a bot SPEC on the command line means (a name, a folder, a command line);
  ``registry``: registering bots after ``compliance``'s checks (``interleaved``: games at
  once); ``remote``: remote bots' tokens.
- ``runner`` and ``dispatch``: play the pending games through the arena's game session, in
  this process or in workers; ``matches`` and ``sprt``: matches stopped by an SPRT (or by
  their bots' faults).
- ``gamelogs``: a stored game's bot log lines by step; ``ask``: one recorded turn asked of a
  bot again.
- ``ratings``: incremental multiplayer Elo and batch maximum-likelihood ratings with 95 %
  intervals and likelihood of superiority, from pairwise decomposition of places.
- ``store``: the SQLite results database (sqlite-utils, migrations, WAL); ``values``: what it
  returns; ``migrations``: its schema.
- ``reports`` and ``published``: aligned text tables and the JSON data of rankings,
  crosstables and tournaments, for the command line and the web face.
"""

from __future__ import annotations

from tournaments.errors import DuplicateBot, NotFound, PlanError, RatingError, TournamentError
from tournaments.schedule import PlannedGame, TournamentSpec, check_spec, plan
from tournaments.store import Store, resolve_db_path

__all__ = [
    "DuplicateBot",
    "NotFound",
    "PlanError",
    "PlannedGame",
    "RatingError",
    "Store",
    "TournamentError",
    "TournamentSpec",
    "check_spec",
    "plan",
    "resolve_db_path",
]
