"""Seed derivation: deal seeds of a tournament and the seed each bot gets for its own randomness.

Every seed is a 63-bit BLAKE2b value of its parts, stable across runs, platforms and Python
versions (tests pin them, so stored tournaments keep replaying). ``arena play`` and tournaments
derive bot seeds the same way: the seed of a seat depends on the deal seed and the seat only.
"""

from __future__ import annotations

import hashlib

_SEED_MASK = (1 << 63) - 1


def derive(*parts: object) -> int:
    """A 63-bit integer from the BLAKE2b hash of ``parts``."""
    text = ":".join(str(p) for p in parts).encode()
    digest = hashlib.blake2b(text, digest_size=8, person=b"arena-seeds").digest()
    return int.from_bytes(digest, "big") & _SEED_MASK


def deal_seed(seed: int, round_: int, table: int) -> int:
    """The deal seed of table ``table`` in round ``round_`` of a tournament seeded ``seed``."""
    return derive("deal", seed, round_, table)


def bot_seed(deal_seed: int, seat: int) -> int:
    """The seed sent to the bot at ``seat`` for its own random choices (``start.seed``).

    It depends on the deal seed and the seat only, so in a duplicate deal the bot in seat 2
    gets the same seed in every rotation, and a rerun gets the same seeds.
    """
    return derive("bot", deal_seed, seat)
