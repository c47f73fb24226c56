"""Sending a bot to a ladder's upload server (``arena ladder submit --to URL --token T``).

The folder is packed as the ladder would copy it (``tournaments.catalogue.shipping.pack``: the files
its version covers; a FIFO, a device or a link out of the folder is refused here), gzip-compressed
and sent as the body of ``POST URL/api/ladders/NAME/submissions`` with the token in an
``Authorization: Bearer`` header. The server's answer (JSON: accepted or not, the check's
report, the entry) comes back as it is.
"""

from __future__ import annotations

import gzip
import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from tournaments.catalogue.registry import load_manifest
from tournaments.catalogue.shipping import pack
from tournaments.errors import ClusterError
from tournaments.ladder.bots import MAX_UPLOAD_BYTES
from tournaments.ladder.records import LadderError

__all__ = ["Sent", "send_folder", "submissions_url"]

#: Seconds to wait for the server's answer (it checks the bot before answering).
TIMEOUT_S = 600


@dataclass(frozen=True, kw_only=True)
class Sent:
    """The server's answer: its HTTP status and JSON body."""

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


def send_folder(base: str, ladder: str, token: str, folder: Path) -> Sent:
    """Pack ``folder`` and send it to ladder ``ladder`` on the server at ``base``."""
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
