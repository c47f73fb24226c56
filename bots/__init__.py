"""The bundled bots; each runs as ``python -m bots.NAME``.

``manifest.toml`` beside this file lists them with the games each plays: the arena reads it as
data and never imports a bot. Bots may use the SDK (``protocol``) and the rules engines
(``arena.games``, as a simulator), nothing else of the arena.
"""
