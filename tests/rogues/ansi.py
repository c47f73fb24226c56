"""Prints terminal escape sequences (clear screen, window title, bidi override, carriage
return), then crashes on its first turn: its "last output" reaches the operator's screen."""

import sys

from _wire import serve


def on_turn(sock, turn, n):
    sys.stdout.write("\x1b]0;pwned\x07\x1b[2J\x1b[31mred\rback\u202eevil\n")
    sys.stdout.flush()
    sys.exit(3)


serve(on_turn)
