"""Remote bots in the results database: registration, single-use tokens and CURVE keys.

- A remote bot is a registered bot whose command is ``(remote)``: the arena never starts it.
- ``issue_token`` makes a fresh random token for one connection of a remote bot and stores only
  its SHA-256, with an expiry time, and (with CURVE) a fresh client key pair whose public half
  is stored with the token and whose secret half is printed once and never stored.
- ``StoredAccess`` is the arena's ``RemoteAccess``: ``claim`` marks a token used in one UPDATE
  (single use, even across processes) and ``allows`` tells the ZAP handler which CURVE client
  keys may connect. It opens the database for each check (``Store``), so it can run in the
  ZAP thread and outlive the command's own ``Store``.
- The arena's CURVE key pair is made once and kept in the key file beside the database
  (``arena.keys.keyfile``), never in the database, which people share.
"""

from __future__ import annotations

import hashlib
import secrets
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from arena.errors import RemoteError
from arena.procs.remote import REMOTE_WAIT_MS, CurveKeys, RemoteConfig
from tournaments.store.facts import Store
from tournaments.store.values import BotInfo

__all__ = [
    "REMOTE_COMMAND",
    "IssuedToken",
    "StoredAccess",
    "add_remote_bot",
    "is_remote",
    "issue_token",
    "remote_config",
    "server_keys",
]

#: The command stored for a remote bot.
REMOTE_COMMAND = "(remote)"
#: Hours a token stays valid when it is not used.
TOKEN_TTL_HOURS = 24


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def is_remote(info: BotInfo) -> bool:
    return info.command == REMOTE_COMMAND


def add_remote_bot(
    store: Store, name: str, games: Sequence[str], *, replace: bool = False
) -> BotInfo:
    """Register ``name`` as a remote bot (no check: it runs elsewhere)."""
    return store.add_bot(name, REMOTE_COMMAND, version="remote", games=games, replace=replace)


def _new_pair() -> tuple[str, str]:
    keys = CurveKeys.generate()
    return keys.public, keys.secret


def server_keys(store: Store) -> CurveKeys:
    """The arena's CURVE key pair, from the database's key file (made on first use)."""
    public, secret = store.keys.curve_pair(_new_pair)
    return CurveKeys(public=public, secret=secret)


@dataclass(frozen=True, kw_only=True)
class IssuedToken:
    """What the owner of a remote bot needs for one connection (shown once)."""

    bot: str
    endpoint: str
    token: str
    expires_at: str
    server_key: str | None = None
    public_key: str | None = None
    secret_key: str | None = None

    def environment(self) -> dict[str, str]:
        env = {"ARENA_ENDPOINT": self.endpoint, "ARENA_TOKEN": self.token}
        if self.server_key:
            env.update(
                ARENA_SERVER_KEY=self.server_key,
                ARENA_PUBLIC_KEY=self.public_key or "",
                ARENA_SECRET_KEY=self.secret_key or "",
            )
        return env

    def exports(self) -> str:
        """``export NAME=VALUE`` lines for a POSIX shell."""
        return "\n".join(
            f"export {key}={shlex.quote(value)}" for key, value in self.environment().items()
        )


def issue_token(
    store: Store,
    name: str,
    *,
    endpoint: str,
    curve: bool = False,
    ttl_hours: float = TOKEN_TTL_HOURS,
) -> IssuedToken:
    """A new single-use token (and with ``curve`` a client key pair) for remote bot ``name``."""
    info = store.get_bot(name)
    if not is_remote(info):
        raise RemoteError(
            f"bot {name!r} is not a remote bot (register one with `arena bot add NAME --remote`)"
        )
    token = secrets.token_hex(24)
    client = CurveKeys.generate() if curve else None
    server = server_keys(store) if curve else None
    now = datetime.now(UTC)
    expires = (now + timedelta(hours=ttl_hours)).isoformat(timespec="seconds")
    store.add_token(
        token_hash(token),
        name,
        client.public if client else None,
        created_at=now.isoformat(timespec="seconds"),
        expires_at=expires,
    )
    return IssuedToken(
        bot=name,
        endpoint=endpoint,
        token=token,
        expires_at=expires,
        server_key=server.public if server else None,
        public_key=client.public if client else None,
        secret_key=client.secret if client else None,
    )


class StoredAccess:
    """Remote bots' tokens and keys, checked against the database at ``path``."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)

    def claim(self, token: str, client_key: str | None) -> str | None:
        with Store.open(self.path) as store:
            return store.claim_token(
                token_hash(token), client_key, now=_now(), command=REMOTE_COMMAND
            )

    def allows(self, client_key: str) -> bool:
        with Store.open(self.path) as store:
            return store.token_key_allowed(client_key, now=_now())


def remote_config(
    store: Store, *, listen: str, curve: bool, wait_ms: int = REMOTE_WAIT_MS
) -> RemoteConfig:
    """How an arena using ``store`` lets remote bots in on ``listen``."""
    keys = server_keys(store) if curve else None
    return RemoteConfig(listen=listen, access=StoredAccess(store.path), curve=keys, wait_ms=wait_ms)
