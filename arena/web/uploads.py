"""The ladders' upload server (``arena ladder serve``): the one write path of the web face.

It serves every read-only page of ``arena serve`` (``arena.web.app``), plus, for participants
holding a token the organiser issued (``arena ladder invite NAME``):

- ``GET /ladders/NAME/submit``: a form (token, archive of a bot folder);
- ``POST /ladders/NAME/submit``: the form's upload; the answer is a page with the check's
  report;
- ``POST /api/ladders/NAME/submissions``: the same for programs (``curl``, ``arena ladder
  submit --to``): the archive as the body with ``Authorization: Bearer TOKEN``, or a
  multipart form with fields ``token`` and ``archive``; the answer is JSON.

A request body is read up to ``MAX_BODY`` bytes and refused beyond (413) before anything is
parsed; the token is checked before the archive is looked at (401). The archive is unpacked
safely and the bot checked in the sandbox (``tournaments.ladder.service.upload``); it enters
only if the check passes, and the participant sees the report either way. A participant can
replace only their own bots (403). Uploads are checked one at a time.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from arena.errors import ArenaError, SandboxError
from arena.text import printable
from arena.web.app import create_app
from arena.web.endpoints import HEADERS, LINKS
from arena.web.render import render
from tournaments.catalogue.compliance import ComplianceReport
from tournaments.catalogue.registry import BotCheckError
from tournaments.errors import ArchiveError, NotFound, StoreError, UsageProblem
from tournaments.ladder import service, tokens
from tournaments.ladder.bots import MAX_UPLOAD_BYTES
from tournaments.ladder.records import LadderError, LadderStore, NotYourBot
from tournaments.store.facts import Store

__all__ = ["MAX_BODY", "create_upload_app"]

log = logging.getLogger(__name__)

#: The largest request body read: an archive and a multipart form's framing.
MAX_BODY = MAX_UPLOAD_BYTES + (64 << 10)
#: Form fields: the token and the archive.
TOKEN_FIELD = "token"
ARCHIVE_FIELD = "archive"


class UploadTooLarge(ArenaError):
    """A request body over ``MAX_BODY``."""


class Unauthorized(ArenaError):
    """No token, or one no participant holds."""


async def _body(request: Request) -> bytes:
    """The request's body, refused beyond ``MAX_BODY`` bytes (as it arrives)."""
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
        raise UploadTooLarge(f"the upload is over {MAX_UPLOAD_BYTES >> 20} MiB")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise UploadTooLarge(f"the upload is over {MAX_UPLOAD_BYTES >> 20} MiB")
        chunks.append(chunk)
    return b"".join(chunks)


async def _fields(request: Request) -> tuple[str | None, bytes]:
    """The token and the archive of an upload: from a multipart form (fields ``token`` and
    ``archive``), else the bearer token and the raw body."""
    body = await _body(request)
    if request.headers.get("content-type", "").startswith("multipart/form-data"):

        async def replay() -> dict[str, Any]:
            return {"type": "http.request", "body": body, "more_body": False}

        form = await Request(request.scope, replay).form(max_files=1, max_fields=4)
        try:
            token = form.get(TOKEN_FIELD)
            archive = form.get(ARCHIVE_FIELD)
            data = await archive.read() if hasattr(archive, "read") else b""
        finally:
            await form.close()
        return (token if isinstance(token, str) else None), data
    auth = request.headers.get("authorization", "")
    scheme, _, value = auth.partition(" ")
    return (value.strip() if scheme.lower() == "bearer" else None), body


def _status(exc: Exception) -> int:
    if isinstance(exc, UploadTooLarge):
        return 413
    if isinstance(exc, Unauthorized):
        return 401
    if isinstance(exc, NotYourBot):
        return 403
    if isinstance(exc, NotFound):
        return 404
    if isinstance(exc, (BotCheckError, ArchiveError, LadderError, UsageProblem)):
        return 422
    if isinstance(exc, (StoreError, SandboxError)):
        return 503
    if isinstance(exc, ArenaError):
        return 400
    return 500


def _submit(db_path: Path, ladder: str, token: str | None, archive: bytes) -> dict[str, Any]:
    """Authenticate, then enter the archive (in a worker thread: the check runs bots)."""
    with Store.open(db_path) as store:
        LadderStore(store).ladder(ladder)  # an unknown ladder: 404 before anything else
        participant = tokens.authenticate(store.keys, token)
        if participant is None:
            raise Unauthorized(
                "no valid token: ask the organiser for one (`arena ladder invite NAME`)"
            )
        done = service.upload(store, ladder, participant, archive)
    report = _public(done.report)
    replaced = f", replacing {done.replaced.label}" if done.replaced else ""
    return {
        "accepted": True,
        "message": f"entered {done.entry.label} (version {done.entry.version}) for "
        f"{done.entry.participant}{replaced}",
        "entry": done.entry.to_dict(),
        "report": report.to_dict() if report else None,
        "report_lines": report.lines() if report else [],
    }


def _public(report: ComplianceReport | None) -> ComplianceReport | None:
    """The report a participant sees: without the bot's output (what it saw of the server,
    sandboxed or not, stays there)."""
    return None if report is None else replace(report, output=())


def _refused(exc: Exception) -> dict[str, Any]:
    report = _public(getattr(exc, "report", None))
    if _status(exc) == 500:
        log.exception("an upload failed")
        message = "the server met an unexpected error; see its log"
    else:
        message = str(exc)
    return {
        "accepted": False,
        "error": message,
        "report": report.to_dict() if report else None,
        "report_lines": report.lines() if report else [],
    }


async def _handle(request: Request) -> tuple[int, dict[str, Any]]:
    ladder = str(request.path_params["name"])
    try:
        token, archive = await _fields(request)
        answer = await run_in_threadpool(_submit, request.app.state.db_path, ladder, token, archive)
        return 201, answer
    except Exception as exc:  # noqa: BLE001 - every refusal becomes an answer
        return _status(exc), _refused(exc)


async def submissions_api(request: Request) -> Response:
    status, answer = await _handle(request)
    return JSONResponse(answer, status, headers=HEADERS)


async def submit_page(request: Request) -> Response:
    name = str(request.path_params["name"])
    if request.method == "GET":
        return HTMLResponse(_page(name, None, None), headers=HEADERS)
    status, answer = await _handle(request)
    return HTMLResponse(_page(name, status, answer), status, headers=HEADERS)


def _page(name: str, status: int | None, answer: dict[str, Any] | None) -> str:
    lines = [printable(str(line)) for line in (answer or {}).get("report_lines", [])]
    return render(
        "upload.html",
        LINKS,
        ladder=name,
        status=status,
        answer=answer,
        report_lines=lines,
        max_mib=MAX_UPLOAD_BYTES >> 20,
    )


def create_upload_app(db_path: str | Path) -> Starlette:
    """The upload server of the database at ``db_path``: every read-only page, plus the
    upload form and API (see the module's docstring)."""
    routes = [
        Route("/ladders/{name}/submit", submit_page, methods=["GET", "POST"]),
        Route("/api/ladders/{name}/submissions", submissions_api, methods=["POST"]),
    ]
    app = create_app(db_path, extra=routes)
    app.state.db_path = Path(db_path).expanduser()
    app.state.uploads = True
    return app
