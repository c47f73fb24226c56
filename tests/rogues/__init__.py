"""Misbehaving bots, one per file, used as fixtures by the referee and security tests.

Each runs as ``python tests/rogues/NAME.py`` with ARENA_ENDPOINT and ARENA_TOKEN set.
"""
