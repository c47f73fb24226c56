"""Bots shipped to cluster workers (``tournaments.catalogue.shipping``), and Dask imported only when
asked: a folder bot's archive is its registered copy and unpacks to that content or is refused; a
bot registered before copies, or a remote one, cannot go to a cluster; without Dask, ``--cluster``
says what to install."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import tarfile
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from tests.unchecked import add_folder_unchecked, add_unchecked
from tournaments.catalogue.botcopies import BotFilesError, tree_digest
from tournaments.catalogue.lookup import Catalogue
from tournaments.catalogue.oldversions import folder_version
from tournaments.catalogue.shipping import (
    ShippingKind,
    missing_files,
    pack,
    ship,
    unpack,
    worker_spec,
)
from tournaments.errors import ClusterError
from tournaments.run.cluster import INSTALL_HINT, distributed_module
from tournaments.store.facts import Store


def bot_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "mybot"
    (folder / "lib").mkdir(parents=True)
    (folder / "bot.py").write_text("print('hi')\n")
    (folder / "lib" / "data.txt").write_text("weights\n")
    (folder / "link").symlink_to("lib/data.txt")
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "x.pyc").write_bytes(b"junk")
    return folder


def registered(tmp_path: Path, folder: Path) -> Catalogue:
    """A catalogue with ``folder`` registered as bot ``mybot`` (copied into the store)."""
    with Store.open(tmp_path / "arena.db") as store:
        add_folder_unchecked(store, "mybot", folder, f"{sys.executable} {folder}/bot.py")
        return Catalogue.of(store)


def test_a_folder_bot_unpacks_to_its_registered_copy(tmp_path: Path) -> None:
    folder = bot_folder(tmp_path)
    shipped = ship(registered(tmp_path, folder), "mybot")
    assert shipped.kind is ShippingKind.FOLDER and shipped.digest == tree_digest(folder)
    assert shipped.folder != str(folder), "the copy travels, not the folder"
    target = unpack(shipped, tmp_path / "worker" / "mybot")
    assert (target / "lib" / "data.txt").read_text() == "weights\n"
    assert (target / "link").is_symlink() and not (target / "__pycache__").exists()
    spec = worker_spec(shipped, target)
    assert spec.cwd == str(target) and spec.argv[1] == f"{target}/bot.py"  # renamed


def test_a_tampered_archive_is_refused(tmp_path: Path) -> None:
    folder = bot_folder(tmp_path)
    shipped = ship(registered(tmp_path, folder), "mybot")
    (folder / "bot.py").write_text("print('evil')\n")
    tampered = replace(shipped, archive=pack(folder))
    with pytest.raises(ClusterError, match="not those of its version"):
        unpack(tampered, tmp_path / "worker" / "mybot")


def test_an_archive_cannot_write_outside_its_folder(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        data = b"owned"
        info = tarfile.TarInfo("../escaped.txt")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    folder = bot_folder(tmp_path)
    shipped = replace(ship(registered(tmp_path, folder), "mybot"), archive=buffer.getvalue())
    with pytest.raises(ClusterError, match="cannot be unpacked"):
        unpack(shipped, tmp_path / "worker" / "mybot")
    assert not (tmp_path / "worker" / "escaped.txt").exists()


def test_the_registered_code_travels_and_old_or_remote_bots_do_not(tmp_path: Path) -> None:
    folder = bot_folder(tmp_path)
    catalogue = registered(tmp_path, folder)
    (folder / "bot.py").write_text("print('edited after registration')\n")
    target = unpack(ship(catalogue, "mybot"), tmp_path / "worker" / "mybot")
    assert (target / "bot.py").read_text() == "print('hi')\n"
    with Store.open(tmp_path / "arena.db") as store:
        from tournaments.catalogue.remote import add_remote_bot

        add_remote_bot(store, "far", ("skull",))
        store.add_bot(
            "old", f"{sys.executable} bot.py", version=folder_version(folder), path=str(folder)
        )  # fmt: skip  (registered before copies)
        catalogue = Catalogue.of(store)
    with pytest.raises(ClusterError, match="remote"):
        ship(catalogue, "far")
    with pytest.raises(ClusterError, match="before the arena kept copies"):
        ship(catalogue, "old")


def test_a_command_bot_names_its_files_and_a_bundled_bot_nothing(tmp_path: Path) -> None:
    script = tmp_path / "cmd.py"
    script.write_text("")
    with Store.open(tmp_path / "arena.db") as store:
        add_unchecked(store, "cmd", (sys.executable, "-u", str(script)))
        catalogue = Catalogue.of(store)
    shipped = {"cmd": ship(catalogue, "cmd"), "random": ship(catalogue, "random")}
    assert shipped["random"].kind is ShippingKind.BUNDLED
    assert missing_files(shipped) == []
    script.unlink()
    assert missing_files(shipped) == [f"{script} (bot cmd)"]


def test_cluster_without_dask_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed fails
    with pytest.raises(ClusterError, match=r"pip install 'arena\[cluster\]'"):
        distributed_module()
    db = str(tmp_path / "arena.db")
    runner = CliRunner()
    created = runner.invoke(
        main,
        ["tournament", "create", "--game", "skull", "--bots", "random,first,random", "--db", db],
    )
    assert created.exit_code == 0, created.output
    result = runner.invoke(
        main, ["tournament", "run", "1", "--db", db], env={"ARENA_CLUSTER": "tcp://127.0.0.1:9"}
    )
    assert result.exit_code == 1 and INSTALL_HINT in result.output, result.output
    assert "Traceback" not in result.output


def test_an_unreachable_scheduler_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("distributed")
    monkeypatch.setattr("tournaments.run.cluster.CONNECT_S", 1.0)
    from tests.net import free_port

    db = str(tmp_path / "arena.db")
    runner = CliRunner()
    runner.invoke(
        main,
        ["tournament", "create", "--game", "skull", "--bots", "random,first,random", "--db", db],
    )
    address = f"tcp://127.0.0.1:{free_port()}"
    result = runner.invoke(main, ["tournament", "run", "1", "--cluster", address, "--db", db])
    assert result.exit_code == 1, result.output
    assert f"cannot reach the Dask scheduler at {address}" in result.output


def test_the_command_line_does_not_import_dask() -> None:
    code = "import sys, arena.cli; assert 'distributed' not in sys.modules, 'imported'"
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("kind", ["fifo", "absolute link", "link out"])
def test_a_folder_a_worker_would_refuse_is_refused_at_registration(
    tmp_path: Path, kind: str
) -> None:
    """A FIFO or a link out of the folder would make every worker refuse the run: the copy
    made at registration refuses it first, naming the file; a link inside the folder travels."""
    folder = bot_folder(tmp_path)
    name = {"fifo": "pipe", "absolute link": "abs", "link out": "out"}[kind]
    if kind == "fifo":
        os.mkfifo(folder / name)
    else:
        (folder / name).symlink_to("/etc/hostname" if kind == "absolute link" else "../../x")
    (folder / "lib" / "up").symlink_to("..")  # a link inside the folder travels
    with pytest.raises(BotFilesError, match=f"'{name}' "):
        registered(tmp_path, folder)
    (folder / name).unlink()
    target = unpack(ship(registered(tmp_path, folder), "mybot"), tmp_path / "worker" / "b")
    assert (target / "lib" / "up").is_symlink()
