"""Tournaments: the application. The arena's use cases over its rooms, top to bottom (each room
uses only the rooms below it; pyproject.toml's import contract keeps it so):

- ``ladder/``: standing ladders (``arena ladder``): entries, matchmaking, OpenSkill, batches
  played as tournaments.
- ``ask``: ``arena bot ask``, one recorded turn asked of a bot again; ``bots``: the bots' use
  cases (register, list, tokens, logs, ``arena bot check``); ``play``: ``arena play``, one
  game between bots.
- ``service``: the use cases the command line and the web call (create, prepare and run a
  tournament, plan and run a match, the demo, set up bot processes), and the faces' door: it
  names the values they take and return; ``published``: the JSON data of every view, for the
  CLI's ``--json`` and the web's API, so both always agree.
- ``matches/``: matches stopped by an SPRT (or by their bots' faults).
- ``run/``: playing a plan: phase by phase, in this process, in ``--jobs`` workers or on a
  Dask cluster, each game recorded once.
- ``rounds``: tournaments played round by round (Swiss, knockout): each round planned from the
  stored results once the one before is complete; what each format shows (balance, standings,
  bracket).
- ``catalogue/``: the bots: what a name means, folder copies and command files, registration
  after the entry check, remote bots, the sandbox of a command, bots shipped to a cluster;
  ``reports``: aligned text tables and JSON-ready dicts of the store's values.
- ``store/``: the results database: the raw facts, what derives from them, the values it
  returns, and what may be shown while a tournament is played.
- ``plans/``: which entrants meet, in which seats, on which deal (round robins, balanced
  plans, Swiss rounds, knockouts); ``ratings/``: Elo and batch maximum-likelihood ratings from
  places, and the pairwise score every table's score uses.
- ``errors``: the typed errors every room raises.

Each room's ``__init__`` says what it holds and what it may not know. The faces
(``arena.cli``, ``arena.web``) come in through one door: the use cases (``service``, ``play``,
``bots``, ``ask``, ``ladder.service``), what they publish, their values and errors, the
``Store`` and the store's read model; pyproject.toml's contract forbids them the rest. The
packages import nothing themselves: a command loads only the modules it uses.
"""
