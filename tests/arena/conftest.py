"""Fixtures for referee tests: a hub, a bot pool, the toy game, and rogue bot specs."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.procs.botproc import BotSpec
from arena.procs.hub import Hub
from arena.procs.pool import BotPool
from tests.arena.toygame import install
from tournaments.catalogue.lookup import bundled_spec

ROGUES = Path(__file__).resolve().parent.parent / "rogues"


@pytest.fixture(scope="session")
def toy():
    return install()


@pytest.fixture
def hub() -> Iterator[Hub]:
    hub = Hub()
    yield hub
    hub.close()


@pytest.fixture
def pool(hub: Hub, tmp_path: Path) -> Iterator[BotPool]:
    pool = BotPool(hub, startup_ms=10_000, log_dir=tmp_path / "logs")
    yield pool
    pool.close()


def rogue(name: str) -> BotSpec:
    return BotSpec(name=name, argv=(sys.executable, str(ROGUES / f"{name}.py")))


def bundled(name: str) -> BotSpec:
    return bundled_spec(name)
