"""The hub's doors, with real sockets: one private endpoint per bot, single-use tokens, strangers
dropped unread and bounded, connections counted and cut, and no connection after the welcome."""

from __future__ import annotations

import json
import os
import resource
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import msgpack
import pytest

from arena.errors import BotStartError
from arena.procs import doors
from arena.procs import hub as hub_module
from arena.procs.doors import MAX_CONNECTIONS, MAX_HELLO_BYTES, STRANGER_MESSAGES
from arena.procs.hub import Hub
from protocol.codec import encode
from protocol.messages import MAX_NAME, MAX_TOKEN, validate_from_bot
from protocol.messages import hello as hello_message
from protocol.transport import ipc_folder
from tests.security.conftest import dealer, hello, replies

BAD_TOKEN = {"type": "error", "code": "bad-token", "message": "unknown or used token"}


def serve_until(hub: Hub, condition, seconds: float = 3.0) -> bool:
    """Run the hub until ``condition()`` holds (True) or the time is up (False)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        hub.receive(10)
    return condition()


def accepted(hub: Hub, label: str, count: int) -> bool:
    return serve_until(hub, lambda: hub.doors[label].watch.accepted >= count)


def test_each_bot_has_its_own_private_endpoint(hub) -> None:
    hub.issue_token("a")
    hub.issue_token("b")
    ends = [hub.endpoint_of("a"), hub.endpoint_of("b")]
    folders = [Path(ipc_folder(end)) for end in ends]
    assert ends[0] != ends[1] and folders[0] != folders[1]
    for folder in folders:
        assert folder.parent == Path(hub.folder)
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        assert stat.S_IMODE((folder / "bot.sock").stat().st_mode) == 0o666
    assert stat.S_IMODE(Path(hub.folder).stat().st_mode) == 0o711, "passable, not listable"
    hub.revoke("a")
    assert not folders[0].exists() and folders[1].exists()
    hub.close()
    assert not Path(hub.folder).exists()


def test_a_token_opens_only_its_own_door_once(hub) -> None:
    token_a, token_b = hub.issue_token("a"), hub.issue_token("b")
    socks = [dealer(hub.endpoint_of("a")) for _ in range(3)]
    try:
        assert accepted(hub, "a", 3)
        socks[0].send(hello(token_b))  # another bot's token: refused, not burnt
        assert replies(hub, socks[0]) == [BAD_TOKEN]
        socks[1].send(hello(token_a))
        assert [m["type"] for m in replies(hub, socks[1])] == ["welcome"]
        socks[2].send(hello(token_a))  # single use
        assert replies(hub, socks[2]) == [BAD_TOKEN]
        assert hub.by_label["a"].route and "b" not in hub.by_label
        other = dealer(hub.endpoint_of("b"))
        other.send(hello(token_b))
        assert [m["type"] for m in replies(hub, other)] == ["welcome"]
        other.close(0)
    finally:
        for sock in socks:
            sock.close(0)


def test_strangers_get_one_answer_at_most_and_one_hello_each(hub) -> None:
    token = hub.issue_token("a")
    stranger, bot = dealer(hub.endpoint_of("a")), dealer(hub.endpoint_of("a"))
    try:
        assert accepted(hub, "a", 2)
        dropped = hub.dropped
        stranger.send(msgpack.packb({"type": "action", "game_id": 1, "request": 1, "action": "x"}))
        stranger.send(b"\xc1 not msgpack")
        stranger.send_multipart([b"two", b"frames"])
        stranger.send(hello(token))  # not its first message: dropped unread
        got = replies(hub, stranger)
        assert [(m["type"], m["code"]) for m in got] == [("error", "bad-hello")]
        assert "must be a hello" in got[0]["message"]
        assert hub.dropped == dropped + 3 and "a" not in hub.by_label
        bot.send(hello(token))  # the stranger held no token: the bot's chance is intact
        assert [m["type"] for m in replies(hub, bot)] == ["welcome"]
    finally:
        stranger.close(0)
        bot.close(0)


def _packed(**fields: object) -> bytes:
    return msgpack.packb({"type": "hello", **fields})


@pytest.mark.parametrize(
    "first, said",
    [
        (lambda t: _packed(protocol="1", token=t, name="x"), "'protocol' must be an integer"),
        (lambda t: _packed(protocol=1, token=t), "field 'name' is missing"),
        (
            lambda t: _packed(protocol=1, token=t, name="x", colour="red"),
            "unknown field(s) 'colour'",
        ),
        (
            lambda t: json.dumps(
                {"type": "hello", "protocol": 1, "token": t, "name": "x"}
            ).encode(),
            "it looks like JSON; messages are msgpack maps",
        ),
        (lambda t: b"x" * (MAX_HELLO_BYTES + 1), f"a hello is at most {MAX_HELLO_BYTES} bytes"),
    ],
)
def test_a_malformed_hello_gets_one_bad_hello_error_saying_what_is_wrong(
    hub, first, said: str
) -> None:
    token = hub.issue_token("a")
    sock = dealer(hub.endpoint_of("a"))
    try:
        sock.send(first(token))
        sock.send(first(token))  # a second try on the same connection: no second answer
        got = replies(hub, sock)
        assert len(got) == 1 and got[0]["type"] == "error" and got[0]["code"] == "bad-hello"
        assert said in got[0]["message"]
        assert said in hub.refusal("a")
        if token.encode() in first(token):  # the bot's own token: refused for good at once
            assert hub.rejection("a").startswith("bad-hello: ")
    finally:
        sock.close(0)


def test_no_connection_is_possible_after_the_welcome(hub) -> None:
    token = hub.issue_token("a")
    path = hub.endpoint_of("a")[len("ipc://") :]
    bot = dealer(hub.endpoint_of("a"))
    try:
        bot.send(hello(token))
        assert [m["type"] for m in replies(hub, bot)] == ["welcome"]
        assert not os.path.exists(path), "the socket file is gone"
        late = socket.socket(socket.AF_UNIX)
        with pytest.raises(FileNotFoundError):
            late.connect(path)
        late.close()
        peer = hub.by_label["a"]
        hub.send(peer, {"type": "bye"})  # the bot's own connection stays
        assert bot.poll(2000) and msgpack.unpackb(bot.recv()) == {"type": "bye"}
    finally:
        bot.close(0)


def test_too_many_connections_close_the_door(hub) -> None:
    hub.issue_token("a")
    path = hub.endpoint_of("a")[len("ipc://") :]
    held, stopped = [], None
    for _ in range(500):
        sock = socket.socket(socket.AF_UNIX)
        sock.settimeout(1)
        try:
            sock.connect(path)
        except BlockingIOError:  # the backlog is full: try again
            sock.close()
            time.sleep(0.001)
            continue
        except OSError as exc:
            stopped = exc
            sock.close()
            break
        held.append(sock)
    try:
        assert isinstance(stopped, (FileNotFoundError, PermissionError)), stopped
        assert serve_until(hub, lambda: hub.rejection("a") is not None)
        assert hub.rejection("a") == f"opened more than {MAX_CONNECTIONS} connections to the arena"
        assert hub.doors["a"].unbound and not os.path.exists(path)
        for sock in held:  # the arena closed every one of them
            sock.settimeout(2)
            while sock.recv(4096):
                pass
    finally:
        for sock in held:
            sock.close()


def test_a_chatty_stranger_closes_the_door_on_its_bot(hub) -> None:
    token = hub.issue_token("a")
    stranger, bot = dealer(hub.endpoint_of("a")), dealer(hub.endpoint_of("a"))
    try:
        assert accepted(hub, "a", 2)
        bot.send(hello(token))
        assert [m["type"] for m in replies(hub, bot)] == ["welcome"]
        peer = hub.by_label["a"]
        for _ in range(STRANGER_MESSAGES + 1):
            stranger.send(b"x" * 32 * 1024)
        assert hub.receive(2000, [peer]) is None
        assert peer.closed and "more than" in peer.cut
        hub.send(peer, {"type": "bye"})  # a closed peer: nothing is sent, no error
    finally:
        stranger.close(0)
        bot.close(0)


def test_long_frames_from_strangers_are_not_decoded(hub, monkeypatch) -> None:
    decoded: list[int] = []
    real = doors.decode
    monkeypatch.setattr(
        doors, "decode", lambda data, **kw: decoded.append(len(data)) or real(data, **kw)
    )
    hub.issue_token("a")
    sock = dealer(hub.endpoint_of("a"))
    other = dealer(hub.endpoint_of("a"))
    try:
        sock.send(b"\x81" + b"x" * (MAX_HELLO_BYTES + 1))
        other.send(hello("0" * 32))
        assert replies(hub, other) == [BAD_TOKEN]
        too_long = replies(hub, sock)  # answered from its size alone
        assert [m["code"] for m in too_long] == ["bad-hello"]
        assert decoded == [len(hello("0" * 32))], "only the hello-sized frame was decoded"
    finally:
        sock.close(0)
        other.close(0)


def test_max_hello_bytes_holds_every_valid_hello() -> None:
    widest = "\U0010ffff"  # 4 bytes of UTF-8
    message = {
        **hello_message(token=widest * MAX_TOKEN, name=widest * MAX_NAME, protocol=-(2**63)),
        "max_games": 2**64 - 1,
        "batch": True,
    }  # older bots send it; it is still valid
    assert validate_from_bot(message) == "hello"
    assert len(encode(message)) <= MAX_HELLO_BYTES < 1024


def test_the_open_file_limit_is_raised_to_the_hard_limit(hub) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert soft == hard == hub.fd_limit


def test_out_of_file_descriptors_is_a_start_error(hub) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    used = len(os.listdir("/proc/self/fd"))
    resource.setrlimit(resource.RLIMIT_NOFILE, (used + 8, hard))
    fillers = []
    try:
        with pytest.raises(OSError):
            while True:
                fillers.append(os.open(os.devnull, os.O_RDONLY))
        with pytest.raises(BotStartError, match="no endpoint for 'a'"):
            hub.issue_token("a")
    finally:
        for fd in fillers:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert "a" not in hub.doors and len(os.listdir(hub.folder)) == 0
    hub.issue_token("a")


FLOOD_SCRIPT = r"""
import os, resource, socket, sys, time
resource.setrlimit(resource.RLIMIT_NOFILE, (FD_CAP, FD_CAP))
from arena.procs.hub import Hub
hub = Hub()
hub.issue_token("a")
path = hub.endpoint_of("a")[len("ipc://"):]
pids = []
for _ in range(4):
    pid = os.fork()
    if pid == 0:
        held = []
        try:
            for _ in range(3000):
                s = socket.socket(socket.AF_UNIX); s.settimeout(1); s.connect(path); held.append(s)
        except OSError:
            pass
        time.sleep(0.5)
        os._exit(0)
    pids.append(pid)
