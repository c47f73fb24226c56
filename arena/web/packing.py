"""One copy of each repeated part: a document packed into a pool of nodes, for the replay
viewer's data (every perspective of a game in one file).

``Pool.add(value)`` stores a JSON value and returns its index in ``Pool.entries``. A scalar
(string, number, true, false, null) is an entry of its own; a list is stored as the list of
its items' indices, an object as its keys with their values' indices. Equal values get one
entry, so a card drawn in a thousand frames, or a seat's box that did not change, is stored
once. ``unpack`` (and ``replay.js``) rebuild a value from its index.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Pool", "unpack"]


class Pool:
    """The nodes of packed values, each stored once."""

    def __init__(self) -> None:
        self.entries: list[Any] = []
        self._index: dict[tuple[Any, ...], int] = {}
        self._seen: dict[int, tuple[Any, int]] = {}  # id -> (the value, kept alive; its index)

    def node(self, refs: list[int]) -> int:
        """The index of a list whose items are stored already, given their indices."""
        key = ("l", tuple(refs))
        found = self._index.get(key)
        if found is None:
            found = self._index[key] = len(self.entries)
            self.entries.append(list(refs))
        return found

    def add(self, value: Any) -> int:
        """The index of ``value``'s node (stored now if new). A node is known by its kind and
        its children's indices; a value met before (the same object) is not walked again."""
        if not isinstance(value, (dict, list, tuple)):
            scalar = ("s", type(value), value)
            found = self._index.get(scalar)
            if found is None:
                found = self._index[scalar] = len(self.entries)
                self.entries.append(value)
            return found
        seen = self._seen.get(id(value))
        if seen is not None and seen[0] is value:
            return seen[1]
        entry: Any
        if isinstance(value, dict):
            refs = tuple((str(k), self.add(v)) for k, v in value.items())
            key: tuple[Any, ...] = ("d", refs)
            entry = dict(refs)
        else:
            items = tuple(self.add(v) for v in value)
            key, entry = ("l", items), list(items)
        found = self._index.get(key)
        if found is None:
            found = self._index[key] = len(self.entries)
            self.entries.append(entry)
        self._seen[id(value)] = (value, found)
        return found


def unpack(entries: list[Any], index: int) -> Any:
    """The value stored at ``index`` of a pool's ``entries``."""
    entry = entries[index]
    if isinstance(entry, list):
        return [unpack(entries, i) for i in entry]
    if isinstance(entry, dict):
        return {k: unpack(entries, i) for k, i in entry.items()}
    return entry
