"""Every rogue bot in a whole tournament: its exact faults, and nothing else disturbed.

For each rogue the tournament finishes with every game recorded (no result lost), the rogue's
seats have exactly the faults its misbehaviour deserves, the two well-behaved bots have none in
any game, standings and ratings are built, and the referee (this process) stays within a
memory and a time bound.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import socket
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.procs.botproc import BotSpec
from arena.procs.limits import Limits
from arena.procs.sandbox import inside
from tests.security.conftest import (
    LIMITS,
    RSS_BOUND_MB,
    Outcome,
    needs_bwrap,
    private_dir,
    rogue,
    run_with_rogue,
    survivors,
)

T, C, M, I, W = "timeout", "crash", "malformed", "illegal", "wrong-id"  # noqa: E741
GAMES_WITH_ROGUE = 4
#: Filling 512 MB takes a moment, and many on a loaded machine: a deadline no fill outlasts.
FILLING = dataclasses.replace(LIMITS, move_ms=30_000)
#: Reading thousands of stale copies takes the referee a moment, and many on a loaded machine:
#: a deadline no drain outlasts, so that any fault is one the flood itself caused.
DRAINING = dataclasses.replace(LIMITS, move_ms=5_000)


@dataclass(frozen=True)
class Case:
    """A rogue, the faults of each of its games, and whether it forfeits each of them."""

    name: str
    kinds: tuple[str, ...]  # the rogue's fault kinds in every game it plays
    forfeit: bool
    detail: str = ""  # text every rogue fault detail contains
    log: str = ""  # text the rogue's log must contain
    limits: Limits = LIMITS


CASES = [
    Case("exit_at_once", (C,), True, "stopped before saying hello"),
    Case("crash_mid", (C,), True, "exited with status 3"),
    Case("no_hello", (C,), True, "did not say hello within"),
    Case("wrong_protocol", ("refused",), True, "refused: bad-protocol: protocol 99 is not"),
    Case("bad_token", (C,), True, "refused (bad-token", log="'code': 'bad-token'"),
    # once a bot is welcomed its endpoint is gone: the second socket never even connects
    Case("reuse_token", (), False, log="second hello got: []"),
    Case("hang", (T, T), True, "no answer within 300 ms"),
    Case("wrong_request", (W, T), True),
    Case("wrong_game", (W, T), True),
    Case("twice", (), False),
    Case("garbage", (M, M), True, "msgpack"),
    Case("huge", (T, T), True, "no answer within"),
    Case("nested", (M, M), True),
    Case("illegal", (I, I), True, "was not offered"),
    Case("flood", (), False, log="flood: sent", limits=DRAINING),
    # a deadline no fill of 512 MB outlasts, so the crash is its only fault
    Case("memhog", (C,), True, "exited with status 1", log="MemoryError", limits=FILLING),
]


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
@pytest.mark.parametrize("jobs", [1, 2])
def test_rogue_in_a_tournament(tmp_path, case: Case, jobs: int) -> None:
    outcome = run_with_rogue(tmp_path, rogue(case.name), limits=case.limits, jobs=jobs)
    assert_finished(outcome)
    assert outcome.kinds == [list(case.kinds)] * GAMES_WITH_ROGUE
    assert outcome.forfeits == [case.forfeit] * GAMES_WITH_ROGUE
    assert all(case.detail in detail for detail in outcome.details())
    assert case.log in outcome.log()


def test_an_impostor_connection_costs_only_its_own_bot(tmp_path) -> None:
    """A second connection gets one hello, refused; when it keeps talking, the bot's door is
    closed, its own connection too: a crash (and forfeit) of that bot's seat in the game where
    the hub counts the ninth stranger message. Which game that is depends on when the hub reads
    them (only while it awaits that bot), so this asserts what holds in every run."""
    outcome = run_with_rogue(tmp_path, rogue("impostor"))
    assert_finished(outcome)
    assert set(map(tuple, outcome.kinds)) <= {(), (C,)} and [C] in outcome.kinds
    assert outcome.forfeits == [kinds == [C] for kinds in outcome.kinds]
    assert all(
        "connection closed by the arena: a connection without a welcome sent more "
        "than 8 messages" in detail
        for detail in outcome.details()
    )
    assert (
        "impostor socket got: [{'type': 'error', 'code': 'bad-token', "
        "'message': 'unknown or used token'}]"
    ) in outcome.log()


def assert_finished(outcome: Outcome, *, seconds: float = 30.0) -> None:
    """The tournament is complete, nobody else faulted, the referee stayed bounded."""
    assert outcome.done == outcome.games == 6, "every game is recorded"
    assert outcome.summary.failed == ()
    assert outcome.other_faults == [], "the well-behaved bots never fault"
    assert outcome.standings == 3
    assert len(outcome.rogue_games) == GAMES_WITH_ROGUE
    assert outcome.bounds.rss_mb < RSS_BOUND_MB, f"referee grew {outcome.bounds.rss_mb} MB"
    assert outcome.bounds.wall_s < seconds


def test_late_answers_cost_one_timeout_and_nothing_more(tmp_path) -> None:
    # margins of half a deadline either side (see the rogue): one second on a loaded machine
    outcome = run_with_rogue(
        tmp_path, rogue("late"), limits=dataclasses.replace(LIMITS, move_ms=2000)
    )
    assert_finished(outcome)
    # only the very first answer of each of the rogue's processes is late (a phase's processes
    # serve its games; which game comes first depends on the games at once); by as little as
    # it takes, so a loaded machine may read one in time
    assert set(map(tuple, outcome.kinds)) <= {(), (T,)}
    assert 1 <= outcome.kinds.count([T]) <= outcome.rogue_processes
    assert outcome.forfeits == [False] * GAMES_WITH_ROGUE


def test_gigabytes_of_output_are_drained_and_capped(tmp_path) -> None:
    outcome = run_with_rogue(tmp_path, rogue("chatty"))
    assert_finished(outcome)
    assert outcome.kinds == [[]] * GAMES_WITH_ROGUE, "writing never blocks the bot"
    files = [p for p in (outcome.log_dir / "rogue").iterdir()]
    assert files and all(p.stat().st_size <= LIMITS.log_bytes + 200 for p in files)
    discarded = [int(n) for n in re.findall(r"discarded: (\d+) bytes", outcome.log())]
    assert discarded and max(discarded) > 20_000_000, "the rest was read and thrown away"


def test_cpu_spinner_is_killed_at_its_cpu_limit(tmp_path) -> None:
    # the spinner spins from its first turn until killed; a deadline far longer than a second
    # of CPU makes the kill, not a timeout, end its turn even on a loaded machine
    limits = dataclasses.replace(LIMITS, cpu_s=1, move_ms=30_000)
    outcome = run_with_rogue(tmp_path, rogue("spinner"), limits=limits)
    assert_finished(outcome, seconds=240)
    kinds = [kind for game in outcome.kinds for kind in game]
    assert kinds == [C] * GAMES_WITH_ROGUE, "each process is killed at its first turn"
    crashes = [f.detail for faults, _ in outcome.rogue_games for f in faults if f.kind.value == C]
    assert all("killed by SIGXCPU" in d or "killed by SIGKILL" in d for d in crashes)


@pytest.mark.parametrize("guard", ["cgroup", "pid-namespace"])
def test_children_that_detach_die_with_the_bot(tmp_path, monkeypatch, guard) -> None:
    from arena.procs import limits as proclimits
    from arena.procs import sandbox as sandboxing

    if guard == "cgroup" and proclimits.cgroup_base() is None:
        pytest.skip("no writable pids cgroup here")
    if guard == "pid-namespace":
        if sandboxing.available() is None:
            pytest.skip("bubblewrap (bwrap) is not installed or does not work")
        monkeypatch.setattr(proclimits, "cgroup_base", lambda: None)
    marker = f"rogue-forker-{uuid.uuid4().hex}"
    monkeypatch.setenv("ARENA_BOT_MARKER", marker)
    outcome = run_with_rogue(
        tmp_path, rogue("forker"), sandbox="off" if guard == "cgroup" else "required"
    )
    assert_finished(outcome)
    assert outcome.kinds == [[]] * GAMES_WITH_ROGUE
    assert survivors(marker) == [], "no child of the bot outlives it"


def test_fork_bomb_stops_at_the_process_limit(tmp_path, monkeypatch) -> None:
    from arena.procs import limits as proclimits

    marker = f"rogue-forkbomb-{uuid.uuid4().hex}"
    monkeypatch.setenv("ARENA_BOT_MARKER", marker)
    outcome = run_with_rogue(
        tmp_path, rogue("forkbomb"), limits=dataclasses.replace(LIMITS, max_procs=16)
    )
    assert_finished(outcome)
    if proclimits.cgroup_base() is not None:
        # forks over pids.max fail; the bot goes on playing
        forked = int(
            re.search(r"forked (\d+) children, then BlockingIOError", outcome.log()).group(1)
        )
        assert 0 < forked < 16
        assert outcome.kinds == [[]] * GAMES_WITH_ROGUE
    else:  # the watchdog kills a bot over its limit (between games, or as a crash)
        assert {kind for kinds in outcome.kinds for kind in kinds} <= {C}
    assert survivors(marker) == []


@needs_bwrap
@pytest.mark.parametrize("in_cwd", [False, True], ids=["db-elsewhere", "db-in-current-folder"])
def test_sandbox_hides_database_logs_and_other_bots(private, monkeypatch, in_cwd) -> None:
    other = private_dir()  # another registered bot's folder
    (other / "secret.py").write_text("SECRET = 1\n")
    spec = rogue("snoop")
    if in_cwd:  # the database's folder is the arena's (and so the bot's) current folder,
        monkeypatch.chdir(private)  # and the bot's command names it: it is shown
        spec = BotSpec(name="rogue", argv=(*spec.argv, "."))
    monkeypatch.setenv("ARENA_BOT_DB", str(private / "arena.db"))
    monkeypatch.setenv("ARENA_BOT_LOGS", str(private / "arena-logs"))
    monkeypatch.setenv("ARENA_BOT_OTHER", str(other))
    try:
        outcome = run_with_rogue(private, spec, hide=(str(other),))
    finally:
        shutil.rmtree(other, ignore_errors=True)
    assert_finished(outcome)
    assert outcome.kinds == [[]] * GAMES_WITH_ROGUE
    found = dict(
        item.split("=") for item in re.search(r"snoop: (.*)", outcome.log()).group(1).split()
    )
    # what is not shown does not exist, inside a shown folder too (its view leaves it out)
    assert found["db"] == "FileNotFoundError"
    assert found["logs"] == "FileNotFoundError"
    assert found["other"] == "FileNotFoundError", "only what a bot needs is shown"
    # the working folder is the host's, read-only; under /tmp it is an empty folder in the
    # bot's own /tmp: a write there stays in the sandbox (nothing reaches the host's folder)
    assert not list(Path.cwd().glob("snoop-*.txt")), "nothing written to the host's folder"
    if not inside(str(Path.cwd()), ["/tmp"]):
        assert found["write_cwd"] == "OSError", "the file system is read-only (EROFS)"
    assert found["scratch"] == "ok", "its own /tmp is writable"
    assert int(found["procs"]) <= 4, "it sees only its own processes"


@needs_bwrap
def test_sandbox_has_no_network(tmp_path, monkeypatch) -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    listener.settimeout(0.1)
    monkeypatch.setenv("ARENA_BOT_PORT", str(listener.getsockname()[1]))
    try:
        outcome = run_with_rogue(tmp_path, rogue("netcat"))
        with pytest.raises(socket.timeout):
            listener.accept()
    finally:
        listener.close()
    assert_finished(outcome)
    assert outcome.kinds == [[]] * GAMES_WITH_ROGUE
    assert "net: failed ConnectionRefusedError" in outcome.log()
    assert "net: connected" not in outcome.log()


def test_unsandboxed_bots_still_get_limits(tmp_path) -> None:
    outcome = run_with_rogue(tmp_path, rogue("memhog"), sandbox="off", limits=FILLING)
    assert_finished(outcome)
    assert outcome.kinds == [[C]] * GAMES_WITH_ROGUE
    assert "MemoryError" in outcome.log()


def test_limits_default_to_safe_values() -> None:
    limits = Limits()
    assert limits.memory_mb > 0 and limits.max_procs > 0 and limits.log_bytes > 0