peak, deadline = 0, time.monotonic() + 3
while time.monotonic() < deadline:
    hub.receive(5)
    peak = max(peak, len(os.listdir("/proc/self/fd")))
for pid in pids:
    os.waitpid(pid, 0)
print("rejection:", hub.rejection("a"), "peak:", peak)
hub.close()
"""


def test_a_connection_flood_never_reaches_the_open_file_limit() -> None:
    # ZeroMQ aborts the process when accepting fails with EMFILE: a door is closed long before
    limit = 1024
    script = FLOOD_SCRIPT.replace("FD_CAP", str(limit))
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ},
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "rejection: opened more than 3 connections" in result.stdout
    peak = int(result.stdout.split("peak:")[1])
    assert peak < limit


def connect_as_nobody(path: Path) -> str:
    """Connect to ``path`` as an ordinary user (in a child): "connected" or the error's name."""
    outcomes = ["connected", "PermissionError", "FileNotFoundError", "other"]
    pid = os.fork()
    if pid == 0:
        code = 3
        try:
            os.setuid(65534)
            socket.socket(socket.AF_UNIX).connect(str(path))
            code = 0
        except PermissionError:
            code = 1
        except FileNotFoundError:
            code = 2
        finally:
            os._exit(code)
    return outcomes[os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])]


