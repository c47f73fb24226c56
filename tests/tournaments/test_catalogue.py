"""The bot catalogue: names (registered, bundled, command lines), versions, folders, and the
bundled bots' manifest, which the arena reads without importing a bot."""

from __future__ import annotations

import hashlib
import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.errors import BotStartError
from tests.unchecked import add_folder_unchecked
from tournaments.catalogue.botcopies import BotCopies
from tournaments.catalogue.lookup import (
    Catalogue,
    bundled_bots,
    bundled_folder,
    bundled_spec,
    bundled_version,
    command_spec,
    module_version,
    needs_sandbox,
    plays,
)
from tournaments.catalogue.remote import add_remote_bot
from tournaments.errors import NotFound
from tournaments.store.facts import Store

ROGUES = Path(__file__).resolve().parents[1] / "rogues"
REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "command, name",
    [
        (f"{sys.executable} {ROGUES / 'snoop.py'}", "snoop.py"),
        (f"{sys.executable} -u {ROGUES}/", "rogues"),
        (f"{sys.executable} -m bots.random", "bots.random"),
        ("./mybot", "mybot"),
        ("java -jar bot.jar --fast", "bot.jar"),
        ("python bot.py --strategy v2", "bot.py"),
        ("./target/release/mybot --strategy v2", "mybot"),
        ("sleep 100", "sleep"),
        ("sleep 1.5", "sleep"),
    ],
)
def test_command_bots_are_named_by_their_script_folder_or_module(command: str, name: str) -> None:
    assert command_spec(command).name == name
    assert Catalogue({}).resolve(command).name == name


def test_the_manifest_lists_every_bundled_bot_with_the_games_it_declares() -> None:
    import bots

    modules = {
        info.name for info in pkgutil.iter_modules(bots.__path__) if not info.name.startswith("_")
    }
    assert set(bundled_bots()) == modules
    for name in modules:
        declared = importlib.import_module(f"bots.{name}").GAMES
        assert bundled_bots()[name] == tuple(declared), name
    assert bundled_folder() == Path(bots.__path__[0])


def test_the_arena_never_imports_a_bot(tmp_path: Path) -> None:
    """Listing bots, resolving names and picking the demo's entrants read the manifest only."""
    code = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from arena.cli import main\n"
        "from tournaments.service import demo_entrants\n"
        "result = CliRunner().invoke(main, ['bot', 'list', '--db', sys.argv[1]])\n"
        "assert result.exit_code == 0, result.output\n"
        "assert 'skull_odds' in result.output\n"
        "assert 'skull_odds' in demo_entrants('skull', 4)\n"
        "import arena.procs.sandbox; arena.procs.sandbox.needed_paths()\n"
        "print(sorted(m for m in sys.modules if m == 'bots' or m.startswith('bots.')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "arena.db")],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_bundled_bots_declare_their_games() -> None:
    assert plays(bundled_bots()["random"], "skyjo")
    assert plays(bundled_bots()["skull_odds"], "skull")
    assert not plays(bundled_bots()["skull_odds"], "skyjo")


def test_a_bundled_bots_version_is_the_hash_of_its_module() -> None:
    first, random = bundled_version("first"), bundled_version("random")
    assert len(first) == 12 and first != random
    assert bundled_version("first") == first
    assert bundled_spec("random").argv == (sys.executable, "-m", "bots.random")


def test_a_bundled_bots_version_covers_the_bundled_modules_it_imports(tmp_path: Path) -> None:
    """A change to a module a bundled bot imports from the bots' package (``ismcts`` plays
    Skyjo with ``skyjo_greedy``'s rules) is a new version of that bot; a bot that imports
    none keeps the hash of its own source."""
    (tmp_path / "alone.py").write_text("import os\n")
    (tmp_path / "helper.py").write_text("X = 1\n")
    (tmp_path / "middle.py").write_text("from bots.helper import X\n")
    (tmp_path / "searcher.py").write_text("from bots import middle\nimport bots.alone\n")
    alone = module_version(tmp_path / "alone.py")
    assert alone == hashlib.sha256(b"import os\n").hexdigest()[:12]
    before = module_version(tmp_path / "searcher.py")
    (tmp_path / "helper.py").write_text("X = 2\n")  # imported through middle
    after = module_version(tmp_path / "searcher.py")
    assert after != before and module_version(tmp_path / "alone.py") == alone
    (tmp_path / "alone.py").write_text("import sys\n")
    assert module_version(tmp_path / "searcher.py") not in (before, after)
    assert bundled_version("ismcts") != module_version(tmp_path / "alone.py")


def test_registered_bots_come_before_bundled_ones(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "mine.py").write_text("")
    with Store.open(tmp_path / "arena.db") as store:
        info = add_folder_unchecked(store, "mine", folder, f"{sys.executable} {folder}/mine.py")
        copy = BotCopies.beside(store.path).find(info.digest or "")
        add_remote_bot(store, "far", ["skull"])
        catalogue = Catalogue.of(store)
    spec, version = catalogue.lookup("mine")
    assert (spec.name, spec.cwd, version) == ("mine", str(copy), info.version)
    assert spec.argv == (sys.executable, f"{copy}/mine.py"), "runs the copy's file"
    assert catalogue.resolve("mine") == spec
    assert catalogue.lookup("random") == (bundled_spec("random"), bundled_version("random"))
    assert catalogue.folders() == [str(folder)]
    far = catalogue.resolve("far")
    assert far.remote and not needs_sandbox([far]) and needs_sandbox([far, spec])


def test_unknown_names_are_clear_errors(tmp_path: Path) -> None:
    catalogue = Catalogue.at(tmp_path / "missing.db")
    assert not (tmp_path / "missing.db").exists(), "looking up never creates a database"
    with pytest.raises(
        NotFound,
        match=r"no bot named 'nobody' \(known: .*random.*\); "
        r"register one",
    ):
        catalogue.lookup("nobody")
    with pytest.raises(
        BotStartError,
        match=r"no bundled or registered bot 'nobody' "
        r"\(bundled: .*random",
    ):
        catalogue.resolve("nobody")
    with pytest.raises(BotStartError, match="an empty bot spec"):
        catalogue.resolve("  ")
    with pytest.raises(BotStartError, match="cannot parse bot command"):
        catalogue.resolve("python 'unclosed")
