"""The ladders' upload server (``arena ladder serve``): the one write path of the web face.

It serves every read-only page of ``arena serve`` (``arena.web.app``), plus, for participants
holding a token the organiser issued (``arena ladder invite NAME``):

- ``GET /ladders/NAME/submit``: a form (token, archive of a bot folder);
- ``POST /ladders/NAME/submit``: the form's upload; the answer sends the browser to the
  upload's page (below), or shows why it was refused at once;
- ``GET /ladders/NAME/submissions/ID``: an upload's page: waiting, being checked (it reloads
  itself every two seconds), then the result with the check's report;
- ``POST /api/ladders/NAME/submissions``: the same for programs (``curl``, ``arena ladder
  submit --to``): the archive as the body with ``Authorization: Bearer TOKEN``, or a
  multipart form with fields ``token`` and ``archive``; the answer (JSON, 202) names the
  upload's status (``status_url``);
- ``GET /api/ladders/NAME/submissions/ID``: the upload's status, then its result (JSON);
  ``DELETE`` cancels it.

Every upload is answered at once. A request body is read up to ``MAX_BODY`` bytes and refused
beyond (413) before anything is parsed; the ladder (404) and the token (401) are checked
before the archive is looked at; the archive is unpacked safely and its bot's name checked
(``service.stage_upload``: 422, 403), and the upload waits for its entry check in its
participant's queue (``tournaments.ladder.submissions``: in turn with the others', within a
time budget, cancelled once no one asks for its status; 429 for too many at once). It enters
only if the check passes, and the participant sees the report either way. A participant can
replace only their own bots (403).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from arena.errors import ArenaError, SandboxError
from arena.text import printable
from arena.web.app import create_app
from arena.web.endpoints import HEADERS, LINKS, error_response
from arena.web.render import render
from arena.web.serverpaths import hide_paths
from tournaments.errors import (
    ArchiveError,
    LadderError,
    NotFound,
    NotYourBot,
    StoreError,
    UsageProblem,
)
from tournaments.ladder import service
from tournaments.ladder.service import MAX_UPLOAD_BYTES, BotCheckError, ComplianceReport
from tournaments.ladder.submissions import (
    BUDGET_S,
    CHECKERS,
    LEASE_S,
    Cancelled,
    State,
    TooManyUploads,
    UploadQueue,
    UploadStatus,
)
from tournaments.store.facts import Store

__all__ = ["MAX_BODY", "create_upload_app"]

log = logging.getLogger(__name__)

#: The largest request body read: an archive and a multipart form's framing.
MAX_BODY = MAX_UPLOAD_BYTES + (64 << 10)
#: Form fields: the token and the archive.
TOKEN_FIELD = "token"
ARCHIVE_FIELD = "archive"
#: Seconds between the reloads of an upload's page while it waits or is checked.
RELOAD_S = 2


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
    if isinstance(exc, Cancelled):
        return 409
    if isinstance(exc, TooManyUploads):
        return 429
    if isinstance(exc, (BotCheckError, ArchiveError, LadderError, UsageProblem)):
        return 422
    if isinstance(exc, (StoreError, SandboxError)):
        return 503
    if isinstance(exc, ArenaError):
        return 400
    return 500


def _queue(request: Request) -> UploadQueue:
    return request.app.state.upload_queue


def _accept(queue: UploadQueue, ladder: str, token: str | None, archive: bytes) -> UploadStatus:
    """Check the ladder and the token, then queue the archive for its check (in a worker
    thread: unpacking takes a moment)."""
    with Store.open(queue.db_path) as store:
        service.ladder(store, ladder)  # an unknown ladder: 404 before anything else
        participant = service.participant_of(store, token)
    if participant is None:
        raise Unauthorized("no valid token: ask the organiser for one (`arena ladder invite NAME`)")
    return queue.submit(ladder, participant, archive)


def _public(report: ComplianceReport | None) -> ComplianceReport | None:
    """The report a participant sees: without the bot's output (what it saw of the server,
    sandboxed or not, stays there)."""
    return None if report is None else replace(report, output=())


def _urls(status: UploadStatus) -> dict[str, str]:
    ladder, upload = quote(status.ladder, safe=""), quote(status.id, safe="")
    return {
        "status_url": f"/api/ladders/{ladder}/submissions/{upload}",
        "page_url": f"/ladders/{ladder}/submissions/{upload}",
    }


def _answer(status: UploadStatus) -> dict[str, Any]:
    """What an upload's status says: waiting or being checked (``accepted`` None), entered,
    or refused or cancelled (with the error, its HTTP ``code``, and the check's report); no
    server path in it (``hide_paths``)."""
    return hide_paths(_said(status))


def _said(status: UploadStatus) -> dict[str, Any]:
    answer: dict[str, Any] = {
        "id": status.id,
        "state": status.state.value,
        "ladder": status.ladder,
        "participant": status.participant,
        "bot": status.bot,
        **_urls(status),
    }
    if status.state is State.QUEUED:
        ahead = f" ({status.ahead} upload(s) before it)" if status.ahead else ""
        return {**answer, "accepted": None, "ahead": status.ahead,
                "message": f"{status.bot} waits for its check{ahead}"}  # fmt: skip
    if status.state is State.CHECKING:
        return {**answer, "accepted": None, "message": f"{status.bot} is being checked"}
    if status.done is not None:
        done = status.done
        report = _public(done.report)
        return {
            **answer,
            "accepted": True,
            "unchanged": done.unchanged,  # the same code again: in play already, nothing done
            "message": done.message,
            "entry": done.entry.to_dict(),
            "report": report.to_dict() if report else None,
            "report_lines": report.lines() if report else [],
        }
    return {**answer, **_refusal(status.error or ArenaError("refused"))}


def _refused(exc: Exception) -> dict[str, Any]:
    """A refusal: the error (no server path in it: ``hide_paths``), its HTTP code, and the
    check's report if there was one."""
    return hide_paths(_refusal(exc))


def _refusal(exc: Exception) -> dict[str, Any]:
    report = _public(getattr(exc, "report", None))
    code = _status(exc)
    if code == 500:
        log.error("an upload failed: %s", exc, exc_info=exc)
        message = "the server met an unexpected error; see its log"
    else:
        message = str(exc)
    return {
        "accepted": False,
        "code": code,
        "error": message,
        "report": report.to_dict() if report else None,
        "report_lines": report.lines() if report else [],
    }


async def _upload(request: Request) -> tuple[int, dict[str, Any]]:
    """An upload, queued (202 and its status) or refused at once (the error's status)."""
    ladder = str(request.path_params["name"])
    try:
        token, archive = await _fields(request)
        status = await run_in_threadpool(_accept, _queue(request), ladder, token, archive)
        return 202, _answer(status)
    except Exception as exc:  # noqa: BLE001 - every refusal becomes an answer
        return _status(exc), _refused(exc)


def _found(request: Request) -> UploadStatus | None:
    """The upload the path names, in the ladder it names (asking renews its lease)."""
    status = _queue(request).status(str(request.path_params["upload"]))
    if status is None or status.ladder != str(request.path_params["name"]):
        return None
    return status


def _unknown() -> dict[str, Any]:
    return {"accepted": False, "code": 404, "error": "no such upload (or it was long ago)"}


async def submissions_api(request: Request) -> Response:
    status, answer = await _upload(request)
    headers = dict(HEADERS)
    if status == 202:
        headers["Location"] = answer["status_url"]
    return JSONResponse(answer, status, headers=headers)


async def submission_api(request: Request) -> Response:
    found = _found(request)
    if found is not None and request.method == "DELETE":
        found = _queue(request).cancel(found.id) or found
    if found is None:
        return JSONResponse(_unknown(), 404, headers=HEADERS)
    return JSONResponse(_answer(found), headers=HEADERS)


def _known(request: Request) -> None:
    """The ladder the path names exists (raises NotFound)."""
    with request.app.state.pool.store() as store:
        service.ladder(store, str(request.path_params["name"]))


async def submit_page(request: Request) -> Response:
    if request.method == "GET":
        try:
            await run_in_threadpool(_known, request)
        except Exception as exc:  # noqa: BLE001 - every error becomes a response
            return error_response(exc, api=False)
        return HTMLResponse(_page(request, None, None), headers=HEADERS)
    status, answer = await _upload(request)
    if status == 202:
        return RedirectResponse(answer["page_url"], 303, headers=HEADERS)
    return HTMLResponse(_page(request, status, answer), status, headers=HEADERS)


async def submission_page(request: Request) -> Response:
    found = _found(request)
    if found is None:
        return HTMLResponse(_page(request, 404, _unknown()), 404, headers=HEADERS)
    answer = _answer(found)
    headers = dict(HEADERS)
    if answer["accepted"] is None:
        headers["Refresh"] = str(RELOAD_S)
    return HTMLResponse(_page(request, answer.get("code", 200), answer), headers=headers)


def _page(request: Request, status: int | None, answer: dict[str, Any] | None) -> str:
    lines = [printable(str(line)) for line in (answer or {}).get("report_lines", [])]
    return render(
        "upload.html",
        LINKS,
        ladder=str(request.path_params["name"]),
        status=status,
        answer=answer,
        report_lines=lines,
        max_mib=MAX_UPLOAD_BYTES >> 20,
        budget=f"{_queue(request).budget_s:g} s",
    )


def create_upload_app(
    db_path: str | Path,
    *,
    checkers: int = CHECKERS,
    budget_s: float = BUDGET_S,
    lease_s: float = LEASE_S,
) -> Starlette:
    """The upload server of the database at ``db_path``: every read-only page, plus the
    upload form and API (see the module's docstring); ``checkers`` entry checks at once, each
    within ``budget_s`` seconds, an upload cancelled once no one asked for its status in
    ``lease_s`` seconds."""
    routes = [
        Route("/ladders/{name}/submit", submit_page, methods=["GET", "POST"]),
        Route("/ladders/{name}/submissions/{upload}", submission_page),
        Route("/api/ladders/{name}/submissions", submissions_api, methods=["POST"]),
        Route(
            "/api/ladders/{name}/submissions/{upload}", submission_api, methods=["GET", "DELETE"]
        ),
    ]
    app = create_app(db_path, extra=routes)
    path = Path(db_path).expanduser()
    app.state.db_path = path
    app.state.uploads = True

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        app.state.upload_queue = UploadQueue(
            path, checkers=checkers, budget_s=budget_s, lease_s=lease_s
        )
        try:
            yield
        finally:
            await run_in_threadpool(app.state.upload_queue.close)

    app.router.lifespan_context = lifespan
    return app
