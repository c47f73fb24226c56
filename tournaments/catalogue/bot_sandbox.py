"""The one sandbox of a command that runs bots beside a results database: what it hides (the
database, its keys, the logs, the stored bot copies, registered bots' folders) and how the
``--sandbox`` mode resolves. Used by every command that starts bots (``tournaments.service``,
the registry's checks, ``arena bot check``)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from arena.procs import identity
from arena.procs import sandbox as sandboxing
from arena.procs.logs import logs_folder
from arena.procs.sandbox import Sandbox, SandboxMode
from tournaments.catalogue.botcopies import BotCopies


def sandbox_for(
    mode: SandboxMode, db_path: Path, folders: Iterable[str] = (), *, local: bool = True
) -> Sandbox | None:
    """The one sandbox of a command that runs bots with the database at ``db_path``.

    It hides the database, its key file and the user's, the logs, the store of bot copies and
    every registered bot's folder in ``folders`` (a folder bot still sees its own copy), and
    makes the database files and the logs unreadable to bot users; with no ``local`` bot (only
    remote ones) nothing runs here, so there is no warning about running unsandboxed. Raises
    SandboxError for ``required`` where bubblewrap does not work.
    """
    log_dir = logs_folder(db_path)
    identity.protect_arena_files(db_path, log_dir)
    hide = [*sandboxing.private_paths(db_path, log_dir), str(BotCopies.beside(db_path).root)]
    return sandboxing.resolve(mode, hide=[*hide, *folders], local=local)
