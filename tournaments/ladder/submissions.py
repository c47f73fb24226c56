"""Uploads waiting for their entry check, and the checks running: a queue per participant,
served in turn, each check within a time budget, cancelled once its uploader stops waiting.

The upload server (``arena ladder serve``) answers an upload at once: what can be checked
quickly is (the ladder, the archive unpacked safely, the name free for this participant:
``service.stage_upload``), and the upload is queued for its entry check
(``service.enter_upload``), which may take minutes. Its uploader then asks for its status
(``UploadQueue.status``) until it is final: entered, refused (with the check's report) or
cancelled.

- **In turn.** Each participant's uploads wait in a queue of their own (at most
  ``PER_PARTICIPANT`` waiting or being checked; ``TooManyUploads`` beyond), and the queues are
  served in turn, one check per participant at a time, ``checkers`` checks at once: one
  participant's slow bot delays another's check by at most one check's budget.
- **Within a budget.** A check stops, and the upload is refused, once it has run ``budget_s``
  seconds (``tournaments.catalogue.compliance.CheckStop``: its bot's process is killed).
- **Cancelled when no one waits.** Asking for an upload's status renews its lease; an upload
  whose status nobody asked for in ``lease_s`` seconds (the page and ``arena ladder submit``
  ask every few seconds while they wait: a closed page, a stopped client) is cancelled, as one
  its uploader cancels (``cancel``): a waiting one leaves the queue, a check being run stops.

Finished uploads are remembered for ``KEEP_S`` seconds. Nothing here outlives the server: its
end cancels what waits or runs, and staged archives are removed.
"""

from __future__ import annotations

import enum
import itertools
import logging
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tournaments.catalogue.compliance import CheckStop
from tournaments.errors import TournamentError
from tournaments.ladder import service
from tournaments.ladder.bots import Staged
from tournaments.ladder.service import Submission
from tournaments.store.facts import Store

__all__ = ["State", "TooManyUploads", "UploadQueue", "UploadStatus"]

log = logging.getLogger(__name__)

#: Checks run at once (each of another participant).
CHECKERS = 2
#: Seconds an entry check may run in all.
BUDGET_S = 300.0
#: Seconds an upload waits for someone to ask for its status before it is cancelled.
LEASE_S = 60.0
#: Uploads a participant may have waiting or being checked at once.
PER_PARTICIPANT = 2
#: Seconds a finished upload's result stays available.
KEEP_S = 3600.0


class TooManyUploads(TournamentError):
    """A participant has ``PER_PARTICIPANT`` uploads waiting or being checked already."""


class State(enum.StrEnum):
    """Where an upload is: waiting for its check, being checked, or done one way or another."""

    QUEUED = "queued"
    CHECKING = "checking"
    ENTERED = "entered"
    REFUSED = "refused"
    CANCELLED = "cancelled"

    @property
    def final(self) -> bool:
        return self in (State.ENTERED, State.REFUSED, State.CANCELLED)


@dataclass(frozen=True, kw_only=True)
class UploadStatus:
    """An upload as its uploader sees it: its id, ladder, participant and bot, its state,
    how many uploads wait to be checked before it (while it waits), and its outcome once
    final: the ``Submission`` entered, or the error that refused or cancelled it."""

    id: str
    ladder: str
    participant: str
    bot: str
    state: State
    ahead: int = 0
    done: Submission | None = None
    error: Exception | None = None


@dataclass(eq=False)
class _Upload:
    """One upload in the queue (changed under the queue's lock only)."""

    id: str
    ladder: str
    participant: str
    bot: str
    staged: Staged
    seen: float
    number: int  # in the order uploads came
    state: State = State.QUEUED
    stop: CheckStop | None = None
    cancelled: str | None = None
    done: Submission | None = None
    error: Exception | None = None
    finished: float | None = None


