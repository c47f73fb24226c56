"""Rogues that attack the hub itself: connection floods, junk from strangers, hello spam.

Each runs in a whole tournament, sandboxed (bubblewrap) and unsandboxed, in this process and
through two worker processes: the rogue's own seat is charged (or plays on), the other bots
never fault, every game is recorded, and the referee's memory, time and open files stay bounded.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass

import pytest

from arena.procs import sandbox as sandboxing
from arena.procs.doors import MAX_CONNECTIONS, STRANGER_MESSAGES
from tests.security.conftest import rogue, run_with_rogue
from tests.security.test_rogues import GAMES_WITH_ROGUE, assert_finished

C = "crash"
R = "refused"  # the arena refused its hello, or cut its door before a welcome
TOO_MANY = f"opened more than {MAX_CONNECTIONS} connections"
CHATTY = f"sent more than {STRANGER_MESSAGES} messages"
MODES = [
    pytest.param(
        "auto",
        marks=pytest.mark.skipif(
            sandboxing.available() is None,
            reason="bubblewrap (bwrap) is not installed or does not work",
        ),
        id="sandboxed",
    ),
    pytest.param("off", id="unsandboxed"),
]


@dataclass(frozen=True)
class Flood:
    """A rogue, its settings, and what its seat gets in each of its games."""

    name: str
    env: tuple[tuple[str, str], ...]
    kinds: tuple[str, ...]
    detail: str = ""
    log: str = ""


FLOODS = [
    # a rogue whose endpoint is closed before its hello is refused (a `refused` fault), then
    # killed at once
    Flood("connect_flood", (), (R,), TOO_MANY),
    Flood("junk_flood", (("CONNECTIONS", "300"),), (R,), TOO_MANY),
    Flood("junk_flood", (("CONNECTIONS", "2"),), (R,), CHATTY),
    Flood("hello_spam", (("CONNECTIONS", "200"), ("REPEAT", "20")), (R,), TOO_MANY),
    Flood("hello_spam", (("CONNECTIONS", "2"), ("REPEAT", "20")), (R,), CHATTY),
    # one wrong guess per connection is answered, and costs nothing: the bot then plays
    Flood(
        "hello_spam",
        (("CONNECTIONS", "2"), ("REPEAT", "1")),
        (),
        log="hello_spam: replies ['bad-token', 'bad-token']",
    ),
]


def open_sockets() -> int:
    """Sockets this process has open (a door left open would show as one or more)."""
    count = 0
    for name in os.listdir("/proc/self/fd"):
        try:
            count += os.readlink(f"/proc/self/fd/{name}").startswith("socket:")
        except OSError:
            pass
    return count


def watch_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name == "arena-door-watch"]


def check(outcome, flood: Flood) -> None:
    assert_finished(outcome)
    assert outcome.kinds == [list(flood.kinds)] * GAMES_WITH_ROGUE
    assert outcome.forfeits == [bool(flood.kinds)] * GAMES_WITH_ROGUE
    assert all(flood.detail in detail for detail in outcome.details()), outcome.details()
    assert flood.log in outcome.log()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("flood", FLOODS, ids=lambda f: f"{f.name}-{'-'.join(v for _, v in f.env)}")
def test_a_flood_costs_only_the_rogue(tmp_path, monkeypatch, mode, flood: Flood) -> None:
    for key, value in flood.env:
        monkeypatch.setenv(f"ARENA_BOT_{key}", value)
    before = open_sockets()
    outcome = run_with_rogue(tmp_path, rogue(flood.name), sandbox=mode)
    check(outcome, flood)
    assert open_sockets() <= before, "every door is closed with its bot"
    assert watch_threads() == []


@pytest.mark.skipif(
    sandboxing.available() is None, reason="bubblewrap (bwrap) is not installed or does not work"
)
def test_a_sandboxed_bot_sees_no_other_endpoint(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("ARENA_BOT_OTHERS", "1")
    monkeypatch.setenv("ARENA_BOT_PROCS", "1")
    outcome = run_with_rogue(tmp_path, rogue("connect_flood"), sandbox="required")
    check(outcome, FLOODS[0])
    assert "others=0 reached=0" in outcome.log()


@pytest.mark.parametrize("flood", [FLOODS[0], FLOODS[1]], ids=["connect", "junk"])
def test_floods_with_two_workers(tmp_path, monkeypatch, flood: Flood) -> None:
    for key, value in flood.env:
        monkeypatch.setenv(f"ARENA_BOT_{key}", value)
    check(run_with_rogue(tmp_path, rogue(flood.name), jobs=2), flood)
