"""Submissions over the network, end to end: a real upload server (uvicorn on a free port),
real archives sent over HTTP, the entry check in the bubblewrap sandbox, real bot processes
and SQLite. Two participants upload; a broken bot is refused with its report; only the
owner may replace a bot; tokens are kept hashed outside the database; hostile archives
(traversal, links out, devices, bombs, sparse files, paths thousands of folders deep,
oversize) are refused and leave nothing behind; the ladder plays and its leaderboard changes.
Every upload is answered at once (queued for its check, 202) and its status asked for until
its result (``result``); a slow upload holds up no other participant's, its check stops at
its time budget, and an upload cancelled or no longer waited for stops its check."""

from __future__ import annotations

import gzip
import io
import os
import shutil
import subprocess
import sys
import tarfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from arena.procs import sandbox
from arena.web.uploads import create_upload_app
from tests.ladder.conftest import ILLEGAL_BOT, cli, folder_bot, make_ladder
from tests.web.conftest import Server, start_server, stop_server
from tournaments.catalogue.botcopies import BotCopies
from tournaments.catalogue.shipping import pack
from tournaments.ladder import service
from tournaments.ladder.bots import MAX_UPLOAD_BYTES, uploads_root
from tournaments.store.facts import Store

pytestmark = pytest.mark.skipif(
    sandbox.available() is None, reason="uploaded bots run only in bubblewrap, missing here"
)


@dataclass
class Served:
    url: str
    db: Path
    server: Server


def serve(db: Path, **queue: float) -> Served:
    """The upload server of ``db`` (``arena ladder serve``'s app, its queue's settings
    ``queue``) on a free port."""
    running = start_server(db, create_upload_app(db, **queue))  # type: ignore[arg-type]
    return Served(running.url, db, running)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    db = tmp_path / "arena.db"
    # SLOW_BOT's moves are within the deadline: its check is long, not failed (the entry
    # check plays at the ladder's move time)
    make_ladder(db, bots=("random", "first"), batch_games=24, move_ms=3000)
    running = serve(db)
    yield running
    stop_server(running.server)


def tgz(folder: Path) -> bytes:
    return gzip.compress(pack(folder))