@pytest.mark.skipif(os.getuid() != 0, reason="needs root to act as another user")
def test_a_hard_link_made_before_the_welcome_opens_nothing_after_it(hub, tmp_path) -> None:
    token = hub.issue_token("a")
    path = hub.endpoint_of("a")[len("ipc://") :]
    link = tmp_path / "kept.sock"
    try:
        os.link(path, link)
    except OSError as exc:  # another file system: no hard link at all
        pytest.skip(f"no hard link here: {exc}")
    for folder in (tmp_path, *tmp_path.parents):  # let an ordinary user reach the link
        if folder in (Path("/"), Path("/tmp")):
            break
        folder.chmod(folder.stat().st_mode | 0o011)
    assert connect_as_nobody(link) == "connected", "the link works before the welcome"
    bot = dealer(hub.endpoint_of("a"))
    try:
        bot.send(hello(token))
        assert [m["type"] for m in replies(hub, bot)] == ["welcome"]
        assert connect_as_nobody(link) == "PermissionError", "its socket is now mode 000"
        assert hub.doors["a"].watch.accepted == 2
    finally:
        bot.close(0)


def test_a_hub_holds_hundreds_of_doors(hub) -> None:
    # three ZeroMQ sockets a door: more than ZeroMQ's default of 1023 sockets per context
    for n in range(400):
        hub.issue_token(f"bot{n}")
    assert len({hub.endpoint_of(f"bot{n}") for n in range(400)}) == 400


