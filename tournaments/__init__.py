"""Tournaments: plans, ratings, the results store and reports (no processes, no sockets).

- ``schedule``: ``TournamentSpec`` → ``plan(spec, key=...)``: every k-subset of entrants, every
  seat rotation on the same deal seed, ``rounds`` times; seeds keyed with the tournament's
  secret key (``arena.seeds``), which the store keeps in the key file beside the database.
- ``ratings``: incremental multiplayer Elo and batch maximum-likelihood ratings with 95 %
  intervals and likelihood of superiority, from pairwise decomposition of places.
- ``store``: the SQLite results database (sqlite-utils, migrations, WAL); ``values``: what it
  returns; ``migrations``: its schema.
- ``reports``: aligned text tables and JSON-ready dicts for rankings, crosstables, tournaments.

The runner (which plays planned games) and the CLI build on these.
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
