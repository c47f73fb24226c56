"""The one sandbox of a command that runs bots beside a results database: what it hides (the
database, its keys, the logs, the stored bot copies, registered bots' folders) and how the
``--sandbox`` mode resolves: code a participant uploaded runs only in the sandbox
(``sandbox_mode``). Used by every command that starts bots (``tournaments.service``, the
registry's checks, ``arena bot check``, ``arena bot ask``)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from arena.procs import identity
from arena.procs import sandbox as sandboxing
from arena.procs.botproc import BotSpec
from arena.procs.logs import logs_folder
from arena.procs.sandbox import Sandbox, SandboxMode
from tournaments.catalogue.botcopies import BotCopies
from tournaments.errors import UsageProblem


def sandbox_mode(mode: SandboxMode, specs: Iterable[BotSpec]) -> SandboxMode:
    """The sandbox mode ``specs`` run in: ``mode``, but ``required`` if any of them runs only
    in the sandbox (code a participant uploaded: ``BotSpec.sandboxed_only``). Raises
    UsageProblem, naming that bot, for ``off``."""
    uploaded = [spec.name for spec in specs if spec.sandboxed_only]
    if not uploaded:
        return mode
    if mode is SandboxMode.OFF:
        raise UsageProblem(
            f"bot {uploaded[0]!r} was uploaded by a participant: it runs only in the sandbox; "
            "leave out --sandbox off"
        )
    return SandboxMode.REQUIRED


def sandbox_for(
    mode: SandboxMode,
    db_path: Path,
    folders: Iterable[str] = (),
    *,
    local: bool = True,
    specs: Iterable[BotSpec] = (),
) -> Sandbox | None:
    """The one sandbox of a command that runs bots with the database at ``db_path``.

    It hides the database, its key file and the user's, the logs, the store of bot copies and
    every registered bot's folder in ``folders`` (a folder bot still sees its own copy), and
    makes the database files and the logs unreadable to bot users; with no ``local`` bot (only
    remote ones) nothing runs here, so there is no warning about running unsandboxed. ``specs``
    (the bots it runs) may make the mode ``required`` (``sandbox_mode``). Raises SandboxError
    for ``required`` where bubblewrap does not work, UsageProblem as ``sandbox_mode`` does.
    """
    mode = sandbox_mode(mode, specs)
    log_dir = logs_folder(db_path)
    identity.protect_arena_files(db_path, log_dir)
    hide = [*sandboxing.private_paths(db_path, log_dir), str(BotCopies.beside(db_path).root)]
    return sandboxing.resolve(mode, hide=[*hide, *folders], local=local)
