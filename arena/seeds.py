"""Seed derivation: the seed each bot gets for its own randomness, derived from the deal seed."""

from __future__ import annotations

import hashlib


def derive(*parts: object) -> int:
    """A 63-bit seed from any parts (stable across runs, platforms and Python versions)."""
    text = "/".join(str(part) for part in parts).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") >> 1


def bot_seed(deal_seed: int, seat: int) -> int:
    """The seed sent to the bot at ``seat`` in a game dealt from ``deal_seed``."""
    return derive("bot", deal_seed, seat)
