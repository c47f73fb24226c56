"""The results database: raw facts, what derives from them, and what may be shown. Every SQL
statement of the arena is here (with the schema, ``migrations``): a change of the schema
touches this package only.

- ``facts``: ``Store``, the connection, its write transactions and the raw facts (bots,
  tournaments, entrants, plans, games with their actions, seats and faults); ``database``:
  where the file is, how it is opened (read-write, or read-only), its errors in words, the base
  of the store's parts; ``sqlite``: sqlite-utils imported without numpy; ``migrations``: the
  schema; ``readonly``: the read-only Stores of the web (opened without writing or migrating,
  pooled between requests).
- The store's parts over the same connection: ``results`` (standings, head-to-head, ratings,
  faults by entrant and kind, derived from the games), ``process_records`` (every bot process
  of a run and their audit), ``heartbeat`` (runs and their beats: running or stopped),
  ``ladders`` (a ladder's entries, batches and skills).
- The read model of the pages and reports: ``game_lists`` (a tournament's games, listed,
  paged, filtered, as data lines), ``bot_records`` (a bot's public record), ``gamelogs`` (a
  stored game's bot log lines by step), ``withheld`` (what may be shown while a tournament is
  played).
- ``values`` and ``ladder_values``: the frozen values it returns.

The store knows plans and ratings (it stores the one and derives the other); it knows nothing
of bot processes, of how games are played, or of the faces.
"""
