"""Spins the CPU at its first turn until the arena's CPU-time limit kills it.

Spinning until killed, rather than a little at every turn, makes the kill depend on CPU time
only: on a loaded machine the spin takes longer in wall time, never less CPU.
"""

from _wire import serve


def on_turn(sock, turn, n):
    while True:
        pass


serve(on_turn)