class UploadQueue:
    """The uploads of one server's database (``db_path``) and the threads that check them."""

    def __init__(
        self,
        db_path: str | Path,
        *,
        checkers: int = CHECKERS,
        budget_s: float = BUDGET_S,
        lease_s: float = LEASE_S,
        per_participant: int = PER_PARTICIPANT,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.db_path = Path(db_path)
        self.budget_s, self.lease_s, self.per_participant = budget_s, lease_s, per_participant
        self._clock = clock
        self._cond = threading.Condition()
        self._uploads: dict[str, _Upload] = {}
        self._waiting: dict[str, deque[_Upload]] = {}  # participant -> their waiting uploads
        self._turns: deque[str] = deque()  # participants, the next to be served first
        self._checking: set[str] = set()  # participants with a check running
        self._staging: dict[str, int] = {}  # participant -> uploads being unpacked now
        self._closed = False
        self._numbers = itertools.count()
        self._threads = [
            threading.Thread(target=self._check_next, name=f"upload-check-{n}", daemon=True)
            for n in range(max(1, checkers))
        ]
        self._threads.append(threading.Thread(target=self._reap, name="upload-leases", daemon=True))
        for thread in self._threads:
            thread.start()

    # -- what the faces call ---------------------------------------------------------------

    def submit(self, ladder: str, participant: str, archive: bytes) -> UploadStatus:
        """Queue an upload for its check, once what can be checked at once is (raises as
        ``service.stage_upload`` does, and TooManyUploads). An upload being unpacked counts
        among its participant's: many sent at once are refused before they are unpacked."""
        with self._cond:
            self._room_for(participant)
            self._staging[participant] = self._staging.get(participant, 0) + 1
        try:
            with Store.open(self.db_path) as store:
                staged = service.stage_upload(store, ladder, participant, archive)
        finally:
            with self._cond:
                self._staging[participant] -= 1
        with self._cond:
            if self._closed:
                staged.close()
                raise TooManyUploads("the upload server is stopping: send it again later")
            upload = _Upload(
                id=secrets.token_urlsafe(16),
                ladder=ladder,
                participant=participant,
                bot=service.staged_bot(staged),
                staged=staged,
                seen=self._clock(),
                number=next(self._numbers),
            )
            self._uploads[upload.id] = upload
            self._waiting.setdefault(participant, deque()).append(upload)
            if participant not in self._turns:
                self._turns.append(participant)
            self._cond.notify_all()
            return self._status(upload)

    def status(self, upload_id: str) -> UploadStatus | None:
        """The upload's status (None: unknown, or forgotten); asking renews its lease."""
        with self._cond:
            upload = self._uploads.get(upload_id)
            if upload is None:
                return None
            upload.seen = self._clock()
            return self._status(upload)

    def cancel(self, upload_id: str, why: str = "its uploader cancelled it") -> UploadStatus | None:
        """Cancel the upload (waiting: it leaves the queue; being checked: its check stops);
        a final one stays as it is. Its status, None if unknown."""
        with self._cond:
            upload = self._uploads.get(upload_id)
            if upload is None:
                return None
            self._cancel(upload, why)
            return self._status(upload)

    def close(self) -> None:
        """The server stops: cancel what waits or runs, wait for the checks to end."""
        with self._cond:
            self._closed = True
            for upload in list(self._uploads.values()):
                self._cancel(upload, "the upload server stopped")
            self._cond.notify_all()
        for thread in self._threads:
            thread.join(timeout=60)

    # -- under the lock --------------------------------------------------------------------

    def _room_for(self, participant: str) -> None:
        with self._cond:
            if self._closed:
                raise TooManyUploads("the upload server is stopping: send it again later")
            pending = self._staging.get(participant, 0) + sum(
                1
                for u in self._uploads.values()
                if u.participant == participant and not u.state.final
            )
            if pending >= self.per_participant:
                raise TooManyUploads(
                    f"{participant} has {pending} uploads waiting or being checked: wait "
                    "for their results before sending another"
                )

    def _status(self, upload: _Upload) -> UploadStatus:
        ahead = 0
        if upload.state is State.QUEUED:
            ahead = sum(
                1
                for other in self._uploads.values()
                if other.state is State.QUEUED and other.number < upload.number
            )
        return UploadStatus(
            id=upload.id,
            ladder=upload.ladder,
            participant=upload.participant,
            bot=upload.bot,
            state=upload.state,
            ahead=ahead,
            done=upload.done,
            error=upload.error,
        )

    def _cancel(self, upload: _Upload, why: str) -> None:
        if upload.state is State.QUEUED:
            self._waiting[upload.participant].remove(upload)
            upload.staged.close()
            self._finish(upload, State.CANCELLED, error=Cancelled(f"cancelled: {why}"))
        elif upload.state is State.CHECKING and upload.stop is not None:
            upload.cancelled = upload.cancelled or why
            upload.stop.cancel(why)

    def _finish(
        self,
        upload: _Upload,
        state: State,
        *,
        done: Submission | None = None,
        error: Exception | None = None,
    ) -> None:
        upload.state, upload.done, upload.error = state, done, error
        upload.finished = self._clock()
        self._cond.notify_all()

    def _next(self) -> _Upload | None:
        """The next upload to check: the first participant in turn with one waiting and none
        being checked, who then goes to the end of the turns."""
        for participant in list(self._turns):
            waiting = self._waiting.get(participant)
            if waiting and participant not in self._checking:
                self._turns.remove(participant)
                self._turns.append(participant)
                return waiting.popleft()
        return None

    # -- the threads -----------------------------------------------------------------------

    def _check_next(self) -> None:
        while True:
            with self._cond:
                upload = self._next()
                while upload is None and not self._closed:
                    self._cond.wait()
                    upload = self._next()
                if upload is None:
                    return
                upload.state = State.CHECKING
                upload.stop = CheckStop(self.budget_s)
                self._checking.add(upload.participant)
            done, error = self._check(upload)
            with self._cond:
                self._checking.discard(upload.participant)
                if done is not None:
                    self._finish(upload, State.ENTERED, done=done)
                elif upload.cancelled is not None:
                    self._finish(upload, State.CANCELLED, error=error)
                else:
                    self._finish(upload, State.REFUSED, error=error)

    def _check(self, upload: _Upload) -> tuple[Submission | None, Exception | None]:
        try:
            with Store.open(self.db_path) as store:
                done = service.enter_upload(
                    store, upload.ladder, upload.participant, upload.staged, stop=upload.stop
                )
            return done, None
        except Exception as exc:  # noqa: BLE001 - every refusal is the upload's answer
            if not isinstance(exc, TournamentError):
                log.exception("the check of upload %s failed", upload.id)
            return None, exc

    def _reap(self) -> None:
        """Cancel the uploads no one asked about for ``lease_s``; forget finished ones after
        ``KEEP_S``."""
        with self._cond:
            while not self._closed:
                now = self._clock()
                for upload in list(self._uploads.values()):
                    if upload.state.final:
                        if upload.finished is not None and now - upload.finished > KEEP_S:
                            del self._uploads[upload.id]
                    elif now - upload.seen > self.lease_s:
                        self._cancel(upload, "no one asked for its result any more")
                self._cond.wait(timeout=min(1.0, self.lease_s / 4))


class Cancelled(TournamentError):
    """An upload was cancelled before its check ended (its uploader's doing, or the server's
    end)."""
