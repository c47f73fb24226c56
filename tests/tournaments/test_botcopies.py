"""The arena's copies of folder bots (``tournaments.catalogue.botcopies``): what the digest covers,
links kept inside the folder, read-only copies, and a copy altered behind the arena's back."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tournaments.catalogue.botcopies import BotCopies, BotFilesError, tree_digest


def test_a_link_inside_the_folder_is_kept(tmp_path: Path) -> None:
    folder = tmp_path / "bot"
    (folder / "real").mkdir(parents=True)
    (folder / "real" / "data.txt").write_text("weights")
    (folder / "lib").symlink_to("real")
    copy = BotCopies(tmp_path / "store").add(folder)
    assert (copy.path / "lib").is_symlink() and os.readlink(copy.path / "lib") == "real"
    assert (copy.path / "lib" / "data.txt").read_text() == "weights"


def test_the_digest_covers_paths_bytes_modes_links_and_folders(tmp_path: Path) -> None:
    folder = tmp_path / "bot"
    (folder / "lib").mkdir(parents=True)
    (folder / "bot.py").write_text("x")
    (folder / "lib" / "a").write_text("y")
    (folder / "link").symlink_to("lib/a")
    seen = {tree_digest(folder)}

    def changed() -> bool:
        digest = tree_digest(folder)
        new = digest not in seen
        seen.add(digest)
        return new

    (folder / "lib" / "a").write_text("z")
    assert changed(), "bytes"
    (folder / "lib" / "a").rename(folder / "lib" / "b")
    assert changed(), "a path"
    (folder / "bot.py").chmod(0o755)
    assert changed(), "the executable bit"
    (folder / "link").unlink()
    (folder / "link").symlink_to("lib/b")
    assert changed(), "a link's target"
    (folder / "empty").mkdir()
    assert changed(), "an empty folder"
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "x.pyc").write_bytes(b"cache")
    (folder / ".git").mkdir()
    assert not changed(), "caches and version control are left out"


def test_the_copy_is_read_only(tmp_path: Path) -> None:
    folder = tmp_path / "bot"
    (folder / "lib").mkdir(parents=True)
    (folder / "bot.py").write_text("x")
    (folder / "run").write_text("#!/bin/sh\n")
    (folder / "run").chmod(0o700)
    (folder / "lib" / "a").write_text("y")
    (folder / "lib" / "a").chmod(0o600)  # readable by bot users in the copy all the same
    store = BotCopies(tmp_path / "arena-bots")
    copy = store.add(folder)
    assert stat.S_IMODE(store.root.stat().st_mode) == 0o711, "passable, not listable"
    modes = {
        str(path.relative_to(copy.path)): stat.S_IMODE(path.lstat().st_mode)
        for path in [copy.path, *copy.path.rglob("*")]
    }
    assert modes == {".": 0o555, "lib": 0o555, "bot.py": 0o444, "run": 0o555, "lib/a": 0o444}
    assert all(p.lstat().st_uid == os.getuid() for p in [copy.path, *copy.path.rglob("*")])
    assert tree_digest(copy.path) == copy.digest
    if os.geteuid() != 0:  # root writes anyway: bots never run as root
        with pytest.raises(PermissionError):
            (copy.path / "bot.py").write_text("changed")


def test_an_altered_copy_is_replaced(tmp_path: Path) -> None:
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "bot.py").write_text("x")
    store = BotCopies(tmp_path / "arena-bots")
    copy = store.add(folder)
    (copy.path / "bot.py").chmod(0o644)
    (copy.path / "bot.py").write_text("tampered")
    again = store.add(folder)
    assert again.path == copy.path and (again.path / "bot.py").read_text() == "x"
    with pytest.raises(BotFilesError, match="is gone"):
        store.find("0" * 64)
