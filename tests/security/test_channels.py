"""Two processes at one table cannot pass each other what they see through the channels that
need no write access: real tournaments, the same bot entered twice at one table.

A channel rogue (``tests/rogues/_channel.py``) at seat 0 sends a secret of its own each game
(through a file lock's position, ``flock`` bits, ``inotify`` events, the page cache of a file
it may only read, a session keyring, a FIFO in its folder); the other entrant, a process of the
same bot at seat 1, listens. Every file the rogue uses is in its own folder, which both
processes may read and none may write. In every sandbox mode the machine offers, nothing gets
through: the system-call filter (``arena.procs.seccomp``) denies the calls, and the sandbox
refuses a bot folder holding a FIFO. Before both, each of these rogues heard the other's secrets.
"""

from __future__ import annotations

import errno
import json
import os
import platform
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.games import get_game
from arena.keys.seeds import new_key
from arena.procs import limits as proclimits
from arena.procs import reach
from arena.procs import sandbox as sandboxing
from arena.procs.botproc import BotSpec
from arena.procs.limits import Limits
from arena.procs.logs import bot_logs, log_texts
from arena.procs.sandbox import SandboxMode
from tests.security.conftest import needs_bwrap
from tournaments.catalogue.bot_sandbox import sandbox_for
from tournaments.plans.schedule import TournamentSpec, plan
from tournaments.run.playing import RunConfig
from tournaments.run.runner import run
from tournaments.store.facts import Store

REPO = Path(__file__).resolve().parent.parent.parent
ROGUES = REPO / "tests" / "rogues"
#: The same bot twice at a table of two: 2 deals x 2 seat rotations.
GAMES = 4
LIMITS = Limits(startup_ms=30_000)
MODES = [
    pytest.param("required", marks=needs_bwrap, id="sandboxed"),
    pytest.param("off", id="unsandboxed"),
]
#: The system-call filter exists for these only (``arena.procs.seccomp``): elsewhere the channels
#: stay open, and ``--sandbox required`` refuses to run.
needs_filter = pytest.mark.skipif(
    platform.machine() not in ("x86_64", "aarch64"), reason="no system-call filter here"
)
PAGES_BYTES = 17 << 18  # the page-cache rogue's 17 places (written: a hole is never read)


def name_of(code: int) -> str:
    return errno.errorcode[code]


@dataclass
class Played:
    """What a tournament of a channel rogue against itself gave."""

    done: int
    faults: list[str]
    sent: list[list[str]]
    heard: list[list[str]]
    listened: list[list[str]]


def bot_folder(root: Path, *, fifo: bool = False) -> Path:
    """The rogue's own folder: ``bit00`` ... ``bit15``, a sparse ``pages`` file and, with
    ``fifo``, a FIFO ``pipe``; readable by every bot user, writable by none."""
    folder = root / "chan"
    folder.mkdir(mode=0o755)
    for i in range(16):
        (folder / f"bit{i:02d}").write_bytes(b"x")
    with open(folder / "pages", "wb") as handle:
        handle.write(os.urandom(PAGES_BYTES))
        handle.flush()
        os.fsync(handle.fileno())  # dirty pages cannot be evicted
    if fifo:
        os.mkfifo(folder / "pipe", 0o666)
        os.chmod(folder / "pipe", 0o666)
    for path in folder.iterdir():
        if path.is_file():
            path.chmod(0o644)
    return folder


def play(root: Path, rogue: str, mode: str, *, fifo: bool = False) -> Played:
    """A tournament of Skull King between two entrants of channel rogue ``rogue``, one game
    at a time."""
    folder = bot_folder(root, fifo=fifo)
    db, log_dir = root / "arena.db", root / "arena-logs"
    spec = TournamentSpec(
        game="skull-king", bots=("chan", "chan"), table_size=2, repetitions=2, seed=7
    )
    bot = BotSpec(name="chan", argv=(sys.executable, str(ROGUES / f"{rogue}.py")), cwd=str(folder))
    with Store.open(db) as store:
        key = new_key()
        tid = store.create_tournament(
            spec,
            plan(spec, get_game(spec.game), key=key),
            {label: (name, "test") for label, name in spec.entrant_bots().items()},
            key=key,
        )
        log_dir.mkdir()
        config = RunConfig(
            game=get_game(spec.game),
            options=spec.options,
            bots=dict.fromkeys(spec.entrant_bots(), bot),
            limits=LIMITS,
            at_once=1,  # one sender at a time: what is heard is that game's secret
            sandbox=sandbox_for(SandboxMode(mode), db),  # as `arena tournament run`
            log_dir=log_dir,
        )
        run(store, tid, config)
        done = store.tournament(tid).games_done
        faults = [
            f"{fault.kind.value}: {fault.detail}"
            for (game_id,) in store.db.execute(
                "SELECT id FROM games WHERE tournament_id = ?", (tid,)
            )
            for fault in store.game(game_id).record.faults
        ]
    lines = [
        line.split()
        for path in bot_logs(log_dir, "chan")
        for line in log_texts(path)
        if line.startswith("chan-")
    ]
    return Played(
        done=done,
        faults=faults,
        sent=[line[1:] for line in lines if line[0] == "chan-sent"],
        heard=[line[1:] for line in lines if line[0] == "chan-heard"],
        listened=[line[1:] for line in lines if line[0] == "chan-listened"],
    )


