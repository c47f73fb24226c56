"""Shared pytest set-up: hypothesis profiles, a private user key file, and the groups the
suite's two worker processes (pytest-xdist, ``-n 2 --dist loadgroup`` in pyproject) share out.

CI and the README's test command use the ``ci`` profile: derandomized (a fixed, seeded share of
examples) so the suite is reproducible and quick. ``--hypothesis-profile=long`` runs many more.

Each test module is one unit of work, run whole by one worker, so that a module's fixtures are
built once; the web tests (``tests/web/conftest.py``'s session fixtures: the played database
and its server) and the cluster tests (the session's Dask cluster) are one unit each. Nothing
else is shared between workers: every test makes its databases and folders under its own
``tmp_path`` (per worker), servers listen on free ports, and bot processes, their uids and
cgroups are named after pids.
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


def long_run(examples: int) -> settings:
    """The settings of a long property run (a test marked ``slow``): ``examples`` examples in
    the ``ci`` profile, CI's fixed, seeded share; in a profile of more (``long``), its count."""
    active = settings.default.max_examples
    more = active > settings.get_profile("ci").max_examples
    return settings(max_examples=max(examples, active) if more else examples)


#: Folders whose tests share a session fixture of their conftest.py: one unit of work each
#: (tests/web: the played database and its server; tests/cluster: the Dask cluster).
SHARED_SESSION_FOLDERS = ("tests/web/", "tests/cluster/")


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's own hook reads the marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Give every test the ``xdist_group`` of its unit of work (read by ``--dist loadgroup``):
    its folder if that is one of SHARED_SESSION_FOLDERS, else its module."""
    for item in items:
        module = item.nodeid.split("::", 1)[0]
        shared = [folder for folder in SHARED_SESSION_FOLDERS if module.startswith(folder)]
        item.add_marker(pytest.mark.xdist_group(shared[0] if shared else module))


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
