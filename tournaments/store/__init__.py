"""The results database: raw facts, what derives from them, and what may be shown.

- ``facts``: ``Store``, the connection, its write transactions and the raw facts (bots,
  tournaments, entrants, plans, games with their actions, seats and faults); ``database``:
  where the file is, how it is opened, its errors in words, the base of the store's parts;
  ``sqlite``: sqlite-utils imported without numpy; ``migrations``: the schema.
- The store's parts over the same connection: ``results`` (standings, head-to-head, ratings,
  derived from the games), ``process_records`` (every bot process of a run and their audit),
  ``heartbeat`` (runs and their beats: running or stopped).
- ``values``: the frozen values it returns; ``withheld``: what may be shown while a tournament
  is played; ``gamelogs``: a stored game's bot log lines by step.

The store knows plans and ratings (it stores the one and derives the other); it knows nothing
of bot processes, of how games are played, or of the faces.
"""