def hostile(*members: tuple[tarfile.TarInfo, bytes | None]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        manifest = b'name = "evil"\ncommand = "python3 bot.py"\ngames = ["skull"]\n'
        info = tarfile.TarInfo("bot.toml")
        info.size = len(manifest)
        tar.addfile(info, io.BytesIO(manifest))
        for member, data in members:
            tar.addfile(member, io.BytesIO(data) if data is not None else None)
    return buffer.getvalue()


def declared(name: str, size: int) -> tuple:
    """A regular file whose header declares ``size`` bytes that the archive does not hold."""
    info = tarfile.TarInfo(name)
    info.size = size
    return info, None


def member(name: str, kind: bytes = tarfile.REGTYPE, data: bytes = b"x", **extra) -> tuple:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.size = len(data) if kind == tarfile.REGTYPE else 0
    for key, value in extra.items():
        setattr(info, key, value)
    return info, data if kind == tarfile.REGTYPE else None


def post(served: Served, token: str | None, body: bytes) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.post(
        f"{served.url}/api/ladders/sk/submissions", content=body, headers=headers, timeout=60
    )


def result(
    served: Served, queued: httpx.Response, waiting: tuple[httpx.Response, ...] = ()
) -> dict[str, Any]:
    """The result of a queued upload (202): its status asked for until it is final (and the
    status of the ``waiting`` ones meanwhile, as their uploaders would)."""
    assert queued.status_code == 202, queued.text
    url = served.url + queued.json()["status_url"]
    assert queued.headers["location"] == queued.json()["status_url"]
    while True:
        answer = httpx.get(url, timeout=60).json()
        if answer["accepted"] is not None:
            return answer
        for other in waiting:
            state(served, other)
        time.sleep(0.2)


def state(served: Served, queued: httpx.Response) -> str:
    """A queued upload's state now (asking renews its lease)."""
    return httpx.get(served.url + queued.json()["status_url"], timeout=60).json()["state"]


def test_two_participants_upload_a_broken_bot_is_refused_and_the_ladder_plays(
    served: Served, shared: Path
) -> None:
    with Store.open(served.db) as store:
        alice = service.invite(store, "alice")
        bob = service.invite(store, "bob")
    before = httpx.get(f"{served.url}/api/ladders/sk").json()

    good = post(served, alice, tgz(folder_bot(shared, "alices_bot")))
    answer = result(served, good)
    assert answer["accepted"] and answer["entry"]["participant"] == "alice"
    assert answer["entry"]["uploaded"] and any("[pass]" in x for x in answer["report_lines"])
    assert answer["report"]["output"] == [] and str(served.db.parent) not in str(answer)

    # bob's first bot is broken: refused with the check's report, and nothing enters
    broken = folder_bot(shared / "b", "bobs_bot", source=ILLEGAL_BOT)
    refused = httpx.post(
        f"{served.url}/api/ladders/sk/submissions",
        data={"token": bob},
        files={"archive": ("bot.tgz", tgz(broken), "application/gzip")},
        timeout=60,
    )
    body = result(served, refused)
    assert not body["accepted"] and body["code"] == 422 and "check failed" in body["error"]
    assert any("[FAIL]" in line and "offered" in line for line in body["report_lines"])
    with Store.open(served.db) as store:
        assert "bobs_bot" not in {info.name for info in store.list_bots()}
    assert not any(uploads_root(served.db).iterdir())  # nothing staged is left
    # bob fixes it (the command line sends the folder); he cannot replace alice's bot
    fixed = folder_bot(shared / "c", "bobs_bot")
    out = cli("ladder", "submit", "sk", str(fixed), "--to", served.url, "--token", bob)
    assert "entered bobs_bot" in out
    stolen = post(served, bob, tgz(folder_bot(shared / "d", "alices_bot", extra="# mine\n")))
    assert stolen.status_code == 403 and "another participant" in stolen.json()["error"]
    assert post(served, None, tgz(fixed)).status_code == 401
    assert post(served, "not-a-token", tgz(fixed)).status_code == 401

    # tokens are kept hashed, in the key file only
    for path in served.db.parent.iterdir():
        if path.is_file():
            content = path.read_bytes()
            assert alice.encode() not in content and bob.encode() not in content, path

    with Store.open(served.db) as store:
        service.run_ladder(store, "sk", until_games=1)
        # a ladder with uploads deals each game its own deal (``--deals auto``, the default)
        deals = {t.spec.deals.value for t in store.list_tournaments()}
    after = httpx.get(f"{served.url}/api/ladders/sk").json()
    assert before["games"] == 0 and after["games"] > 0
    assert deals == {"independent"}  # no batch before the uploads: every batch has them
    assert (before["deals"], after["deals"]) == ("duplicate", "independent")
    lines = {line["bot"]: line for line in after["lines"]}
    assert set(lines) == {"random", "first", "alices_bot", "bobs_bot"}
    assert lines["alices_bot"]["games"] > 0 and lines["bobs_bot"]["games"] > 0
    assert lines["alices_bot"]["participant"] == "alice"
    page = httpx.get(f"{served.url}/ladders/sk")
    assert page.status_code == 200 and "alices_bot" in page.text


@pytest.mark.parametrize(
    ("archive", "why"),
    [
        (hostile(member("../escape.py")), "outside"),
        (hostile(member("/etc/evil.py")), "absolute"),
        (hostile(member("link", tarfile.SYMTYPE, linkname="/etc/passwd")), "absolute"),
        (hostile(member("up", tarfile.SYMTYPE, linkname="../../x")), "outside"),
        (hostile(member("dev", tarfile.CHRTYPE, devmajor=1, devminor=3)), "not a regular"),
        (hostile(member("fifo", tarfile.FIFOTYPE)), "not a regular"),
        (gzip.compress(b"\0" * (80 << 20)), "unpacks to more"),
        (b"this is no archive", "archive"),
        (hostile(member("/".join(["a"] * 2100) + "/f")), "folders deep"),
        (hostile(declared("big", 100 << 20)), "declare more"),
    ],
    ids=[
        "dotdot", "absolute", "link-absolute", "link-out", "device", "fifo", "bomb", "junk",
        "deep", "declared",
    ],
)  # fmt: skip
def test_a_hostile_archive_is_refused_and_leaves_nothing(
    served: Served, archive: bytes, why: str
) -> None:
    with Store.open(served.db) as store:
        token = service.invite(store, "mallory")
    answer = post(served, token, archive)
    assert answer.status_code == 422, answer.text
    assert why in answer.json()["error"]
    root = uploads_root(served.db)
    assert not root.exists() or not any(root.iterdir())
    with Store.open(served.db) as store:
        assert "evil" not in {info.name for info in store.list_bots()}
    assert not (served.db.parent / "escape.py").exists()


def test_an_oversized_upload_is_refused_before_it_is_read(served: Served) -> None:
    with Store.open(served.db) as store:
        token = service.invite(store, "mallory")
    answer = post(served, token, b"\0" * (MAX_UPLOAD_BYTES + (128 << 10)))
    assert answer.status_code == 413


def test_an_upload_to_an_unknown_ladder_is_404(served: Served) -> None:
    answer = httpx.post(f"{served.url}/api/ladders/nope/submissions", content=b"x", timeout=30)
    assert answer.status_code == 404 and "no ladder named 'nope'" in answer.json()["error"]


def test_the_read_only_server_has_no_upload_path(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    make_ladder(db)
    server = start_server(db)  # arena serve's app
    try:
        assert httpx.get(f"{server.url}/ladders/sk").status_code == 200
        sent = httpx.post(f"{server.url}/api/ladders/sk/submissions", content=b"x")
        assert sent.status_code in (404, 405)
        assert httpx.get(f"{server.url}/ladders/sk/submit").status_code == 404
        assert "submit a bot" not in httpx.get(f"{server.url}/ladders/sk").text
    finally:
        stop_server(server)


needs_gnu_tar = pytest.mark.skipif(
    shutil.which("tar") is None
    or "GNU tar" not in subprocess.run(["tar", "--version"], capture_output=True, text=True).stdout,
    reason="GNU tar makes the sparse archives",
)


@needs_gnu_tar
@pytest.mark.parametrize("form", ["gnu", "pax-1.0"])
def test_a_sparse_member_is_refused_and_leaves_nothing(
    served: Served, shared: Path, tmp_path: Path, form: str
) -> None:
    """A few hundred bytes that declare a file of 1 GiB (GNU's sparse member, or PAX's) are
    refused at once: nothing staged, copied or registered."""
    folder = folder_bot(tmp_path, "sparse_bot")
    with open(folder / "big", "wb") as big:
        big.truncate(1 << 30)  # a hole: no data
    options = ["--format=gnu"] if form == "gnu" else ["--format=pax", "--sparse-version=1.0"]
    archive = tmp_path / "bot.tgz"
    subprocess.run(
        ["tar", "--sparse", *options, "-czf", str(archive), "-C", str(folder), "."], check=True
    )
    assert archive.stat().st_size < 1024
    with Store.open(served.db) as store:
        token = service.invite(store, "mallory")
    answer = post(served, token, archive.read_bytes())
    assert answer.status_code == 422, answer.text
    assert "sparse file" in answer.json()["error"]
    root = uploads_root(served.db)
    assert not root.exists() or not any(root.iterdir())
    copies = BotCopies.beside(served.db).root
    assert not copies.exists() or not any(copies.iterdir())
    with Store.open(served.db) as store:
        assert "sparse_bot" not in {info.name for info in store.list_bots()}


#: A valid bot that thinks 1.5 s a move (in time: the check's deadline is 2 s): its check,
#: every seat of every table size, takes minutes. Its command line carries a marker.
SLOW_BOT = """
import random, time
from protocol.sdk import run_bot

def act(view, legal):
    time.sleep(1.5)
    return random.choice(legal)

run_bot(act, name={name!r})
"""


def slow_bot(parent: Path, name: str) -> tuple[bytes, str]:
    """A slow bot's archive, and the marker in its processes' command lines."""
    marker = f"slow-{uuid.uuid4().hex[:10]}"
    folder = folder_bot(parent, name, source=SLOW_BOT)
    manifest = (folder / "bot.toml").read_text().replace("bot.py", f"bot.py {marker}")
    (folder / "bot.toml").write_text(manifest)
    return tgz(folder), marker


def running(marker: str) -> list[int]:
    """The processes whose command line holds ``marker``."""
    found = []
    for name in os.listdir("/proc"):
        try:
            with open(f"/proc/{name}/cmdline", "rb") as cmdline:
                if marker.encode() in cmdline.read():
                    found.append(int(name))
        except (OSError, ValueError):
            continue
    return found


def gone(marker: str) -> bool:
    """Whether the processes of ``marker`` are gone (given the time a kill takes)."""
    deadline = time.monotonic() + 60
    while running(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    return running(marker) == []


def test_a_slow_upload_holds_up_no_one_and_stops_when_cancelled(
    served: Served, shared: Path
) -> None:
    with Store.open(served.db) as store:
        mallory = service.invite(store, "mallory")
        alice = service.invite(store, "alice")
    archive, marker = slow_bot(shared, "mallorys_bot")
    slow = post(served, mallory, archive)
    assert slow.status_code == 202 and slow.json()["accepted"] is None, slow.text
    while state(served, slow) != "checking":
        time.sleep(0.2)
    # her next upload waits for her first, though a checker is free; a third is refused
    second = post(served, mallory, slow_bot(shared / "2", "mallorys_bot")[0])
    assert second.status_code == 202 and state(served, second) == "queued"
    third = post(served, mallory, slow_bot(shared / "3", "mallorys_bot")[0])
    assert third.status_code == 429 and "wait for their results" in third.json()["error"]
    # another participant's upload is answered at once and checked meanwhile
    quick = post(served, alice, tgz(folder_bot(shared, "alices_bot")))
    assert quick.status_code == 202
    entered = result(served, quick, waiting=(slow, second))
    assert entered["accepted"] and entered["entry"]["participant"] == "alice"
    assert state(served, slow) == "checking", "the slow check still runs"
    # cancelled: its check stops, its processes are gone, nothing of it enters
    url = served.url + slow.json()["status_url"]
    cancelled = httpx.delete(url, timeout=60).json()
    assert cancelled["state"] in ("checking", "cancelled")
    final = result(served, slow)
    assert final["state"] == "cancelled" and "its uploader cancelled it" in final["error"]
    httpx.delete(served.url + second.json()["status_url"], timeout=60)
    assert result(served, second)["state"] == "cancelled"
    assert gone(marker)
    with Store.open(served.db) as store:
        assert "mallorys_bot" not in {info.name for info in store.list_bots()}
    root = uploads_root(served.db)
    assert not any(root.iterdir()), "nothing staged is left"


@contextmanager
def mallory_on(tmp_path: Path, **queue: float) -> Iterator[tuple[Served, str]]:
    """An upload server of its own (its queue's settings ``queue``), and mallory's token."""
    db = tmp_path / "arena.db"
    make_ladder(db, bots=("random", "first"), move_ms=3000)  # SLOW_BOT: slow, not late
    served = serve(db, **queue)
    try:
        with Store.open(db) as store:
            yield served, service.invite(store, "mallory")
    finally:
        stop_server(served.server)


def test_a_check_over_its_budget_is_refused(tmp_path: Path, shared: Path) -> None:
    with mallory_on(tmp_path, budget_s=4) as (served, token):
        archive, marker = slow_bot(shared, "mallorys_bot")
        answer = result(served, post(served, token, archive))
        assert not answer["accepted"] and answer["state"] == "refused" and answer["code"] == 422
        assert "over its time budget of 4 s" in answer["error"]
        assert "the check was stopped" in answer["report_lines"][-1]
        assert gone(marker)
        with Store.open(served.db) as store:
            assert "mallorys_bot" not in {info.name for info in store.list_bots()}


def test_an_upload_no_one_waits_for_is_cancelled(tmp_path: Path, shared: Path) -> None:
    """Its uploader went away (no one asks for its status): its check stops."""
    with mallory_on(tmp_path, lease_s=10) as (served, token):
        archive, marker = slow_bot(shared, "mallorys_bot")
        queued = post(served, token, archive)
        assert queued.status_code == 202
        deadline = time.monotonic() + 60
        while not running(marker) and time.monotonic() < deadline:  # its check starts
            time.sleep(0.1)
        assert gone(marker), "no one asked: the check stopped"
        final = result(served, queued)
        assert final["state"] == "cancelled" and "no one asked for its result" in final["error"]
        with Store.open(served.db) as store:
            assert "mallorys_bot" not in {info.name for info in store.list_bots()}


def test_a_python_bot_runs_on_the_arenas_python_whatever_the_servers_path(
    served: Served, shared: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder bot whose command is ``python bot.py`` (or the list ``["python3", "bot.py"]``)
    enters a ladder served by a process whose PATH does not hold the arena's interpreter (a
    service started without its venv): ``python`` is always the arena's own, the SDK
    importable; the same code sent again is no error, and says so."""
    here = Path(sys.executable).parent
    if here in (Path("/usr/bin"), Path("/bin")):
        pytest.skip("the arena's Python is the system's: no PATH leaves it out")
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # the bots' PATH is the server's
    with Store.open(served.db) as store:
        token = service.invite(store, "alice")
    by_name = folder_bot(shared, "plain_python")
    (by_name / "bot.toml").write_text(
        'name = "plain_python"\ncommand = "python bot.py"\ngames = ["skull"]\n'
    )
    as_list = folder_bot(shared / "l", "listed_python")
    (as_list / "bot.toml").write_text(
        'name = "listed_python"\ncommand = ["python3", "bot.py"]\ngames = ["skull"]\n'
    )
    for folder in (by_name, as_list):
        answer = result(served, post(served, token, tgz(folder)))
        assert answer["accepted"], answer
        assert not answer["unchanged"]
    again = result(served, post(served, token, tgz(by_name)))
    assert again["accepted"] and again["unchanged"], again
    assert "the same code, nothing changed" in again["message"]
    out = cli("ladder", "submit", "sk", str(by_name), "--to", served.url, "--token", token)
    assert "nothing changed" in out  # and exit status 0 (cli asserts it)


def test_no_answer_names_a_server_path(served: Served, shared: Path) -> None:
    """A 404, a JSON error, the form of a ladder that does not exist and an upload's refusal
    name no folder of the server (docs allow --host 0.0.0.0)."""
    folder = str(served.db.parent)
    page = httpx.get(f"{served.url}/games/99999", timeout=30)
    assert page.status_code == 404 and "no game 99999 in arena.db" in page.text
    api = httpx.get(f"{served.url}/api/games/99999", timeout=30)
    assert api.status_code == 404 and api.json()["error"] == "no game 99999 in arena.db"
    form = httpx.get(f"{served.url}/ladders/nope/submit", timeout=30)
    assert form.status_code == 404 and 'id="upload"' not in form.text
    assert "no ladder named &#39;nope&#39;" in form.text
    form = httpx.get(f"{served.url}/ladders/sk/submit", timeout=30)
    assert "read-only" not in form.text.split("<footer>")[1]  # this page writes
    with Store.open(served.db) as store:
        token = service.invite(store, "alice")
    broken = folder_bot(shared, "no_toml")
    (broken / "bot.toml").write_text('name = "no_toml"\ncommand = 3\ngames = ["skull"]\n')
    refused = post(served, token, tgz(broken))
    assert refused.status_code == 422 and "'command' must be" in refused.json()["error"]
    for answer in (page.text, api.text, form.text, refused.text):
        assert folder not in answer and str(shared) not in answer and "/tmp/" not in answer
