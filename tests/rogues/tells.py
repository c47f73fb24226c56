"""Rogue: logs what its surroundings tell about where it runs, then plays the first legal action.

None of it names a card, but with any channel that outlives a process it would help match one
process's games to another's: a name that is one per run or per database, a number that counts
the machine's processes. Log lines, once each at the start:

- ``tell-uid UID ABOVE``: its uid, and the uid it has one user namespace up (the second field
  of ``/proc/self/uid_map``);
- ``tell-cwd PATH``, ``tell-argv WORD...``, ``tell-endpoint ARENA_ENDPOINT``;
- ``tell-mount ROOT MOUNTPOINT`` per mount (``/proc/self/mountinfo``: where each mount comes
  from in its file system, and where it is).

and per game ``tell-game SEED SEAT``.
"""

from __future__ import annotations

import os
import sys

from _wire import reply, say, serve


def uid_above() -> str:
    try:
        with open("/proc/self/uid_map") as handle:
            fields = handle.read().split()
    except OSError:
        fields = []
    return fields[1] if len(fields) >= 2 else str(os.getuid())


def main() -> None:
    say("tell-uid", os.getuid(), uid_above())
    say("tell-cwd", os.getcwd())
    say("tell-argv", *sys.argv)
    say("tell-endpoint", os.environ.get("ARENA_ENDPOINT", ""))
    with open("/proc/self/mountinfo") as handle:
        for line in handle:
            fields = line.split()
            say("tell-mount", fields[3], fields[4])
    serve(
        lambda sock, turn, n: reply(sock, turn, turn["legal"][0]),
        lambda sock, start: say("tell-game", start["seed"], start["seat"]),
    )


if __name__ == "__main__":
    main()
