"""Plans: which entrants meet, in which seats, on which deal (``schedule``: a tournament's
spec, its tables, their seat rotations and deal seeds, keyed with the tournament's secret key).

A plan is a pure function of its spec and key: it knows nothing of bots' processes, of the
database or of how games are run.
"""
