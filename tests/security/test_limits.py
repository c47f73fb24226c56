"""The pieces under the rogue tests: sandbox command lines and modes, capped logs, the process
watchdog, and the per-game time bank (the hub's doors: ``test_hub.py``)."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from arena.errors import SandboxError
from arena.procs import limits as proclimits
from arena.procs import memview
from arena.procs import sandbox as sandboxing
from arena.procs.botproc import bot_environment, describe_exit
from arena.procs.limits import Limits
from arena.procs.logs import CappedLog, bot_logs, log_path, read_log
from arena.procs.pool import BotPool
from arena.procs.sandbox import Sandbox
from arena.referee import driver
from arena.referee.game import GameSetup
from arena.referee.record import Chooser, FaultKind
from arena.referee.seats import ProcessSeat
from arena.text import safe_name
from tests.arena.conftest import bundled, rogue
from tests.security.conftest import survivors

# -- sandbox -------------------------------------------------------------------------------


def binds(argv: list[str]) -> dict[str, str]:
    """What a bwrap command line binds read-only: target -> source."""
    return {argv[i + 2]: argv[i + 1] for i, arg in enumerate(argv) if arg == "--ro-bind"}


def test_sandbox_command_shows_a_memory_view_without_private_paths(tmp_path) -> None:
    secret = tmp_path / "secret"
    (secret / "inner").mkdir(parents=True)
    (secret / "inner" / "key").write_text("k")
    own = secret / "bot"  # a folder bot inside a hidden folder still sees its own
    own.mkdir()
    (own / "bot.py").write_text("pass\n")
    (tmp_path / "bot.py").write_text("pass\n")
    db = tmp_path / "arena.db"
    db.write_bytes(b"")
    box = Sandbox(bwrap="bwrap").hiding([secret, secret / "inner", db, "/nonexistent"])
    # the command names its working folder ("."): shown, without the private paths in it
    argv = box.wrap(
        ["python", "bot.py", "."], cwd=str(tmp_path), ipc_dir=str(tmp_path / "ipc"), own=str(own)
    ).argv
    text = " ".join(argv)
    assert argv[0] == "bwrap" and argv[-4:] == ["--", "python", "bot.py", "."]
    for flag in (
        "--unshare-net",
        "--unshare-pid",
        "--die-with-parent",
        "--new-session",
        "--unshare-user",
        "--disable-userns",
    ):
        assert flag in argv
    bound = binds(argv)
    assert "/" not in bound, "an allow-list, not the whole file system"
    view = bound["/usr"][: -len("/usr")]
    assert memview.problem(view) is None, "every file it reads is in memory"
    assert all(
        source.startswith(view) for target, source in bound.items() if target != "/run/arena"
    )
    assert bound["/run/arena"] == str(tmp_path / "ipc"), "its hub socket's folder"
    assert bound[str(tmp_path)] == view + str(tmp_path), "a folder its command names"
    assert "--tmpfs /tmp" in text and "--remount-ro / " in text, "nothing else writable"
    shown = Path(view + str(tmp_path))
    assert (shown / "bot.py").read_text() == "pass\n"
    assert Path(view + "/bot/bot.py").is_file(), "its own folder, where it always is"
    assert not (shown / "arena.db").exists() and not (shown / "secret").exists()
    assert not Path(view + "/nonexistent").exists()
    assert not (shown / "bot.py").stat().st_mode & 0o222, "read-only"
    assert Path("/usr/bin/sh").exists() and not Path(view + "/usr/bin/sh").exists(), (
        "its runtime, not all of /usr"
    )
    assert f"--chdir {tmp_path}" in text
    in_own = box.wrap(
        ["python", str(own / "bot.py")], cwd=str(own), ipc_dir="/tmp/x", own=str(own)
    ).argv
    assert in_own[-3:] == ["--", "python", "/bot/bot.py"] and "--chdir /bot" in " ".join(in_own)


def test_sandbox_refuses_a_command_naming_a_private_file(tmp_path) -> None:
    logs = tmp_path / "arena-logs"
    (logs / "other").mkdir(parents=True)
    (logs / "other" / "seat0.log").write_text("my hand")
    box = Sandbox(bwrap="bwrap").hiding([logs])
    with pytest.raises(SandboxError, match="names .*seat0.log, which is private"):
        box.wrap(["cat", str(logs / "other" / "seat0.log")], cwd="/", ipc_dir=str(tmp_path))
    with pytest.raises(SandboxError, match="private"):
        box.wrap(["python", "bot.py", str(logs)], cwd="/", ipc_dir=str(tmp_path))


def test_sandbox_refuses_a_link_to_a_private_folder(tmp_path) -> None:
    logs = tmp_path / "arena-logs"
    logs.mkdir()
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot" / "view").symlink_to(logs)
    box = Sandbox(bwrap="bwrap").hiding([logs])
    with pytest.raises(SandboxError, match="arena-logs, which is private"):
        box.wrap(["python", "bot.py", "view"], cwd=str(tmp_path / "bot"), ipc_dir="/tmp/x")


def test_sandbox_shows_a_working_folder_it_does_not_name_empty(tmp_path) -> None:
    argv = (
        Sandbox(bwrap="bwrap")
        .wrap(["python", "-m", "bots.random"], cwd=str(tmp_path), ipc_dir="/tmp/ipc")
        .argv
    )
    text = " ".join(argv)
    assert f"--ro-bind {tmp_path} " not in text and f"--dir {tmp_path} " in text
    assert f"--chdir {tmp_path} " in text


def test_sandbox_hides_the_database_files_when_its_folder_is_needed(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    paths = sandboxing.private_paths(tmp_path / "arena.db", tmp_path / "arena-logs")
    assert str(tmp_path) not in paths, "the current folder stays visible"
    assert str(tmp_path / "arena.db") in paths and str(tmp_path / "arena.db-wal") in paths
    elsewhere = tmp_path / "data"
    paths = sandboxing.private_paths(elsewhere / "arena.db", elsewhere / "arena-logs")
    assert str(elsewhere) in paths, "a folder of its own is hidden whole"


def fake_bwrap(folder: Path, *, works: bool) -> Path:
    """A ``bwrap`` on PATH that works, or fails like one denied user namespaces."""
    folder.mkdir(exist_ok=True)
    script = folder / "bwrap"
    body = (
        'exec "${@: -1}"'
        if works
        else 'echo "bwrap: No permissions to create new namespace" >&2; exit 1'
    )
    script.write_text(f"#!/bin/bash\n{body}\n")
    script.chmod(0o755)
    return script


@pytest.mark.parametrize("installed", [False, True], ids=["missing", "not-working"])
def test_required_sandbox_refuses_without_a_working_bwrap(tmp_path, monkeypatch, installed) -> None:
    if installed:
        fake_bwrap(tmp_path / f"bin-{uuid.uuid4().hex}", works=False)
    monkeypatch.setenv("PATH", str(next(tmp_path.glob("bin-*"), tmp_path / "none")))
    with pytest.raises(SandboxError, match="--sandbox required, but .*bubblewrap|namespace"):
        sandboxing.resolve("required")


def test_auto_sandbox_warns_once_and_runs_unsandboxed(tmp_path, monkeypatch, caplog) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(sandboxing, "_warned", False)
    with caplog.at_level(logging.WARNING, logger="arena.procs.sandbox"):
        assert sandboxing.resolve("auto") is None
        assert sandboxing.resolve("auto") is None
    warnings = [r.getMessage() for r in caplog.records if "UNSANDBOXED" in r.getMessage()]
    assert len(warnings) == 1
    if os.geteuid() == 0:
        assert (
            "bots run as separate unprivileged users: they cannot read the database" in warnings[0]
        )
    else:
        assert "bots run as you and can read your files, including the database" in warnings[0]
    assert sandboxing.resolve("off") is None


def test_no_unsandboxed_warning_when_only_remote_bots_run(tmp_path, monkeypatch, caplog) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(sandboxing, "_warned", False)
    with caplog.at_level(logging.WARNING, logger="arena.procs.sandbox"):
        assert sandboxing.resolve("auto", local=False) is None
    assert not [r for r in caplog.records if "UNSANDBOXED" in r.getMessage()]


def test_private_files_lose_group_and_other_permissions(tmp_path, caplog) -> None:
    from arena.procs.identity import protect_arena_files

    db, logs = tmp_path / "arena.db", tmp_path / "arena-logs"
    db.write_bytes(b"")
    db.chmod(0o644)
    logs.mkdir(mode=0o755)
    tmp_path.chmod(0o777)
    with caplog.at_level(logging.WARNING, logger="arena.procs.identity"):
        protect_arena_files(db, logs)
    assert db.stat().st_mode & 0o777 == 0o600 and logs.stat().st_mode & 0o777 == 0o700
    assert "is writable by other users" in caplog.text
    tmp_path.chmod(0o700)


# -- logs ----------------------------------------------------------------------------------


def test_capped_log_keeps_the_head_and_drains_the_rest(tmp_path) -> None:
    path = log_path(tmp_path, "some bot/../x", "seat0:a b")
    assert path.parent.name == safe_name("some bot/../x") and ".." not in path.parts
    output = CappedLog(path, cap=1000)
    writer = subprocess.Popen(
        [sys.executable, "-c", "import os\nfor _ in range(200): os.write(1, b'y' * 65536)"],
        stdout=output.write_fd,
    )
    output.start()
    assert writer.wait(timeout=20) == 0, "the writer never blocks"
    assert output.wait(5)
    data = path.read_bytes()
    lines = list(read_log(path))
    kept = "".join(line.text for line in lines if not line.note)
    assert set(kept) == {"y"} and len(data.split(b"\n")[-2]) < 200, "the head, then the note"
    assert len(data) - len(data.split(b"\n")[-2]) - 1 <= 1000, "the cap holds, stamps included"
    assert f"discarded: {200 * 65536 - len(kept)} bytes".encode() in data
    assert lines[-1].note and lines[-1].at
    assert bot_logs(tmp_path, "some bot/../x") == [path]
    again = CappedLog(path, cap=1000)  # a full log is kept as .1 for the next process...
    assert path.exists() and not path.with_name(path.name + ".1").exists(), "...once it runs"
    again.start()  # (a warm start's log starts when it is released: the last writer is gone)
    assert again.wait(5)
    assert path.with_name(path.name + ".1").read_bytes() == data and path.read_bytes() == b""


def test_each_line_keeps_the_step_it_was_written_at_while_the_drain_thread_reads(
    tmp_path, monkeypatch
) -> None:
    """A line in the pipe before the referee sends the next turn is of the turn before, even
    when the drain thread has just read it and not yet written it (the race CI once met; a
    slow disk here makes it likely)."""
    take = CappedLog._take

    def slow_take(self: CappedLog, data: bytes) -> None:
        if threading.current_thread() is not threading.main_thread():
            time.sleep(0.002)
        take(self, data)

    monkeypatch.setattr(CappedLog, "_take", slow_take)
    output = CappedLog(tmp_path / "a.log", cap=0)
    ask_r, ask_w = os.pipe()
    ack_r, ack_w = os.pipe()
    writer = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import os, sys\n"
            f"ask, ack = os.fdopen({ask_r}, 'rb', 0), {ack_w}\n"
            "while (k := ask.read(4)):\n"
            "    os.write(1, b'line %d\\n' % int.from_bytes(k, 'big'))\n"
            "    os.write(ack, b'.')\n",
        ],
        stdout=output.write_fd,
        pass_fds=(ask_r, ack_w),
    )
    os.close(ask_r)
    os.close(ack_w)
    output.start()
    output.open_game(1, 0, alone=True)
    turns = 300
    for step in range(turns):
        output.turn(1, step)
        os.write(ask_w, step.to_bytes(4, "big"))
        assert os.read(ack_r, 1) == b"."  # the line is in the pipe: the answer has come
    os.close(ask_w)
    assert writer.wait(timeout=20) == 0 and output.wait(5)
    os.close(ack_r)
    lines = [line for line in read_log(tmp_path / "a.log") if not line.note]
    assert len(lines) == turns
    wrong = [(line.step, line.text) for line in lines if line.text != f"line {line.step}"]
    assert not wrong, wrong[:5]


# -- processes -----------------------------------------------------------------------------


def test_environment_passes_nothing_secret(monkeypatch) -> None:
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "x")
    monkeypatch.setenv("ARENA_DB", "/secret/arena.db")
    monkeypatch.setenv("ARENA_BOT_LEVEL", "3")
    env = bot_environment("ipc:///x", "tok", "/tmp")
    assert "AWS_SECRET_ACCESS_KEY" not in env and "ARENA_DB" not in env
    assert env["ARENA_BOT_LEVEL"] == "3" and env["ARENA_TOKEN"] == "tok"
    assert env["TMPDIR"] == "/tmp" and "PATH" in env


def test_exit_statuses_in_words() -> None:
    assert describe_exit(3) == "exited with status 3"
    assert describe_exit(-9) == "killed by SIGKILL"
    assert describe_exit(152, sandboxed=True) == "killed by SIGXCPU"


def test_watchdog_kills_a_bot_over_its_process_limit(hub, tmp_path, monkeypatch) -> None:
    """Where no pids cgroup can be made, the watchdog counts and kills."""
    marker = f"watchdog-{uuid.uuid4().hex}"
    monkeypatch.setenv("ARENA_BOT_MARKER", marker)
    monkeypatch.setenv("ARENA_BOT_FORKS", "12")
    monkeypatch.setattr(proclimits, "cgroup_base", lambda: None)
    limits = Limits(max_procs=6, startup_ms=5000)
    with BotPool(hub, limits=limits, log_dir=tmp_path) as pool:
        proc = pool.get([("bomb", rogue("forkbomb"))])[0]
        deadline = time.monotonic() + 5
        while proc.alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not proc.alive()
        assert "over its limit of 6 processes" in proc.exit_summary()
    time.sleep(0.2)
    assert survivors(marker) == []


def test_cgroup_bounds_processes(hub, tmp_path, monkeypatch) -> None:
    if proclimits.cgroup_base() is None:
        pytest.skip("no writable pids cgroup here")
    with BotPool(hub, limits=Limits(max_procs=20), log_dir=tmp_path) as pool:
        proc = pool.get([("a", bundled("random"))])[0]
        assert proc.cgroup is not None
        assert 1 <= proc.cgroup.count() <= 20
        path = proc.cgroup.path
        assert (path / "pids.max").read_text().strip() == "20"
    assert not path.exists(), "the group is removed with the bot"


# -- time bank -----------------------------------------------------------------------------


def test_time_bank_pays_for_slow_moves_until_it_is_spent(hub, pool, toy, monkeypatch) -> None:
    # each answer takes 1000 ms against a 100 ms deadline: the 2500 ms bank pays ~900 ms for
    # the first and second moves, then the third is allowed 100 ms + what is left (~800 ms)
    # and times out. The margins are hundreds of ms, so a loaded machine (which only makes the
    # bot slower) cannot turn the two paid moves into timeouts or the third into an answer.
    monkeypatch.setenv("ARENA_BOT_DELAY_MS", "1000")
    limits = Limits(move_ms=100, time_bank_ms=2500, max_faults=10)
    procs = pool.get([("slow", rogue("sleepy")), ("first", bundled("first"))])
    record = driver.play(
        GameSetup(toy, [ProcessSeat(hub, proc) for proc in procs], seed=1, options={"rounds": 2}),
        limits,
    )
    seat0 = [a for a in record.actions if a.seat == 0]
    assert [a.by for a in seat0[:2]] == [Chooser.BOT, Chooser.BOT]
    assert all(a.by is Chooser.REFEREE for a in seat0[2:])
    assert [f.kind for f in record.faults] == [FaultKind.TIMEOUT] * (len(seat0) - 2)
    allowed = int(record.faults[0].detail.split()[3])  # 100 ms + what was left in the bank
    assert 200 <= allowed <= 800  # the bank carried over


def test_no_bank_means_the_deadline_alone(hub, pool, toy, monkeypatch) -> None:
    monkeypatch.setenv("ARENA_BOT_DELAY_MS", "300")
    procs = pool.get([("slow", rogue("sleepy")), ("first", bundled("first"))])
    record = driver.play(
        GameSetup(toy, [ProcessSeat(hub, proc) for proc in procs], seed=1, options={"rounds": 1}),
        Limits(move_ms=100, max_faults=10),
    )
    assert all(f.kind is FaultKind.TIMEOUT for f in record.faults)
    # the slow bot's two moves; (on a loaded machine the other may miss 100 ms too)
    assert [f.step for f in record.faults if f.seat == 0] == [0, 2]
