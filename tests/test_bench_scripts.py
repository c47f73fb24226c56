"""Every benchmark starts as docs/performance.md gives it: ``python bench/NAME.py`` from the
repository root, with no PYTHONPATH (the arena's packages installed, the tests package not)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = sorted((ROOT / "bench").glob("bench_*.py"))
#: The installed packages (``pip install -e .`` installs these, not ``tests``).
PACKAGES = ("arena", "protocol", "tournaments", "bots")


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding only this tree's installed packages (links), standing in for the
    site-packages of ``pip install -e .``."""
    folder = tmp_path_factory.mktemp("site")
    for name in PACKAGES:
        (folder / name).symlink_to(ROOT / name)
    return folder


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.name)
def test_a_benchmark_imports_what_it_needs_from_the_repository_root(
    script: Path, installed: Path
) -> None:
    """Run the script's module body (its imports) as ``python bench/NAME.py`` would, without
    running its benchmark."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env["PYTHONPATH"] = str(installed)  # the installed packages, and nothing of tests/
    code = (
        "import runpy, sys; sys.argv = [sys.argv[1]]; "
        "runpy.run_path(sys.argv[0], run_name='imports')"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(script)],
        cwd=script.parent,  # where `python bench/NAME.py` puts sys.path[0]
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
