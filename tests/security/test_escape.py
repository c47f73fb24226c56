"""Bots that try to escape, as root, in every sandbox mode the machine offers.

When the arena runs as root every bot process runs as an unprivileged uid of its own, with or
without bubblewrap: these tests run real tournaments with rogue bots (``tests/rogues/``) and
check that the bot has no capability, cannot mount, cannot leave its cgroups, cannot read or
write the database, the keys file or the logs, cannot read other processes' environments or
signal them, that its whole process tree is bounded by ``--memory`` where a memory cgroup
exists, that what it writes is bounded and removed, and that nothing it starts outlives it.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import uuid
from pathlib import Path

import pytest

from arena.procs import identity
from arena.procs import limits as proclimits
from arena.procs.botproc import BotSpec
from tests.security.conftest import LIMITS, needs_bwrap, rogue, run_with_rogue, survivors
from tests.security.test_rogues import GAMES_WITH_ROGUE, assert_finished

needs_root = pytest.mark.skipif(
    os.geteuid() != 0, reason="bots run as users of their own only when the arena runs as root"
)
needs_memory_cgroup = pytest.mark.skipif(
    proclimits.memory_base() is None, reason="no writable memory cgroup here"
)
#: Every sandbox mode: bubblewrap (where it works) and none.
#: Rogues that work before saying hello get time for it, whatever the machine's load.
SLOW_START = dataclasses.replace(LIMITS, startup_ms=30_000)
MODES = [
    pytest.param("required", marks=needs_bwrap, id="sandboxed"),
    pytest.param("off", id="unsandboxed"),
]
PLACES = ("/tmp", "/var/tmp", "/dev/shm")


def logged(outcome, name: str) -> dict[str, str]:
    """The ``name: key=value ...`` line a rogue logged, as a dict."""
    line = re.search(rf"{name}: (.*)", outcome.log()).group(1)
    return dict(item.split("=", 1) for item in line.split())


@needs_root
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("jobs", [1, 2])
def test_a_bot_has_no_privileges(tmp_path, mode, jobs) -> None:
    outcome = run_with_rogue(tmp_path, rogue("caps"), sandbox=mode, limits=SLOW_START, jobs=jobs)
    assert_finished(outcome)
    assert outcome.kinds == [[]] * GAMES_WITH_ROGUE
    found = logged(outcome, "caps")
    assert int(found["uid"]) > identity.USER_BASE, "a uid of its own, not root"
    assert int(found["capeff"], 16) == 0, "no capability"
    assert found["mount"] == "EPERM" and found["remount"] == "EPERM"
    assert found["cgroup"] in ("PermissionError", "FileNotFoundError"), (
        "it cannot move itself out of its cgroups"
    )
    if mode == "required":
        assert found["userns"] != "ok", "no new user namespace in the sandbox"


@needs_root
def test_a_bots_hub_socket_folder_is_its_own(tmp_path) -> None:
    from arena.procs.hub import Hub
    from arena.procs.pool import BotPool
    from tests.arena.conftest import bundled

    hub = Hub()
    try:
        with BotPool(hub, log_dir=tmp_path / "logs") as pool:
            a, b = pool.get([("a", bundled("random")), ("b", bundled("random"))])
            assert a.user is not None and a.user > identity.USER_BASE and b.user != a.user
            for proc, label in ((a, "a"), (b, "b")):
                folder = Path(hub.endpoint_of(label)[len("ipc://") :]).parent
                info = folder.stat()
                assert (info.st_uid, info.st_mode & 0o777) == (proc.user, 0o700), (
                    "only its own user reaches its socket"
                )
            assert Path(hub.folder).stat().st_mode & 0o777 == 0o711, "passable, not listable"
            assert (tmp_path / "logs" / "random").stat().st_mode & 0o777 == 0o700
    finally:
        hub.close()


@needs_root
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("jobs", [1, 2])
def test_a_bot_cannot_reach_the_arenas_secrets(private, monkeypatch, mode, jobs) -> None:
    keys = private / "arena.keys"
    keys.write_text("secret")
    keys.chmod(0o600)
    old = private / "arena-logs" / "first" / "old.log"  # another bot's hand, last run
    old.parent.mkdir(parents=True)
    old.write_text("my hand")
    for name, value in (
        ("DB", private / "arena.db"),
        ("KEYS", keys),
        ("LOGS", private / "arena-logs"),
        ("REFEREE", os.getpid()),
    ):
        monkeypatch.setenv(f"ARENA_BOT_{name}", str(value))
    before = (private / "arena.db").read_bytes() if (private / "arena.db").exists() else b""
    outcome = run_with_rogue(private, rogue("escape"), sandbox=mode, limits=SLOW_START, jobs=jobs)
    assert_finished(outcome)
    assert outcome.kinds == [[]] * GAMES_WITH_ROGUE
    found = logged(outcome, "escape")
    # sandboxed, none of it exists for the bot; unsandboxed, its uid may not open it
    denied = "FileNotFoundError" if mode == "required" else "PermissionError"
    assert [found[k] for k in ("db_read", "db_write", "keys", "logs")] == [denied] * 4
    assert found["log_read"] == "0/0"
    assert found["referee"] == ("ProcessLookupError" if mode == "required" else "PermissionError")
    assert found["environ"] == "0" and found["signalled"] == "0"
    assert before == b"" or (private / "arena.db").read_bytes()[:16] == before[:16]


@needs_bwrap
def test_a_command_naming_a_private_file_is_refused(private) -> None:
    hand = private / "arena-logs" / "first" / "seat0.log"
    hand.parent.mkdir(parents=True)
    hand.write_text("my hand")
    spec = BotSpec(name="rogue", argv=(*rogue("hang").argv, str(hand)))
    outcome = run_with_rogue(private, spec, sandbox="required")
    assert_finished(outcome)
    assert outcome.kinds == [["crash"]] * GAMES_WITH_ROGUE
    assert all("which is private to the arena" in d for d in outcome.details())


@needs_root
@needs_memory_cgroup
@pytest.mark.parametrize("mode", MODES)
def test_a_forked_tree_is_bounded_by_memory(tmp_path, monkeypatch, mode) -> None:
    # five children of 150 MB each, every one under RLIMIT_AS; the tree may hold 384 MB
    monkeypatch.setenv("ARENA_BOT_CHILDREN", "5")
    monkeypatch.setenv("ARENA_BOT_CHILD_MB", "150")
    limits = dataclasses.replace(LIMITS, memory_mb=384, startup_ms=30_000)
    outcome = run_with_rogue(tmp_path, rogue("forkhog"), sandbox=mode, limits=limits)
    assert_finished(outcome, seconds=60)
    found = logged(outcome, "forkhog")
    assert int(found["held"]) <= 2 and int(found["killed"]) >= 3, found
    assert outcome.kinds == [[]] * GAMES_WITH_ROGUE, "the bot itself goes on playing"


@needs_root
@pytest.mark.parametrize("mode", MODES)
def test_what_a_bot_writes_is_bounded_and_removed(tmp_path, monkeypatch, mode) -> None:
    marker = f"arena-filler-{uuid.uuid4().hex[:12]}"
    monkeypatch.setenv("ARENA_BOT_MARKER", marker)
    monkeypatch.setenv("ARENA_BOT_MB", "100")
    outcome = run_with_rogue(tmp_path, rogue("filler"), sandbox=mode, limits=SLOW_START)
    assert_finished(outcome, seconds=120)  # each phase's processes are new: each one writes
    found = logged(outcome, "filler")
    cap = 64  # MB: the sandbox's /tmp and /dev/shm, or RLIMIT_FSIZE per file without it
    for place, result in found.items():
        if "/" in result:
            assert int(result.split("/")[0]) <= cap, (place, result)
    if mode == "required":
        assert found["var_tmp"] == "FileNotFoundError", "nothing else is writable"
    left = [entry for place in PLACES for entry in Path(place).glob(f"{marker}*")]
    assert left == [], "everything it wrote is gone"
    segments = [line.split()[1] for line in Path("/proc/sysvipc/shm").read_text().splitlines()[1:]]
    assert found["ipc"].isdigit(), found
    if mode == "off":  # in the sandbox, its own IPC namespace holds it (and goes with it)
        assert found["ipc"] not in segments, "its shared memory segment is removed"


@pytest.mark.parametrize(
    "guard",
    [
        pytest.param("user", marks=needs_root, id="bot-user"),
        pytest.param("pid-namespace", marks=needs_bwrap, id="pid-namespace"),
    ],
)
def test_detached_grandchildren_die_without_cgroups(tmp_path, monkeypatch, guard) -> None:
    """Without any cgroup, a setsid + double-forked grandchild (reparented to init) dies with
    the bot: by its uid (as root) or with the sandbox's pid namespace."""
    monkeypatch.setattr(proclimits, "cgroup_base", lambda: None)
    monkeypatch.setattr(proclimits, "memory_base", lambda: None)
    marker = f"rogue-forker-{uuid.uuid4().hex}"
    monkeypatch.setenv("ARENA_BOT_MARKER", marker)
    outcome = run_with_rogue(
        tmp_path, rogue("forker"), sandbox="off" if guard == "user" else "required"
    )
    assert_finished(outcome)
    assert outcome.kinds == [[]] * GAMES_WITH_ROGUE
    assert survivors(marker) == [], "no child of the bot outlives it"


