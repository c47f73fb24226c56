"""A warm start: a Python bot's interpreter made ready before the bot may run.

Starting a Python bot costs most of its start-up before a line of the bot runs: the interpreter,
ZeroMQ, msgpack and the SDK. A run plays in phases (``tournaments.run.phases``), and no process of
an entrant may run while another of its processes that played another rotation of a deal is
alive, so every phase would wait for all that again. The pool may instead start a bot's process
ahead of its turn (``BotPool.prewarm``) as

    python -m arena.procs.warm MODULE ARGS...

under the same sandbox, uid, cgroups and limits as the bot itself: it imports the SDK and what it
needs (the arena's own code, none of the bot's), then waits for one line on its standard input.
When the pool releases it (``go``), once the processes before it are gone, it runs ``MODULE``
as ``python -m MODULE ARGS`` would (``runpy``, as ``-m`` does), its standard input then
``/dev/null``. Anything else (the pool ending it unused, the arena gone: end of file) ends it
without running the bot. So the bot's code starts only when a fresh process of it may, as
before; only the arena's part of its start-up is done ahead.

When the bot's module ends (``bye``), the process runs its exit handlers, flushes its output and
exits at once with the module's status, skipping the interpreter's teardown of every module and
object (some 40 ms, paid at every phase's end while the arena waits for its processes to go):
nothing a bot process leaves survives it anyway.
"""

from __future__ import annotations

import atexit
import os
import runpy
import sys

#: The line that lets a warm process run its bot.
GO = b"go\n"


def main() -> None:
    """Import what a Python bot needs first, wait for ``GO``, then run the bot's module."""
    import protocol.sdk  # noqa: F401 - loaded ahead: the part of a start-up done early

    if len(sys.argv) < 2 or sys.stdin.buffer.readline() != GO:
        raise SystemExit(0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    module, *args = sys.argv[1:]
    sys.argv = [module, *args]  # run_module puts the module's file first
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
        status = 0
    except SystemExit as exc:
        status = exit_status(exc.code)
    atexit._run_exitfuncs()  # the bot's handlers, and logging's flush
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()
    os._exit(status)


def exit_status(code: object) -> int:
    """The status ``SystemExit(code)`` exits with (a message is printed, as Python does)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


if __name__ == "__main__":
    main()