def welcome(hub: Hub, label: str):
    """A welcomed DEALER for a fresh ``label`` and its peer."""
    token = hub.issue_token(label)
    sock = dealer(hub.endpoint_of(label))
    sock.send(hello(token))
    assert [m["type"] for m in replies(hub, sock)] == ["welcome"]
    return sock, hub.by_label[label]


def test_awaiting_one_seat_reads_nothing_of_another(hub) -> None:
    (noisy, noisy_peer), (quiet, quiet_peer) = welcome(hub, "noisy"), welcome(hub, "quiet")
    try:
        answer = {"type": "action", "game_id": 1, "request": 1, "action": "x"}
        for _ in range(8):
            noisy.send(msgpack.packb(answer))
        time.sleep(0.2)  # all eight are waiting in the arena
        quiet.send(msgpack.packb(answer))
        got = hub.receive(2000, [quiet_peer])
        assert got is not None and got.peer is quiet_peer
        got = [hub.receive(500, [noisy_peer]) for _ in range(8)]
        assert all(g is not None and g.peer is noisy_peer for g in got), "none was read before"
        got = hub.receive(500, [noisy_peer, quiet_peer])
        assert got is None
    finally:
        noisy.close(0)
        quiet.close(0)


def test_a_heavy_flood_never_delays_another_bots_read_time(hub, monkeypatch) -> None:
    """One wake-up reads every awaited door before decoding anything: a bot flooding heavy
    (slow to decode) messages cannot push back the time stamped on another bot's answer, the
    time its clock is charged (decoding 72 heavy messages takes tens of milliseconds)."""
    socks = {}
    for label in ("flooder", "victim"):
        token = hub.issue_token(label)
        socks[label] = dealer(hub.endpoint_of(label))
        socks[label].send(hello(token))
    try:
        assert serve_until(hub, lambda: {"flooder", "victim"} <= set(hub.by_label))
        for sock in socks.values():
            sock.recv()  # the welcome
        peers = [hub.by_label["flooder"], hub.by_label["victim"]]
        heavy = msgpack.packb({"type": "action", "pad": [[0]] * 20_000})
        for _ in range(8):
            socks["flooder"].send(heavy)
        socks["victim"].send(encode({"type": "action", "game_id": 1, "request": 1, "action": "a"}))
        for label in socks:  # both doors have something queued before the wake-up
            assert hub.doors[label].router.socket.poll(5000), label
        decoding: list[float] = []
        real = hub_module.decode

        def timed(*args, **kwargs):
            decoding.append(time.monotonic())
            return real(*args, **kwargs)

        monkeypatch.setattr(hub_module, "decode", timed)
        batch = hub.receive_batch(1000, peers)  # the flooder's door first
        answer = [item for item in batch if item.peer is peers[1]]
        assert answer and answer[0].message["action"] == "a"
        assert any(item.peer is peers[0] and item.problem for item in batch)
        assert answer[0].at <= min(decoding), "the victim's answer was stamped after decoding"
    finally:
        for sock in socks.values():
            sock.close(0)


def test_a_message_longer_than_any_action_is_malformed_undecoded(hub, monkeypatch) -> None:
    """A welcomed bot's only message is a short ``action``: a longer one (here 40 KB of
    valid msgpack) is its own malformed message, and the referee spends no decoding on it."""
    token = hub.issue_token("heavy")
    sock = dealer(hub.endpoint_of("heavy"))
    sock.send(hello(token))
    try:
        assert serve_until(hub, lambda: "heavy" in hub.by_label)
        sock.recv()  # the welcome
        longest = encode(
            {
                "type": "action",
                "game_id": -(2**63),
                "request": 2**64 - 1,
                "action": "\U0010ffff" * 256,
            }
        )
        sock.send(longest)
        sock.send(msgpack.packb({"type": "action", "pad": [[0]] * 20_000}))
        assert hub.doors["heavy"].router.socket.poll(5000)
        decoded: list[int] = []
        real = hub_module.decode
        monkeypatch.setattr(
            hub_module, "decode", lambda data, **kw: decoded.append(len(data)) or real(data, **kw)
        )
        batch: list = []
        for _ in range(50):
            batch += hub.receive_batch(100, [hub.by_label["heavy"]])
            if len(batch) == 2:
                break
        assert batch[0].message is not None, "the longest valid action is decoded"
        assert batch[1].message is None and "an action is under" in str(batch[1].problem)
        assert decoded == [len(longest)]
    finally:
        sock.close(0)
