"""Seed derivation: the deal seeds of a game and the seed each bot gets for its own randomness.

Every seed that decides a deal or is sent to a bot is a 63-bit HMAC-SHA256 of its parts under a
**secret key** (32 random bytes, see ``arena.keys.keyfile``): a tournament has a key of its own, and
``arena play`` uses the user's key. Without the key, no one (a bot least of all) can compute a
deal seed from a tournament's ``--seed``, round and table, nor go back from a bot seed to the
deal seed. With the same key the seeds are the same on every run, platform and Python version
(tests pin them, so stored tournaments keep replaying).

Seeds fit a signed SQLite INTEGER and every msgpack implementation (0 <= seed < 2**63).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

__all__ = [
    "KEY_BYTES",
    "bot_seed",
    "bot_seeds",
    "deal_seed",
    "derive",
    "key_id",
    "new_key",
    "random_seed",
]

#: Length of a secret key in bytes.
KEY_BYTES = 32
_SEED_MASK = (1 << 63) - 1
_DOMAIN = b"arena-seeds:"


def new_key() -> bytes:
    """A fresh secret key (``KEY_BYTES`` random bytes from the operating system)."""
    return secrets.token_bytes(KEY_BYTES)


def random_seed() -> int:
    """A random 63-bit seed (for a game no one needs to reproduce)."""
    return secrets.randbits(63)


def _check(key: bytes) -> bytes:
    if not isinstance(key, bytes) or len(key) < 16:
        raise ValueError("a seed key is at least 16 bytes")
    return key


def derive(key: bytes, *parts: object) -> int:
    """A 63-bit integer: the HMAC-SHA256 of ``parts`` (joined with ``:``) under ``key``."""
    text = ":".join(str(p) for p in parts).encode()
    digest = hmac.digest(_check(key), _DOMAIN + text, hashlib.sha256)
    return int.from_bytes(digest[:8], "big") & _SEED_MASK


def deal_seed(
    key: bytes, seed: int, round_: int, table: int, *, rotation: int | None = None
) -> int:
    """The deal seed of table ``table`` in round ``round_`` of a game or tournament seeded
    ``seed`` (``arena play`` uses round 0, table 0): one deal for every seat rotation of the
    table (duplicate deals); with ``rotation``, that rotation's own deal (independent deals).

    The parts are whole numbers joined with ``:``, so a rotation's deal (five parts) is never
    a table's (four)."""
    if rotation is None:
        return derive(key, "deal", seed, round_, table)
    return derive(key, "deal", seed, round_, table, rotation)


def bot_seed(key: bytes, deal_seed: int, seat: int) -> int:
    """The seed sent to the bot at ``seat`` for its own random choices (``start.seed``).

    It depends on the key, the deal seed and the seat only, so in a duplicate deal the bot in
    seat 2 gets the same seed in every rotation, and a resumed run gets the same seeds.
    """
    return derive(key, "bot", deal_seed, seat)


def bot_seeds(key: bytes, deal_seed: int, players: int) -> tuple[int, ...]:
    """``bot_seed`` of every seat of a game of ``players``."""
    return tuple(bot_seed(key, deal_seed, seat) for seat in range(players))


def key_id(key: bytes) -> str:
    """A public name of ``key`` (16 hex digits of its HMAC of a constant).

    The results database stores it to find a tournament's key in the key file and to notice a
    key file of another database; it reveals nothing of the key.
    """
    return hmac.digest(_check(key), b"arena-key-id", hashlib.sha256)[:8].hex()
