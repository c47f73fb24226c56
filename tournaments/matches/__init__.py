"""Matches (``arena match NEW BASE``): one table played deal after deal until an SPRT decides.

- ``match``: planning, running and reading a match (a tournament of kind ``match`` stopped by
  its SPRT or by its bots' faults);
- ``sprt``: the sequential probability ratio test over deals (pentanomial, as fastchess).

A match is run by ``run`` and stored by ``store``; it knows nothing of ladders or faces.
"""
