"""Standing ladders (``arena ladder``): submit at any time, matchmaking, OpenSkill ratings.

A ladder is a game, its table sizes and a set of entries (one per version of a bot). It
plays in batches: each batch's tables are chosen from the skills so far
(``matchmaking``), written as a tournament of kind ``ladder`` with the ladder's own rows
(``tournaments.store.ladders``, its values in ``tournaments.store.ladder_values``) and played
by the tournament runner, so every fair-play rule of tournaments holds; its games are then
rated in a fixed order (``rating``, with ``tournaments.ratings.skill``: OpenSkill's
Plackett–Luce model). ``board`` reads the leaderboard (``values``: its lines), ``bots`` keeps
folder versions and unpacks uploads, ``tokens`` keeps participants' upload tokens (hashed, in
the key file), and ``service`` holds the use cases the faces call. See docs/ladder.md.
"""
