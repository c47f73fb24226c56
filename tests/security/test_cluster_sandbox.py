"""On a cluster, ``--sandbox auto`` (or ``off``) says plainly what it means, or nothing runs.

An unsandboxed bot can reach the Dask scheduler and through it run code on every worker, as the
worker's user. ``required`` (the default with ``--cluster``) refuses a worker that cannot
sandbox; ``auto`` and ``off`` run only with ``--i-accept-bots-can-run-code-on-every-worker``.
No scheduler is needed: the refusal comes before any connection (``connect`` is replaced by one
that says it was reached).
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from arena.cli import main
from tournaments.errors import ClusterError
from tournaments.run import cluster
from tournaments.run.cluster import ACCEPT_UNSANDBOXED

pytest.importorskip("distributed", reason="--cluster needs Dask distributed")


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.fixture
def tournament(tmp_path, monkeypatch) -> tuple[str, str]:
    def reached(address: str):
        raise ClusterError(f"reached the scheduler at {address}")

    monkeypatch.setattr(cluster, "connect", reached)
    db = str(tmp_path / "arena.db")
    made = invoke(
        "tournament", "create", "--game", "skull", "--bots", "random,first,random", "--json",
        "--db", db,
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    return db, str(json.loads(made.output)["id"])


@pytest.mark.parametrize("mode", ["auto", "off"])
def test_an_unsandboxed_mode_on_a_cluster_is_refused_without_the_words(tournament, mode) -> None:
    db, tid = tournament
    address = "tcp://127.0.0.1:8786"
    refused = invoke("tournament", "run", tid, "--cluster", address, "--sandbox", mode, "--db", db)
    assert refused.exit_code == 1
    lines = refused.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"arena: error: --sandbox {mode} "), lines
    assert "run code on every worker" in lines[0] and ACCEPT_UNSANDBOXED in lines[0]
    assert "reached the scheduler" not in refused.output, "refused before connecting"
    accepted = invoke(
        "tournament", "run", tid, "--cluster", address, "--sandbox", mode, ACCEPT_UNSANDBOXED,
        "--db", db,
    )  # fmt: skip
    assert accepted.exit_code == 1 and "reached the scheduler at tcp://" in accepted.output


def test_required_the_default_on_a_cluster_needs_no_words(tournament) -> None:
    db, tid = tournament
    for extra in ([], ["--sandbox", "required"]):
        result = invoke("tournament", "run", tid, "--cluster", "tcp://127.0.0.1:8786", *extra,
                        "--db", db)  # fmt: skip
        assert "reached the scheduler" in result.output, result.output


def test_the_words_are_for_cluster_runs_only(tournament) -> None:
    db, tid = tournament
    result = invoke("tournament", "run", tid, ACCEPT_UNSANDBOXED, "--db", db)
    assert result.exit_code == 2 and "is for runs with --cluster" in result.output


def test_a_ladder_on_a_cluster_is_sandboxed_as_a_tournament_is(tmp_path, monkeypatch) -> None:
    """The rule is the use case's (``RunOptions.sandbox_mode``), not one face's: a ladder's
    batch on a cluster runs with ``required`` unless ``--sandbox`` is given, and ``auto`` there
    needs the words too."""

    def reached(address: str):
        raise ClusterError(f"reached the scheduler at {address}")

    monkeypatch.setattr(cluster, "connect", reached)
    db = str(tmp_path / "arena.db")
    assert invoke("ladder", "create", "sk", "--game", "skull", "--db", db).exit_code == 0
    for bot, participant in (("random", "ann"), ("first", "bob"), ("skull_odds", "cat")):
        entered = invoke("ladder", "submit", "sk", bot, "--participant", participant, "--db", db)
        assert entered.exit_code == 0, entered.output
    address = "tcp://127.0.0.1:8786"
    run = ("ladder", "run", "sk", "--games", "1", "--cluster", address)
    default = invoke(*run, "--db", db)
    assert "reached the scheduler" in default.output, default.output
    auto = invoke(*run, "--sandbox", "auto", "--db", db)
    assert auto.exit_code == 1 and ACCEPT_UNSANDBOXED in auto.output, auto.output
    assert "reached the scheduler" not in auto.output
    words = invoke(*run, "--sandbox", "auto", ACCEPT_UNSANDBOXED, "--db", db)
    assert "reached the scheduler" in words.output, words.output
    alone = invoke("ladder", "run", "sk", "--games", "1", ACCEPT_UNSANDBOXED, "--db", db)
    assert alone.exit_code == 2 and "is for runs with --cluster" in alone.output
