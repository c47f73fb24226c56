"""Tournaments: the application — its use cases, plans, the bot catalogue, running, ratings, the
results store and reports.

- ``service``: the use cases the command line and the web call (create, prepare and run a
  tournament, plan and run a match, set up bot processes).

- ``schedule``: ``TournamentSpec`` → ``plan(spec, key=...)``: every k-subset of entrants (or the
  tables of a gauntlet or a match), every seat rotation on the same deal seed, ``repetitions``
  times; seeds keyed with the tournament's secret key (``arena.keys.seeds``), which the store keeps
  in the key file beside the database.
- ``catalogue``: what a bot name means (registered, bundled or a command line), its version,
  checked before it runs; ``botcopies``: folder bots' read-only, content-addressed copies;
  ``commandfiles``: the files a command bot names, hashed; ``oldversions``: bots registered
  before copies; ``registry``: registering bots after ``compliance``'s checks; ``remote``:
  remote bots' tokens; ``withheld``: when a bot's log may be shown.
- ``runner`` and ``dispatch``: play the pending games through the arena's game session, in
  this process or in workers; ``matches`` and ``sprt``: matches stopped by an SPRT.
- ``ratings``: incremental multiplayer Elo and batch maximum-likelihood ratings with 95 %
  intervals and likelihood of superiority, from pairwise decomposition of places.
- ``store``: the SQLite results database (sqlite-utils, migrations, WAL); ``values``: what it
  returns; ``migrations``: its schema.
- ``reports`` and ``published``: aligned text tables and the JSON data of rankings,
  crosstables and tournaments, for the command line and the web face.

The package imports nothing itself: a command loads only the modules it uses.
"""
