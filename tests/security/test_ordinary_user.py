"""The arena run by an ordinary (non-root) user: what the sandbox keeps, and what it is for.

A real tournament runs in a child process that, like a bot, has become an unprivileged uid of
its own (so this needs root to set up). An ordinary user cannot give bots other uids: in the
sandbox the escape rogue finds nothing; unsandboxed it runs as the arena's user and reads the
database and may signal the referee — which is what the documentation and the warning say.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from arena.procs import identity, reach
from arena.procs import limits as proclimits
from arena.procs import sandbox as sandboxing
from tests.security.conftest import needs_bwrap

REPO = Path(__file__).resolve().parent.parent.parent
SCRIPT = """
import dataclasses, json, os, sys
from pathlib import Path
from tests.security.conftest import LIMITS, leave_no_views, rogue, run_with_rogue
folder, mode, name = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
for key, value in (("DB", folder / "arena.db"), ("KEYS", folder / "arena.keys"),
                   ("LOGS", folder / "arena-logs"), ("REFEREE", os.getpid())):
    os.environ[f"ARENA_BOT_{key}"] = str(value)
(folder / "arena.keys").write_text("secret")
limits = dataclasses.replace(LIMITS, startup_ms=30_000)
outcome = run_with_rogue(folder, rogue(name), sandbox=mode, limits=limits)
leave_no_views()
print(json.dumps({"uid": os.getuid(), "kinds": outcome.kinds, "others": len(outcome.other_faults),
                  "done": outcome.done, "log": outcome.log()}))
"""


def as_ordinary_user(folder: Path, mode: str, name: str = "escape") -> dict:
    """Run a tournament with rogue ``name`` as an unprivileged uid that owns ``folder``."""
    plan = proclimits.ChildPlan(
        view=reach.plan([*sandboxing.needed_paths(), str(REPO)]), user=True, scratch=str(folder)
    )
    env = {**os.environ, "PYTHONPATH": str(REPO), "TMPDIR": "/tmp", "HOME": str(folder)}
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(folder), mode, name],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=proclimits.child_setup(plan),
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def escape_line(found: dict, name: str = "escape") -> dict[str, str]:
    line = next(x for x in found["log"].splitlines() if x.startswith(f"{name}: "))
    return dict(item.split("=", 1) for item in line[len(name) + 2 :].split())


pytestmark = pytest.mark.skipif(
    os.geteuid() != 0, reason="setting up an unprivileged arena needs root"
)


@needs_bwrap
def test_an_ordinary_users_sandbox_hides_the_arenas_secrets(private) -> None:
    found = as_ordinary_user(private, "required")
    assert found["uid"] != 0 and found["done"] == 6 and found["others"] == 0
    assert found["kinds"] == [[]] * 4
    escape = escape_line(found)
    assert [escape[k] for k in ("db_read", "db_write", "keys", "logs", "referee")] == [
        "FileNotFoundError"
    ] * 4 + ["ProcessLookupError"]
    assert escape["environ"] == escape["signalled"] == "0"


def test_an_ordinary_users_unsandboxed_bots_run_as_that_user(private) -> None:
    found = as_ordinary_user(private, "off")
    assert found["uid"] != 0 and found["done"] == 6 and found["others"] == 0
    escape = escape_line(found)
    # what docs/security.md and the warning say: the bot reads the database and the keys, and
    # may signal the referee; only other users' processes and files are out of its reach
    assert escape["db_read"] == "read" and escape["keys"] == "read"
    assert escape["referee"] == "signalled"


@needs_bwrap
def test_an_ordinary_users_sandboxed_bot_has_no_privileges(private) -> None:
    found = as_ordinary_user(private, "required", "caps")
    caps = escape_line(found, "caps")
    assert found["kinds"] == [[]] * 4
    assert int(caps["uid"]) == found["uid"], "the arena's own user"
    assert int(caps["capeff"], 16) == 0
    assert caps["mount"] == caps["remount"] == "EPERM" and caps["userns"] != "ok"


def test_an_ordinary_users_unsandboxed_files_are_bounded_one_by_one(private, monkeypatch) -> None:
    """Each file is bounded (RLIMIT_FSIZE, 64 MB); the total is not, and the files outside its
    scratch folder and its System V shared memory stay after the run (an ordinary user cannot
    tell them from its own)."""
    marker = f"arena-filler-{uuid.uuid4().hex[:12]}"
    monkeypatch.setenv("ARENA_BOT_MARKER", marker)
    monkeypatch.setenv("ARENA_BOT_MB", "100")
    ran = {}
    try:
        ran = as_ordinary_user(private, "off", "filler")
        found = escape_line(ran, "filler")
        left = [
            entry
            for place in ("/tmp", "/var/tmp", "/dev/shm")
            for entry in Path(place).glob(f"{marker}*")
        ]
        segments = [
            line.split()[1] for line in Path("/proc/sysvipc/shm").read_text().splitlines()[1:]
        ]
    finally:
        if ran:
            identity.remove_ipc_of(ran["uid"])
        for place in ("/tmp", "/var/tmp", "/dev/shm"):
            for entry in Path(place).glob(f"{marker}*"):
                shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
    assert found.pop("ipc") in segments, "its System V shared memory stays too"
    assert found == {"tmpdir": "64/2000", "tmp": "64/2000", "var_tmp": "64/2000", "shm": "64/2000"}
    assert left, "what it wrote outside its scratch folder stays"
