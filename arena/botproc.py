"""Bot processes: resolving a bot spec, spawning, the hello handshake, pooling and killing.

A bot process is started once and serves game after game; a process that died is replaced the
next time it is needed. Each process runs in its own session (process group), so killing it
also kills the children it started.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import pkgutil
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from arena.errors import BotStartError
from arena.hub import Hub, Peer
from arena.lifetime import die_with_parent

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class BotSpec:
    """How to run a bot: a display name, the command line and an optional working folder."""

    name: str
    argv: tuple[str, ...]
    cwd: str | None = None
    bundled: bool = False


def bundled_bots() -> dict[str, tuple[str, ...]]:
    """Bundled bot names with the games each plays (``("*",)`` for any game)."""
    import bots

    found: dict[str, tuple[str, ...]] = {}
    for info in pkgutil.iter_modules(bots.__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"bots.{info.name}")
        found[info.name] = tuple(getattr(module, "GAMES", ("*",)))
    return found


def plays(games: Sequence[str], game: str) -> bool:
    return "*" in games or game in games


def resolve_spec(text: str, *, registered: Mapping[str, BotSpec] | None = None) -> BotSpec:
    """A bot spec from the CLI: a bundled bot's name, a registered bot, or a command line."""
    text = text.strip()
    if not text:
        raise BotStartError("an empty bot spec")
    if registered and text in registered:
        return registered[text]
    if text.isidentifier():
        if importlib.util.find_spec(f"bots.{text}") is not None:
            return BotSpec(name=text, argv=(sys.executable, "-m", f"bots.{text}"), bundled=True)
        if not (registered and text in registered):
            known = ", ".join(sorted(bundled_bots()))
            raise BotStartError(f"no bundled or registered bot {text!r} (bundled: {known}); "
                                "give a command line to run a program")
    try:
        argv = tuple(shlex.split(text))
    except ValueError as exc:
        raise BotStartError(f"cannot parse bot command {text!r}: {exc}") from None
    return BotSpec(name=Path(argv[0]).name if len(argv) == 1 else text[:40], argv=argv)


@dataclass
class BotProcess:
    """One running bot process and its peer on the hub."""

    label: str
    spec: BotSpec
    popen: subprocess.Popen
    log_path: Path
    peer: Peer | None = None
    started_at: float = field(default_factory=time.monotonic)

    def alive(self) -> bool:
        return self.popen.poll() is None

    def exit_summary(self) -> str:
        code = self.popen.poll()
        tail = read_tail(self.log_path, 400)
        status = "still running" if code is None else describe_exit(code)
        return f"{status}" + (f"; last output: {tail}" if tail else "")


def describe_exit(code: int) -> str:
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exited with status {code}"


def read_tail(path: Path, limit: int) -> str:
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - limit))
            data = handle.read().decode("utf-8", "replace")
    except OSError:
        return ""
    return " | ".join(line.strip() for line in data.strip().splitlines()[-3:])


def spawn(spec: BotSpec, hub: Hub, label: str, *, log_dir: Path) -> BotProcess:
    """Start the process for ``label`` with its endpoint and a fresh token."""
    token = hub.issue_token(label)
    env = dict(os.environ)
    env.update(ARENA_ENDPOINT=hub.endpoint, ARENA_TOKEN=token, PYTHONUNBUFFERED="1")
    log_dir.mkdir(parents=True, exist_ok=True)
    safe = "".join(ch if ch.isalnum() or ch in "-_#." else "_" for ch in label)
    log_path = log_dir / f"{safe}.log"
    with open(log_path, "ab") as output:
        try:
            popen = subprocess.Popen(
                list(spec.argv), env=env, cwd=spec.cwd, stdin=subprocess.DEVNULL,
                stdout=output, stderr=subprocess.STDOUT, start_new_session=True,
                preexec_fn=die_with_parent,
            )
        except OSError as exc:
            raise BotStartError(f"bot {spec.name!r} could not be started: {exc.strerror}: "
                                f"{spec.argv[0]}") from None
    return BotProcess(label=label, spec=spec, popen=popen, log_path=log_path)


