"""Shared pytest set-up: hypothesis profiles, and a private user key file.

CI and the README's test command use the ``ci`` profile: derandomized (a fixed, seeded share of
examples) so the suite is reproducible and quick. ``--hypothesis-profile=long`` runs many more.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "long",
    max_examples=500,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(autouse=True)
def _user_key_file(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The user's key file (``arena play`` deals) lives in a temporary folder, not ~/.config."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.getbasetemp() / "config"))


@pytest.fixture
def shared() -> Iterator[Path]:
    """A temporary folder bot users can search (``tmp_path`` is 0700: as root, bots run as
    users of their own, who could not reach a bot's files or a database's copies there)."""
    folder = Path(tempfile.mkdtemp(prefix="arena-shared-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
