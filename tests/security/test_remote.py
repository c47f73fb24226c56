"""Remote bots over TCP (loopback only), with single-use tokens, and with ZeroMQ CURVE.

The arena runs as ``arena play ... --listen tcp://127.0.0.1:PORT`` in a subprocess; the remote
bot is started by the test the way its owner would, by hand, with the lines printed by
``arena bot token``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import zmq
from click.testing import CliRunner

from arena.cli import main
from arena.procs.hub import Hub
from arena.procs.remote import CurveKeys, RemoteConfig
from tests.net import free_port
from tests.security.conftest import dealer, hello, replies
from tests.tournaments import old_database
from tournaments.catalogue.remote import StoredAccess, issue_token, server_keys
from tournaments.store.facts import Store

ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str) -> str:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def exported(text: str) -> dict[str, str]:
    """The variables of ``export NAME=VALUE`` lines."""
    pairs = [
        line[len("export ") :].split("=", 1)
        for line in text.splitlines()
        if line.startswith("export ")
    ]
    return {key: value.strip("'") for key, value in pairs}


def register(db: Path, *extra: str) -> dict[str, str]:
    cli("bot", "add", "far", "--remote", "--game", "skull", "--db", str(db))
    port = free_port()
    return exported(
        cli("bot", "token", "far", "--endpoint", f"tcp://127.0.0.1:{port}", "--db", str(db), *extra)
    )


def start_by_hand(env_vars: dict[str, str], bot: str = "bots.random") -> subprocess.Popen:
    """The remote bot, started the way its owner would: with the printed variables."""
    env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/"), **env_vars}
    return subprocess.Popen(
        [sys.executable, "-m", bot],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )


def arena(db: Path, listen: str, *extra: str) -> subprocess.Popen:
    env = {**os.environ, "ARENA_DB": str(db)}
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "arena",
            "play",
            "skull",
            "--bot",
            "far",
            "--bot",
            "random",
            "--bot",
            "random",
            "--seed",
            "5",
            "--json",
            "--listen",
            listen,
            "--remote-wait",
            "30",
            *extra,
        ],
        cwd=db.parent,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def finish(proc: subprocess.Popen, timeout: float = 60) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, (out or b"").decode(), (err or b"").decode()


@pytest.mark.parametrize("curve", [False, True], ids=["plain", "curve"])
def test_a_remote_bot_joins_with_a_token_and_plays(tmp_path, curve) -> None:
    db = tmp_path / "arena.db"
    variables = register(db, *(["--curve"] if curve else []))
    assert set(variables) >= {"ARENA_ENDPOINT", "ARENA_TOKEN"}
    if curve:
        assert {"ARENA_SERVER_KEY", "ARENA_PUBLIC_KEY", "ARENA_SECRET_KEY"} <= set(variables)
    with Store.open(db) as store:  # only a hash of the token is stored
        stored = store.db.execute("SELECT token_hash FROM remote_tokens").fetchall()
        assert variables["ARENA_TOKEN"] not in {row[0] for row in stored}
    game = arena(db, variables["ARENA_ENDPOINT"], *(["--curve"] if curve else []))
    bot = start_by_hand(variables)
    code, out, err = finish(game)
    assert code == 0, err
    record = json.loads(out)
    assert record["bots"][0] == "far" and record["faults"] == []
    assert all(a["by"] == "bot" for a in record["actions"])
    assert bot.wait(timeout=10) == 0, "the remote bot got bye and exited"
    # the token was single use: a second start with it is refused
    again = arena(
        db, variables["ARENA_ENDPOINT"], "--remote-wait", "2", *(["--curve"] if curve else [])
    )
    retry = start_by_hand(variables)
    code, out, err = finish(again)
    assert code == 1 and "Traceback" not in err
    # the local random bot may run unsandboxed (no bubblewrap here): that warning is not ours
    lines = [line for line in err.strip().splitlines() if "UNSANDBOXED" not in line]
    # with CURVE the used token's key is not even let through the handshake
    refusal = (
        "refused a CURVE connection with an unknown key"
        if curve
        else "refused a hello: unknown or used token"
    )
    assert refusal in lines[0] and len(lines) <= 5
    assert lines[-1].startswith("arena: error: remote bot 'far' did not connect"), err
    retry.kill()
    retry.wait()


def test_a_curve_key_moved_out_of_an_old_database_still_works(tmp_path) -> None:
    """A database made before key files kept the CURVE key pair; opened now, the pair moves
    to the key file, and bots given the old server key still connect."""
    db = tmp_path / "arena.db"
    public, _ = old_database(db)
    variables = exported(
        cli(
            "bot",
            "token",
            "far",
            "--endpoint",
            f"tcp://127.0.0.1:{free_port()}",
            "--db",
            str(db),
            "--curve",
        )
    )
    assert variables["ARENA_SERVER_KEY"] == public
    with Store.open(db) as store:
        assert "arena_keys" not in store.db.table_names()
    game = arena(db, variables["ARENA_ENDPOINT"], "--curve")
    bot = start_by_hand(variables)
    code, out, err = finish(game)
    assert code == 0, err
    assert json.loads(out)["bots"][0] == "far"
    assert bot.wait(timeout=10) == 0


@pytest.fixture
def remote_hub(tmp_path):
    db = tmp_path / "arena.db"
    cli("bot", "add", "far", "--remote", "--db", str(db))
    store = Store.open(db)

    def make(curve: bool) -> Hub:
        keys = server_keys(store) if curve else None
        return Hub(
            remote=RemoteConfig(listen="tcp://127.0.0.1:0", access=StoredAccess(db), curve=keys)
        )

    made: list[Hub] = []

    def factory(curve: bool = False) -> Hub:
        made.append(make(curve))
        return made[-1]

    yield store, factory
    for hub in made:
        hub.close()
    store.close()


def exchange(hub: Hub, sock: zmq.Socket, token: str) -> list[dict]:
    """Say hello with ``token`` (if the connection lets us) and return the replies."""
    try:
        sock.send(hello(token))
    except zmq.Again:
        pass
    return replies(hub, sock)


def test_remote_tokens_are_single_use_and_local_tokens_do_not_work_remotely(remote_hub) -> None:
    store, factory = remote_hub
    hub = factory()
    endpoint = hub.remote.endpoint
    assert endpoint.startswith("tcp://127.0.0.1:")
    token = issue_token(store, "far", endpoint=endpoint).token
    local = hub.issue_token("seat0")
    socks = [dealer(endpoint) for _ in range(4)]
    try:
        assert [m["type"] for m in exchange(hub, socks[0], token)] == ["welcome"]
        assert exchange(hub, socks[1], token)[0]["code"] == "bad-token", "single use"
        assert exchange(hub, socks[2], "0" * 48)[0]["code"] == "bad-token"
        assert exchange(hub, socks[3], local)[0]["code"] == "bad-token"
        peer = hub.claim_remote("seat0:far", "far")
        assert peer is not None and peer.remote == "far"
        assert hub.claim_remote("seat1:far", "far") is None
    finally:
        for sock in socks:
            sock.close(0)


def test_a_remote_connection_gets_one_hello_attempt(remote_hub) -> None:
    store, factory = remote_hub
    hub = factory()
    token = issue_token(store, "far", endpoint=hub.remote.endpoint).token
    sock = dealer(hub.remote.endpoint)
    try:
        assert exchange(hub, sock, "0" * 48)[0]["code"] == "bad-token"
        assert exchange(hub, sock, token) == [], "a second hello on it is dropped unread"
        assert hub.claim_remote("x", "far") is None
    finally:
        sock.close(0)


def test_curve_lets_only_keys_issued_with_a_token_connect(remote_hub) -> None:
    store, factory = remote_hub
    hub = factory(curve=True)
    endpoint = hub.remote.endpoint
    issued = issue_token(store, "far", endpoint=endpoint, curve=True)
    other = issue_token(store, "far", endpoint=endpoint, curve=True)
    stranger = CurveKeys.generate()
    socks = {
        "plain": dealer(endpoint),  # no CURVE at all
        "unknown-key": dealer(endpoint, (issued.server_key, stranger.public, stranger.secret)),
        "other-key": dealer(endpoint, (other.server_key, other.public_key, other.secret_key)),
        "good": dealer(endpoint, (issued.server_key, issued.public_key, issued.secret_key)),
    }
    try:
        assert exchange(hub, socks["plain"], issued.token) == []
        assert exchange(hub, socks["unknown-key"], issued.token) == []
        assert hub.peers == {}, "neither got a hello through"
        # keys of another token pass the handshake, but a token is tied to its own keys
        assert exchange(hub, socks["other-key"], issued.token)[0]["code"] == "bad-token"
        assert [m["type"] for m in exchange(hub, socks["good"], issued.token)] == ["welcome"]
        assert hub.claim_remote("x", "far") is not None
    finally:
        for sock in socks.values():
            sock.close(0)


def test_remote_bot_errors_are_one_line(tmp_path) -> None:
    db = tmp_path / "arena.db"
    cli("bot", "add", "far", "--remote", "--db", str(db))
    runner = CliRunner(env={"ARENA_DB": str(db)})
    cases = [
        (
            ["play", "skull", "--bot", "far", "--bot", "random", "--bot", "random"],
            "is remote: give --listen",
        ),
        (
            [
                "play",
                "skull",
                "--bot",
                "random",
                "--bot",
                "random",
                "--bot",
                "random",
                "--listen",
                "ipc:///tmp/x",
            ],
            "--listen takes tcp://HOST:PORT",
        ),
        (["bot", "token", "nosuch", "--db", str(db)], "no bot named 'nosuch'"),
        (
            ["bot", "add", "far2", "--remote", "--db", str(db), "--", "python", "x.py"],
            "a remote bot has no command",
        ),
    ]
    for args, message in cases:
        result = runner.invoke(main, args)
        assert result.exit_code != 0, args
        assert message in result.output, (args, result.output)
        assert "Traceback" not in result.output
    cli("bot", "add", "local", "--db", str(db), "--", sys.executable, "-m", "bots.random")
    result = runner.invoke(main, ["bot", "token", "local", "--db", str(db)])
    assert result.exit_code == 1 and "is not a remote bot" in result.output