def await_hellos(hub: Hub, procs: Iterable[BotProcess], *, timeout_ms: int) -> None:
    """Wait until every process has said hello; raise BotStartError naming the first failure."""
    waiting = {proc.label: proc for proc in procs if proc.peer is None}
    deadline = time.monotonic() + timeout_ms / 1000.0
    while waiting:
        for label, proc in list(waiting.items()):
            peer = hub.by_label.get(label)
            if peer is not None:
                proc.peer = peer
                del waiting[label]
                continue
            reason = hub.rejection(label)
            if reason is not None:
                raise BotStartError(f"bot {proc.spec.name!r} was refused: {reason}")
            if not proc.alive():
                time.sleep(0.02)
                if hub.by_label.get(label) is None:
                    hub.receive(0)
                if hub.by_label.get(label) is None:
                    raise BotStartError(f"bot {proc.spec.name!r} stopped before saying hello "
                                        f"({proc.exit_summary()})")
        if not waiting:
            return
        if time.monotonic() > deadline:
            proc = next(iter(waiting.values()))
            raise BotStartError(f"bot {proc.spec.name!r} did not say hello within "
                                f"{timeout_ms} ms")
        hub.receive(20)  # hellos are handled inside; stray messages are dropped


def stop(procs: Iterable[BotProcess], hub: Hub | None = None, *, grace_s: float = 0.5) -> None:
    """Say bye, give the processes a moment, then kill their whole process groups."""
    procs = list(procs)
    for proc in procs:
        if hub is not None and proc.peer is not None and proc.alive():
            hub.send(proc.peer, {"type": "bye"})
    deadline = time.monotonic() + grace_s
    for proc in procs:
        remaining = deadline - time.monotonic()
        try:
            proc.popen.wait(timeout=max(0.0, remaining))
        except subprocess.TimeoutExpired:
            pass
        kill_group(proc.popen)
        if hub is not None:
            hub.revoke(proc.label)


def kill_group(popen: subprocess.Popen) -> None:
    """Kill the process and everything in its process group."""
    try:
        os.killpg(popen.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        popen.wait(timeout=2)
    except subprocess.TimeoutExpired:
        log.warning("process %s did not die after SIGKILL", popen.pid)


class BotPool:
    """Keeps one process per label alive across games; replaces dead ones on demand."""

    def __init__(self, hub: Hub, *, startup_ms: int = 10_000,
                 log_dir: Path | None = None) -> None:
        self.hub = hub
        self.startup_ms = startup_ms
        self.log_dir = log_dir or Path(tempfile.gettempdir()) / f"arena-logs-{os.getpid()}"
        self.procs: dict[str, BotProcess] = {}
        self.started = 0

    def get(self, entries: Sequence[tuple[str, BotSpec]]) -> list[BotProcess]:
        """Live processes for ``(label, spec)`` entries, starting or replacing as needed."""
        fresh: list[BotProcess] = []
        for label, spec in entries:
            proc = self.procs.get(label)
            if proc is not None and (not proc.alive() or proc.spec != spec):
                stop([proc], self.hub, grace_s=0)
                proc = None
            if proc is None:
                proc = spawn(spec, self.hub, label, log_dir=self.log_dir)
                self.procs[label] = proc
                self.started += 1
                fresh.append(proc)
        if fresh:
            try:
                await_hellos(self.hub, fresh, timeout_ms=self.startup_ms)
            except BotStartError:
                for proc in fresh:
                    self.procs.pop(proc.label, None)
                stop(fresh, self.hub, grace_s=0)
                raise
        return [self.procs[label] for label, _ in entries]

    def discard(self, label: str) -> None:
        proc = self.procs.pop(label, None)
        if proc is not None:
            stop([proc], self.hub, grace_s=0)

    def close(self) -> None:
        stop(self.procs.values(), self.hub)
        self.procs.clear()

    def __enter__(self) -> BotPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