def assert_nothing_heard(played: Played, *, sent: str, listened: str) -> None:
    """Every game was played, seat 0 tried to send (``sent``: how that went), seat 1 tried to
    listen and was stopped (``listened``: the errno), and no secret got through."""
    assert played.done == GAMES and played.faults == [], played.faults
    assert len(played.sent) == GAMES and len(played.listened) == GAMES, played
    assert played.heard == [], f"secrets got through: {played.heard}"
    assert {status for _, _, status in played.sent} == {sent}
    assert {status for _, status in played.listened} == {listened}


CHANNELS = [
    # rogue, what sending gives, what listening gives
    pytest.param("lockchan", "ENOLCK", "ENOLCK", id="fcntl-lock"),
    pytest.param("flockchan", "ENOLCK", "ENOLCK", id="flock"),
    pytest.param("inotifychan", "ok", "ENOSYS", id="inotify"),
    pytest.param("pagecache", "ok", name_of(errno.EOPNOTSUPP), id="page-cache"),
]


@needs_filter
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("rogue", "sent", "listened"), CHANNELS)
def test_two_entrants_pass_nothing(private, mode, rogue, sent, listened) -> None:
    played = play(private, rogue, mode)
    assert_nothing_heard(played, sent=sent, listened=listened)


@needs_bwrap
def test_a_fifo_in_a_bots_folder_is_refused_in_the_sandbox(private) -> None:
    """A FIFO opens for writing even on a read-only file system: the sandbox refuses to show
    one (the bot does not start, and says why), so nothing is sent or heard."""
    played = play(private, "fifochan", "required", fifo=True)
    assert played.done == GAMES and played.sent == played.heard == [] and played.faults
    assert all("crash" in fault and "holds 'pipe', a FIFO" in fault for fault in played.faults)


CHILD = """
import ctypes, dataclasses, json, platform, sys
from pathlib import Path
if sys.argv[3] == "session":  # KEYCTL_JOIN_SESSION_KEYRING: a new session keyring
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    assert libc.syscall({"x86_64": 250, "aarch64": 219}[platform.machine()], 1, None) > 0
from tests.security.conftest import leave_no_views
from tests.security.test_channels import play
played = play(Path(sys.argv[1]), sys.argv[2], sys.argv[4])
leave_no_views()
print(json.dumps(dataclasses.asdict(played)))
"""


def play_in_child(
    root: Path, rogue: str, mode: str, *, session: bool = False, user: bool = False
) -> Played:
    """``play`` in a child process: in a session keyring of its own (``session``), or as an
    unprivileged uid of its own that owns ``root`` (``user``: an ordinary user's arena)."""
    setup = None
    if user:
        view = reach.plan([*sandboxing.needed_paths(), str(REPO)])
        plan = proclimits.ChildPlan(view=view, user=True, scratch=str(root))
        setup = proclimits.child_setup(plan)
    result = subprocess.run(
        [sys.executable, "-c", CHILD, str(root), rogue, "session" if session else "-", mode],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO), "TMPDIR": "/tmp", "HOME": str(root)},
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=setup,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return Played(**json.loads(result.stdout.strip().splitlines()[-1]))


@needs_filter
@pytest.mark.parametrize("mode", MODES)
def test_a_session_keyring_passes_nothing(private, mode) -> None:
    """An arena started from a login session (or a service) has a session keyring, which every
    bot inherits, whatever its uid and sandboxed or not."""
    played = play_in_child(private, "keyring", mode, session=True)
    assert_nothing_heard(played, sent="ENOSYS", listened="ENOSYS")


@needs_filter
@pytest.mark.skipif(os.geteuid() != 0, reason="setting up an unprivileged arena needs root")
@pytest.mark.parametrize("mode", MODES)
def test_an_ordinary_users_bots_pass_nothing_through_locks(private, mode) -> None:
    """An arena run by an ordinary user: its bots share its uid, and the filter holds still."""
    played = play_in_child(private, "lockchan", mode, user=True)
    assert_nothing_heard(played, sent="ENOLCK", listened="ENOLCK")
