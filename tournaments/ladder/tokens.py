"""Participants' upload tokens: issued by the organiser (``arena ladder invite NAME``), kept
hashed in the key file beside the database (``arena.keys.keyfile``), never in the database.

A token is 32 random bytes (URL-safe text), shown once. The key file keeps only its SHA-256
with the participant's name, so neither a copy of the database nor of the key file gives
anyone a usable token. Inviting a participant again replaces their token (a lost token is
replaced, a leaked one revoked by ``--revoke``). The key file is hidden from every bot by the
sandbox, like the tournaments' keys.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import UTC, datetime
from typing import Any

from arena.keys.keyfile import KeyFile
from tournaments.errors import LadderError
from tournaments.store.ladder_values import participant_problem

__all__ = ["authenticate", "invite", "participants", "revoke", "token_hash"]

#: The key file's section of upload tokens: hash -> {"participant", "issued_at"}.
SECTION = "ladder_tokens"
#: Longest token text looked at (a token is 43 characters).
MAX_TOKEN = 256


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def invite(keys: KeyFile, participant: str) -> str:
    """A new token for ``participant`` (any older one stops working); returned once."""
    problem = participant_problem(participant)
    if problem is not None:
        raise LadderError(problem)
    token = secrets.token_urlsafe(32)
    issued = datetime.now(UTC).isoformat(timespec="seconds")

    def add(data: dict[str, Any]) -> None:
        tokens = data.setdefault(SECTION, {})
        for digest in [d for d, v in tokens.items() if v.get("participant") == participant]:
            del tokens[digest]
        tokens[token_hash(token)] = {"participant": participant, "issued_at": issued}

    keys.update(add)
    return token


def revoke(keys: KeyFile, participant: str) -> bool:
    """Stop ``participant``'s token working; False if they had none."""

    def drop(data: dict[str, Any]) -> bool:
        tokens = data.get(SECTION, {})
        found = [d for d, v in tokens.items() if v.get("participant") == participant]
        for digest in found:
            del tokens[digest]
        return bool(found)

    return keys.update(drop)


def participants(keys: KeyFile) -> list[tuple[str, str]]:
    """(participant, issued at) of every valid token."""
    tokens = keys.read().get(SECTION, {})
    return sorted((v.get("participant", "?"), v.get("issued_at", "?")) for v in tokens.values())


def authenticate(keys: KeyFile, token: str | None) -> str | None:
    """The participant holding ``token``, or None for no token or an unknown one."""
    if not token or len(token) > MAX_TOKEN:
        return None
    digest = token_hash(token.strip())
    for known, value in keys.read().get(SECTION, {}).items():
        if hmac.compare_digest(known, digest):
            return str(value.get("participant")) or None
    return None
