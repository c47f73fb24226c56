"""Bots shipped to cluster workers (``tournaments.shipping``), and Dask imported only when asked:
a folder bot's archive unpacks to its registered version or is refused; a bot changed since it
was registered, or a remote one, cannot go to a cluster; without Dask, ``--cluster`` says what
to install."""

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
from tournaments.catalogue import Catalogue, folder_version
from tournaments.cluster import INSTALL_HINT, distributed_module
from tournaments.errors import ClusterError
from tournaments.shipping import BotKind, missing_files, pack, ship, unpack, worker_spec
from tournaments.store import Store


def bot_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "mybot"
    (folder / "lib").mkdir(parents=True)
    (folder / "bot.py").write_text("print('hi')\n")
    (folder / "lib" / "data.txt").write_text("weights\n")
    (folder / "link").symlink_to("lib/data.txt")
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "x.pyc").write_bytes(b"junk")
    return folder


def registered(tmp_path: Path, folder: Path, version: str | None = None) -> Catalogue:
    with Store.open(tmp_path / "arena.db") as store:
        store.add_bot(
            "mybot",
            f"{sys.executable} {folder}/bot.py",
            version=version or folder_version(folder),
            path=str(folder),
            games=["skull"],
        )
        return Catalogue.of(store)


def test_a_folder_bot_unpacks_to_its_registered_version(tmp_path: Path) -> None:
    folder = bot_folder(tmp_path)
    shipped = ship(registered(tmp_path, folder), "mybot")
    assert shipped.kind is BotKind.FOLDER and shipped.version == folder_version(folder)
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
    with pytest.raises(ClusterError, match="not to its registered version"):
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


def test_a_bot_changed_since_registration_or_remote_is_not_shipped(tmp_path: Path) -> None:
    folder = bot_folder(tmp_path)
    catalogue = registered(tmp_path, folder, version="0123456789ab")
    with pytest.raises(ClusterError, match="changed since it was registered"):
        ship(catalogue, "mybot")
    with Store.open(tmp_path / "arena.db") as store:
        from tournaments.remote import add_remote_bot

        add_remote_bot(store, "far", ("skull",))
        with pytest.raises(ClusterError, match="remote"):
            ship(Catalogue.of(store), "far")


def test_a_command_bot_names_its_files_and_a_bundled_bot_nothing(tmp_path: Path) -> None:
    script = tmp_path / "cmd.py"
    script.write_text("")
    with Store.open(tmp_path / "arena.db") as store:
        store.add_bot("cmd", f"{sys.executable} -u {script}", version="x", games=["skull"])
        catalogue = Catalogue.of(store)
    shipped = {"cmd": ship(catalogue, "cmd"), "random": ship(catalogue, "random")}
    assert shipped["random"].kind is BotKind.BUNDLED
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
    monkeypatch.setattr("tournaments.cluster.CONNECT_S", 1.0)
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
def test_a_folder_a_worker_would_refuse_is_refused_before_the_run(
    tmp_path: Path, kind: str
) -> None:
    """A bot's folder decides what travels: a FIFO (the hash counts it, the archive cannot
    hold it) or a link out of the folder would make every worker refuse the run, with a
    misleading hash error for the FIFO; the arena names the file before anything starts."""
    folder = bot_folder(tmp_path)
    name = {"fifo": "pipe", "absolute link": "abs", "link out": "out"}[kind]
    if kind == "fifo":
        os.mkfifo(folder / name)
    else:
        (folder / name).symlink_to("/etc/hostname" if kind == "absolute link" else "../../x")
    (folder / "lib" / "up").symlink_to("..")  # a link inside the folder travels
    with pytest.raises(ClusterError, match=f"'{name}' "):
        ship(registered(tmp_path, folder), "mybot")
    (folder / name).unlink()
    again = tmp_path / "again"
    again.mkdir()
    target = unpack(ship(registered(again, folder), "mybot"), tmp_path / "worker" / "b")
    assert (target / "lib" / "up").is_symlink()
