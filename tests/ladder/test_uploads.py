"""Submissions over the network, end to end: a real upload server (uvicorn on a free port),
real archives sent over HTTP, the entry check in the bubblewrap sandbox, real bot processes
and SQLite. Two participants upload; a broken bot is refused with its report; only the
owner may replace a bot; tokens are kept hashed outside the database; hostile archives
(traversal, links out, devices, bombs, oversize) are refused and leave nothing behind; the
ladder plays and its leaderboard changes."""

from __future__ import annotations

import gzip
import io
import tarfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from arena.procs import sandbox
from arena.web.uploads import create_upload_app
from tests.ladder.conftest import ILLEGAL_BOT, cli, folder_bot, make_ladder
from tests.web.conftest import Server, start_server, stop_server
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


def serve(db: Path) -> Served:
    """The upload server of ``db`` (``arena ladder serve``'s app) on a free port."""
    running = start_server(db, create_upload_app(db))
    return Served(running.url, db, running)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    db = tmp_path / "arena.db"
    make_ladder(db, bots=("random", "first"), batch_games=24)
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
        f"{served.url}/api/ladders/sk/submissions", content=body, headers=headers, timeout=300
    )


def test_two_participants_upload_a_broken_bot_is_refused_and_the_ladder_plays(
    served: Served, shared: Path
) -> None:
    with Store.open(served.db) as store:
        alice = service.invite(store, "alice")
        bob = service.invite(store, "bob")
    before = httpx.get(f"{served.url}/api/ladders/sk").json()

    good = post(served, alice, tgz(folder_bot(shared, "alices_bot")))
    assert good.status_code == 201, good.text
    answer = good.json()
    assert answer["accepted"] and answer["entry"]["participant"] == "alice"
    assert answer["entry"]["uploaded"] and any("[pass]" in x for x in answer["report_lines"])
    assert answer["report"]["output"] == [] and str(served.db.parent) not in good.text

    # bob's first bot is broken: refused with the check's report, and nothing enters
    broken = folder_bot(shared / "b", "bobs_bot", source=ILLEGAL_BOT)
    refused = httpx.post(
        f"{served.url}/api/ladders/sk/submissions",
        data={"token": bob},
        files={"archive": ("bot.tgz", tgz(broken), "application/gzip")},
        timeout=300,
    )
    assert refused.status_code == 422, refused.text
    body = refused.json()
    assert not body["accepted"] and "check failed" in body["error"]
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
    after = httpx.get(f"{served.url}/api/ladders/sk").json()
    assert before["games"] == 0 and after["games"] > 0
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
    ],
    ids=["dotdot", "absolute", "link-absolute", "link-out", "device", "fifo", "bomb", "junk"],
)
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
