"""A registry of things by name, as the games (``arena.games``) and the web's presentations of
them keep theirs: each module registers its thing on import, and the bundled modules are
imported on first use (so a program may register its own before or after)."""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Generic, TypeVar

__all__ = ["Registry"]

T = TypeVar("T")


class Registry(Generic[T]):
    """Things by name; ``bundled`` names the modules that register the bundled ones."""

    def __init__(self, bundled: Sequence[str]) -> None:
        self.bundled = tuple(bundled)
        self._things: dict[str, T] = {}
        self._loaded = False

    def add(self, name: str, thing: T) -> T:
        """Register ``thing`` under ``name`` (replacing any earlier one)."""
        self._things[name] = thing
        return thing

    def get(self, name: str) -> T | None:
        """The thing registered under ``name``, or None."""
        if not self._loaded:
            self._load()
        return self._things.get(name)

    def names(self) -> list[str]:
        """Every registered name, sorted."""
        if not self._loaded:
            self._load()
        return sorted(self._things)

    def _load(self) -> None:
        self._loaded = True
        for module in self.bundled:
            importlib.import_module(module)
