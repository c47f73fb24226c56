"""The bots: what a bot's name or SPEC means, how it runs, which version it is, and how it is
admitted.

- ``lookup``: ``Catalogue``, a name looked up among registered and bundled bots (and, for
  ``arena play``, command lines); ``targets``: what a SPEC on the command line means.
- ``botcopies``: folder bots' read-only, content-addressed copies; ``commandfiles``: the files
  a command bot's command line names, hashed; ``oldversions``: bots registered before copies.
- ``registry``: registration (``arena bot add``) after the entry check, ``compliance`` (with
  ``interleaved``: a bot serving several games at once).
- ``remote``: remote bots' tokens and keys; ``bot_sandbox``: the one sandbox of a command that
  runs bots beside a results database; ``shipping``: bots that travel to cluster workers.

The catalogue reads and writes bots through the store; it knows nothing of tournaments' runs,
matches or the faces.
"""
