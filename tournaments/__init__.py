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
  before copies; ``targets``: what a bot SPEC on the command line means (a name, a folder, a
  command line); ``registry``: registering bots after ``compliance``'s checks
  (``interleaved``: games at once); ``remote``: remote bots' tokens; ``withheld``: what may be
  shown while a tournament is played (a game's replay, a bot's log).
- ``runner``, ``phases`` and ``playing``: play the pending games through the arena's referee,
  phase by phase (no two processes of an entrant that play rotations of one deal are ever
  alive at once), in this process, in workers or on a cluster (``cluster``); ``matches`` and
  ``sprt``: matches stopped by an SPRT (or by their bots' faults).
- ``gamelogs``: a stored game's bot log lines by step; ``ask``: one recorded turn asked of a
  bot again.
- ``ratings``: incremental multiplayer Elo and batch maximum-likelihood ratings with 95 %
  intervals and likelihood of superiority, from pairwise decomposition of places.
- ``store``: the SQLite results database (sqlite-utils, migrations, WAL); ``values``: what it
  returns; ``migrations``: its schema.
- ``reports`` and ``published``: aligned text tables and the JSON data of rankings,
  crosstables and tournaments, for the command line and the web face.

The package imports nothing itself: a command loads only the modules it uses.
"""
