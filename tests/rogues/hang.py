"""Says hello, then never answers a turn."""

from _wire import serve

serve(lambda sock, turn, n: None)
