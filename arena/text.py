"""Text that a bot chose (its output, names, messages) made safe: shown without letting it act
on a terminal (``printable``: control and formatting characters are shown escaped, never passed
through), and as a file name (``safe_name``).

A bot's log may hold escape sequences that move the cursor, rewrite earlier lines, change the
window title or reverse text direction on the operator's terminal. ``printable`` turns every
such character into a visible ``\\xNN`` / ``\\uNNNN`` escape.
"""

from __future__ import annotations

import unicodedata


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str, *, keep_lines: bool = False) -> str:
    """``text`` with control and format characters (``\\x1b``, ``\\r``, bidi overrides...)
    escaped; with ``keep_lines``, newlines and tabs stay as they are."""
    kept = "\n\t" if keep_lines else ""
    if text.isprintable() and not kept:
        return text
    return "".join(
        char
        if char in kept or unicodedata.category(char)[0] not in "CZ" or char == " "
        else _escape(char)
        for char in text
    )


def safe_name(text: str) -> str:
    """A file name for a bot name or label (letters, digits, ``-_.#``; nothing else)."""
    name = "".join(ch if ch.isalnum() or ch in "-_#." else "_" for ch in text)[:80]
    return name.lstrip(".") or "_"
