"""One copy of each repeated part: a document packed into a pool of nodes, for the replay
viewer's data (every perspective of a game in one file).

``Pool.add(value)`` stores a JSON value and returns its index in ``Pool.entries``. A scalar
(string, number, true, false, null) is an entry of its own; a list is stored as the list of
its items' indices, an object as its keys with their values' indices. Equal values get one
entry, so a card drawn in a thousand frames, or a seat's box that did not change, is stored
once. ``unpack`` (and ``replay.js``) rebuild a value from its index.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["Pool", "unpack"]

_TEXT = json.JSONEncoder(separators=(",", ":"), check_circular=False).encode


class Pool:
    """The nodes of packed values, each stored once."""

    def __init__(self) -> None:
        self.entries: list[Any] = []
        self._index: dict[str, int] = {}
        self._scalars: dict[tuple[type, Any], int] = {}

    def add(self, value: Any) -> int:
        """The index of ``value``'s node (stored now if new). A list or object already stored
        is known by its JSON text, so a repeated part is found without walking it again."""
        if not isinstance(value, (dict, list, tuple)):
            key: Any = (type(value), value)
            found = self._scalars.get(key)
            if found is None:
                found = self._scalars[key] = len(self.entries)
                self.entries.append(value)
            return found
        text = _TEXT(value)
        found = self._index.get(text)
        if found is None:
            entry: Any
            if isinstance(value, dict):
                entry = {str(k): self.add(v) for k, v in value.items()}
            else:
                entry = [self.add(v) for v in value]
            found = self._index[text] = len(self.entries)
            self.entries.append(entry)
        return found


def unpack(entries: list[Any], index: int) -> Any:
    """The value stored at ``index`` of a pool's ``entries``."""
    entry = entries[index]
    if isinstance(entry, list):
        return [unpack(entries, i) for i in entry]
    if isinstance(entry, dict):
        return {k: unpack(entries, i) for k, i in entry.items()}
    return entry
