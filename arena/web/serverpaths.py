"""No file-system path of the server in an HTTP answer: the web face may listen on every
interface (``--host 0.0.0.0``), and a path says where the database, the bots' copies and the
uploads are kept, who runs the server and how it is installed.

``hide_paths`` rewrites every absolute path in a text (an error, an upload's check report) to
its last part (``no game 9 in /srv/arena/arena.db`` says ``no game 9 in arena.db``). A path is
told from a URL by its first folder: one at the root of the server's file system (``/srv``,
``/home``, ``/tmp``...) that is not among the site's own first URL parts.
"""

from __future__ import annotations

import functools
import os
import re
from typing import Any

__all__ = ["hide_paths"]

#: The first parts of the site's own URLs: never taken for a path, whatever the disk holds.
SITE_PREFIXES = frozenset({"api", "bots", "games", "ladders", "static", "tournaments"})
#: An absolute path: a slash after no word character, dot, tilde or slash, then its parts.
_PATH = re.compile(r"(?<![\w.~/-])/([\w.@+~-]+)((?:/[\w.@+~-]*)*)")


@functools.lru_cache(maxsize=1)
def _root_folders() -> frozenset[str]:
    """The folders at the root of this machine's file system."""
    try:
        return frozenset(entry.name for entry in os.scandir("/") if entry.is_dir())
    except OSError:
        return frozenset()


def _shown(match: re.Match[str]) -> str:
    first, rest = match.group(1), match.group(2)
    if first in SITE_PREFIXES or first not in _root_folders():
        return match.group(0)
    parts = [part for part in (first + rest).split("/") if part]
    return parts[-1] if len(parts) > 1 else "…"


def hide_paths(value: Any) -> Any:
    """``value`` (a text, or lists and mappings of them, as JSON holds) with every absolute
    path of the server's file system cut to its last part; anything else as it is."""
    if isinstance(value, str):
        return _PATH.sub(_shown, value) if "/" in value else value
    if isinstance(value, dict):
        return {key: hide_paths(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [hide_paths(item) for item in value]
    return value
