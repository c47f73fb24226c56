"""Sending a bot to a ladder's upload server (``arena ladder submit --to URL --token T``).

The folder is packed as the ladder would copy it (``tournaments.catalogue.shipping.pack``: the files
its version covers; a FIFO, a device or a link out of the folder is refused here), gzip-compressed
and sent as the body of ``POST URL/api/ladders/NAME/submissions`` with the token in an
``Authorization: Bearer`` header. The server answers at once: refused (why), or queued for its
entry check with the URL of its status, which the client then asks for every ``POLL_S``
seconds (each answer is shown to ``waiting``) until it is final: entered or refused, with the
check's report. Interrupted (Ctrl-C), it cancels the upload (``DELETE`` on its status) before
it stops: an upload no one waits for is cancelled by the server anyway.
"""

from __future__ import annotations

import gzip
import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urljoin, urlsplit

from tournaments.catalogue.registry import load_manifest
from tournaments.catalogue.shipping import pack
from tournaments.errors import ClusterError, LadderError
from tournaments.ladder.bots import MAX_UPLOAD_BYTES

__all__ = ["Sent", "send_folder", "submissions_url"]

#: Seconds to wait for each of the server's answers.
TIMEOUT_S = 60
#: Seconds between two looks at a queued upload's status.
POLL_S = 1.0


@dataclass(frozen=True, kw_only=True)
class Sent:
    """The server's final answer: its HTTP status (a queued upload's result: 201 if it
    entered, else the refusal's ``code``) and JSON body."""

    status: int
    body: dict[str, Any]

    @property
    def accepted(self) -> bool:
        return bool(self.body.get("accepted"))


def submissions_url(base: str, ladder: str) -> str:
    parts = urlsplit(base)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise LadderError(f"--to takes the server's address, http(s)://HOST:PORT, not {base!r}")
    return f"{base.rstrip('/')}/api/ladders/{quote(ladder, safe='')}/submissions"


def send_folder(
    base: str,
    ladder: str,
    token: str,
    folder: Path,
    waiting: Callable[[dict[str, Any]], None] | None = None,
) -> Sent:
    """Pack ``folder``, send it to ladder ``ladder`` on the server at ``base`` and wait for
    its result (``waiting`` sees each answer while it waits or is checked)."""
    load_manifest(folder)  # a clear error here before anything is sent
    try:
        body = gzip.compress(pack(folder), mtime=0)
    except (ClusterError, OSError) as exc:
        raise LadderError(str(exc).replace("a cluster worker", "the ladder")) from None
    if len(body) > MAX_UPLOAD_BYTES:
        raise LadderError(f"{folder} packs to over {MAX_UPLOAD_BYTES >> 20} MiB")
    request = urllib.request.Request(
        submissions_url(base, ladder),
        data=body,
        method="POST",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/gzip"},
    )
    sent = _ask(base, request)
    if sent.status != 202 or not isinstance(sent.body.get("status_url"), str):
        return sent
    status_url = urljoin(base, sent.body["status_url"])
    try:
        while sent.body.get("accepted") is None:
            if waiting is not None:
                waiting(sent.body)
            time.sleep(POLL_S)
            sent = _ask(base, urllib.request.Request(status_url))
    except KeyboardInterrupt:
        try:
            _ask(base, urllib.request.Request(status_url, method="DELETE"))
        except LadderError:
            pass
        raise
    code = 201 if sent.body.get("accepted") else sent.body.get("code", sent.status)
    return Sent(status=int(code), body=sent.body)


def _ask(base: str, request: urllib.request.Request) -> Sent:
    """One request to the server: its status and JSON answer."""
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as answer:  # noqa: S310
            return Sent(status=answer.status, body=_json(answer.read()))
    except urllib.error.HTTPError as exc:
        return Sent(status=exc.code, body=_json(exc.read()))
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise LadderError(f"cannot reach {base}: {reason}") from None


def _json(data: bytes) -> dict[str, Any]:
    try:
        found = json.loads(data)
    except ValueError:
        found = None
    return found if isinstance(found, dict) else {"error": "the server's answer is not JSON"}
