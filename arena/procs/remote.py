"""Remote bots: programs started by hand on another machine that join the arena over TCP.

A remote bot is registered by name (``arena bot add NAME --remote``). For each connection its
owner asks for a fresh single-use token (``arena bot token NAME``), which the results database
keeps only as a hash, and starts the bot with it. The arena, run with ``--listen
tcp://HOST:PORT``, binds a second ROUTER socket there; a ``hello`` on it with an unused token
of bot NAME makes that connection the process of NAME for the run, instead of a spawned one.

With ``--curve`` the listening socket is a ZeroMQ CURVE server: traffic is encrypted, and a ZAP
handler lets a client complete the handshake only with a public key issued together with an
unused token (or already connected), so a stranger cannot even get a ``hello`` through. The
bot reads the server's public key and its own key pair from ``ARENA_SERVER_KEY``,
``ARENA_PUBLIC_KEY`` and ``ARENA_SECRET_KEY``.

This module holds the arena side; storing tokens and keys is the tournament layer's job
(``tournaments.catalogue.remote``), behind the ``RemoteAccess`` protocol.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import zmq

from arena.errors import RemoteError
from protocol.codec import MAX_BOT_MESSAGE
from protocol.transport import ZAP_DOMAIN, RouterSocket

if TYPE_CHECKING:
    import zmq.auth.thread

log = logging.getLogger(__name__)

#: How long the arena waits by default for a remote bot to say hello.
REMOTE_WAIT_MS = 300_000
#: Denied CURVE handshakes logged as warnings (a client retries); later ones at debug level.
WARN_DENIALS = 3


class RemoteAccess(Protocol):
    """Checks remote bots' tokens and CURVE keys (implemented over the results database)."""

    def claim(self, token: str, client_key: str | None) -> str | None:
        """Mark ``token`` used and return the bot it was issued for; None if it is unknown,
        used or expired, or (with CURVE) was not issued with ``client_key``."""

    def allows(self, client_key: str) -> bool:
        """True if an unused token was issued with this CURVE public key (Z85 text)."""


@dataclass(frozen=True, kw_only=True)
class CurveKeys:
    """A CURVE key pair as Z85 text."""

    public: str
    secret: str

    @classmethod
    def generate(cls) -> CurveKeys:
        public, secret = zmq.curve_keypair()
        return cls(public=public.decode("ascii"), secret=secret.decode("ascii"))


@dataclass(frozen=True, kw_only=True)
class RemoteConfig:
    """Where remote bots connect, how they are checked, and how long to wait for them."""

    listen: str
    access: RemoteAccess
    curve: CurveKeys | None = None
    wait_ms: int = REMOTE_WAIT_MS


def check_listen(endpoint: str) -> str:
    """``endpoint`` if it is a ``tcp://HOST:PORT`` endpoint, else RemoteError."""
    if not endpoint.startswith("tcp://") or ":" not in endpoint[len("tcp://") :]:
        raise RemoteError(
            f"--listen takes tcp://HOST:PORT (e.g. tcp://0.0.0.0:5555), not {endpoint!r}"
        )
    return endpoint


class RemoteListener:
    """The ROUTER socket remote bots connect to, with its ZAP authenticator under CURVE."""

    def __init__(self, config: RemoteConfig, *, max_message_bytes: int = MAX_BOT_MESSAGE) -> None:
        self.config = config
        self.access = config.access
        self.context = zmq.Context()
        self.keys: set[str] = set()  # CURVE keys of connections already welcomed
        self.denied = 0
        self._keys_lock = threading.Lock()
        self.authenticator: zmq.auth.thread.ThreadAuthenticator | None = None
        secret = None
        if config.curve is not None:
            # imported here: it brings asyncio and ssl, which a run without CURVE never needs
            from zmq.auth.thread import ThreadAuthenticator

            self.authenticator = ThreadAuthenticator(self.context, log=log)
            self.authenticator.start()
            self.authenticator.configure_curve_callback(ZAP_DOMAIN, credentials_provider=self)
            secret = config.curve.secret
        try:
            self.router = RouterSocket(
                check_listen(config.listen),
                max_message_bytes=max_message_bytes,
                context=self.context,
                curve_secret=secret,
            )
        except zmq.ZMQError as exc:
            self.close()
            raise RemoteError(f"cannot listen on {config.listen}: {exc}") from None
        self.endpoint = self.router.endpoint
        log.info("listening for remote bots on %s%s", self.endpoint, " (CURVE)" if secret else "")

    def callback(self, domain: str, key: bytes) -> bool:
        """ZAP check of a connecting CURVE client (runs in the authenticator's thread)."""
        text = key.decode("ascii", "replace")
        with self._keys_lock:
            if text in self.keys:
                return True
        try:
            allowed = self.access.allows(text)
        except Exception as exc:  # noqa: BLE001 - a failing check denies, never crashes ZAP
            log.warning("checking a remote bot's key failed: %s", exc)
            allowed = False
        if not allowed:
            self.denied += 1
            level = logging.WARNING if self.denied <= WARN_DENIALS else logging.DEBUG
            log.log(level, "refused a CURVE connection with an unknown key")
        return allowed

    def claim(self, token: str, client_key: str | None) -> str | None:
        """The bot a remote hello's token belongs to (the token is then used), or None."""
        if self.config.curve is not None and not client_key:
            return None
        try:
            bot = self.access.claim(token, client_key)
        except Exception as exc:  # noqa: BLE001 - a failing check refuses the hello
            log.warning("checking a remote bot's token failed: %s", exc)
            return None
        if bot is not None and client_key:
            with self._keys_lock:
                self.keys.add(client_key)
        return bot

    def close(self) -> None:
        router = getattr(self, "router", None)
        if router is not None:
            router.close()
        if self.authenticator is not None:
            self.authenticator.stop()
        self.context.term()