@needs_bwrap
@needs_memory_cgroup
def test_empty_files_in_the_sandbox_are_bounded_by_the_memory_cgroup(tmp_path, monkeypatch) -> None:
    """Empty files cost no /tmp bytes but kernel memory (inodes, dentries): the memory cgroup
    counts it, and the bot is killed at its limit long before two million files."""
    monkeypatch.setenv("ARENA_BOT_MB", "0")
    monkeypatch.setenv("ARENA_BOT_FILES", "2000000")
    limits = dataclasses.replace(LIMITS, memory_mb=160, startup_ms=60_000)
    outcome = run_with_rogue(tmp_path, rogue("filler"), sandbox="required", limits=limits)
    assert_finished(outcome, seconds=120)
    assert outcome.kinds == [["crash"]] * GAMES_WITH_ROGUE
    assert all("killed by SIGKILL" in detail for detail in outcome.details())


@needs_root
def test_a_bots_own_socket_folder_is_given_to_its_uid() -> None:
    """With a hub socket folder per bot (``ChildPlan.own_ipc``), the child gives it to its own
    uid before it runs the bot: the bot can connect, nobody else can enter."""
    import socket
    import subprocess
    import sys
    import tempfile

    from arena.procs import reach
    from arena.procs import sandbox as sandboxing

    folder = Path(tempfile.mkdtemp(prefix="arena-ipc-"))
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(folder / "bot.sock"))
        server.listen(1)
        (folder / "bot.sock").chmod(0o666)  # as the hub's doors make it: the folder guards it
        plan = proclimits.ChildPlan(
            view=reach.plan(sandboxing.needed_paths()), user=True, own_ipc=str(folder)
        )
        code = (
            "import os, socket, sys; socket.socket(socket.AF_UNIX).connect(sys.argv[1]); "
            "print(os.getuid(), os.stat(os.path.dirname(sys.argv[1])).st_uid)"
        )
        result = subprocess.run(
            [sys.executable, "-c", code, str(folder / "bot.sock")],
            preexec_fn=proclimits.child_setup(plan),
            capture_output=True,
            text=True,
            timeout=60,
        )
        uid, owner = result.stdout.split()
        assert uid == owner and int(uid) > identity.USER_BASE, result.stderr
        assert folder.stat().st_mode & 0o777 == 0o700
    finally:
        server.close()
        shutil.rmtree(folder, ignore_errors=True)


