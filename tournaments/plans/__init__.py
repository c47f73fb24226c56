"""Plans: which entrants meet, in which seats, on which deal (``schedule``: a tournament's
spec, its tables, their seat rotations and deal seeds, keyed with the tournament's secret key).
The tables of the formats for large fields: ``balanced`` (each entrant at N tables, pairs
meeting evenly), ``swiss`` and ``knockout`` (round by round, from the results so far), with
``rounds`` (what a round holds, how its tables are scored).

A plan is a pure function of its spec and key (and, for a later round, of the results before
it): it knows nothing of bots' processes, of the database or of how games are run. It scores a
pair of seats as ratings do (``tournaments.ratings``, the room below).
"""
