"""Playing a plan: a tournament's pending games, phase by phase, each recorded once.

- ``phases``: the order a run plays its games in, so that the processes of one entrant that
  play rotations of one deal are never alive at the same time.
- ``playing``: ``SessionRunner``, planned games played on one game session (the part every
  executor shares); ``sink``: where a run's results go, and how an executor reports.
- ``runner``: a run in this process or on ``--jobs`` workers; ``cluster`` and
  ``cluster_worker``: the arena's and the workers' sides of a run on a Dask cluster.

A run knows plans, the store and the catalogue's bots; it knows nothing of matches' SPRT, of
ladders or of the faces.
"""