@needs_root
def test_what_a_dead_bot_left_under_its_uid_is_killed_and_nothing_else() -> None:
    """Before a child takes its uid it kills what a dead bot of that uid (an earlier first
    process with the same pid) left running (``identity.kill_as_user``: ``kill(-1)`` as that
    uid): the leftovers die, another uid's process and the arena's own live on, and the child
    is root again afterwards."""
    import signal
    import subprocess
    import sys

    uid = identity.USER_BASE + identity.PID_LIMIT + 7  # past the bots' range: none has it
    left = subprocess.Popen(["sleep", "60"], user=uid, group=uid)
    other = subprocess.Popen(["sleep", "60"], user=uid + 1, group=uid + 1)
    own = subprocess.Popen(["sleep", "60"])
    try:
        code = (
            "import os; from arena.procs import identity; "
            f"identity.kill_as_user({uid}); print(*os.getresuid())"
        )
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0 and done.stdout.split() == ["0", "0", "0"], done.stderr
        assert left.wait(timeout=30) == -signal.SIGKILL
        assert other.poll() is None and own.poll() is None
    finally:
        for proc in (left, other, own):
            proc.kill()
            proc.wait()


@needs_root
def test_without_a_mount_namespace_an_unreachable_python_is_a_clear_error(
    tmp_path, monkeypatch
) -> None:
    from arena.errors import BotStartError
    from arena.procs import reach
    from arena.procs import sandbox as sandboxing
    from arena.procs.hub import Hub
    from arena.procs.pool import BotPool
    from tests.arena.conftest import bundled

    if not reach.plan(sandboxing.needed_paths()):
        pytest.skip("the Python installation is reachable by any user here")
    monkeypatch.setattr(reach, "problem", lambda: "no mount namespace (test)")
    hub = Hub()
    try:
        with BotPool(hub, log_dir=tmp_path / "logs") as pool:
            with pytest.raises(BotStartError, match="make those folders searchable by others"):
                pool.get([("a", bundled("random"))])
    finally:
        hub.close()
