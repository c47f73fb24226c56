"""The machinery of one game: seats, the game step, the driver of many games, and records.

``game`` advances one game (``GamePlay``) over its seats; ``driver`` keeps several games in
flight on one hub; ``seats`` is the one seat interface (bot process, in-process, a person,
scripted); ``session`` owns the hub and the pool a game's process seats come from; ``record``
holds the values of a played game; ``replay`` rebuilds a game from its seed and actions;
``single`` plays one game for ``arena play`` (a person in one seat, if asked). It uses the
rules (``arena.games``) and the bot processes (``arena.procs``), and knows nothing of
tournaments.
"""
