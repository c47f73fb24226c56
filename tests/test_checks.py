"""The tree's checks, as tests (CI runs only pytest): ruff's lint rules, ruff's formatting and
the import contracts of the layers (``lint-imports``), all configured in ``pyproject.toml``; and
no circle of imports.

Each runs the tool from ``pip install -e '.[test]'`` and shows its output when it fails. The
tools are part of the test extra, so a missing tool fails (a check that cannot run must not pass).
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_tool(*argv: str) -> None:
    """Run a check in the repository root; fail with its output if it finds anything."""
    assert shutil.which(argv[0]) is not None, (
        f"{argv[0]} is not installed: it is part of the test extra (pip install -e '.[test]')"
    )
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    done = subprocess.run(
        argv,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
        env={**os.environ, "PYTHONPATH": path},
    )  # this tree's packages
    assert done.returncode == 0, f"`{' '.join(argv)}` found problems:\n{done.stdout}{done.stderr}"


def test_ruff_lint_rules_hold() -> None:
    run_tool("ruff", "check", "--no-cache", "--output-format", "concise", ".")


def test_the_tree_is_formatted_with_ruff() -> None:
    run_tool("ruff", "format", "--check", "--no-cache", "--output-format", "concise", ".")


def test_the_import_contracts_of_the_layers_hold() -> None:
    run_tool("lint-imports", "--no-cache")


def test_no_modules_import_each_other_in_a_circle() -> None:
    """No chain of imports leads from a module back to itself, counting the imports made for
    type checking only: a circle means two modules that cannot be read, tested or moved apart.
    The layers contract cannot see one inside a layer."""
    import grimp  # import-linter's graph of the imports (part of the test extra)

    graph = grimp.build_graph("arena", "tournaments", "protocol", "bots")
    circles = set()
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            back = graph.find_shortest_chain(importer=imported, imported=module)
            if back is not None:
                ring = (module, *back[:-1])  # each circle once, from its first module by name
                first = ring.index(min(ring))
                circle = ring[first:] + ring[:first]
                circles.add(" -> ".join((*circle, circle[0])))
    assert not circles, "modules import each other in a circle:\n" + "\n".join(sorted(circles))


#: Calls that run SQL on a connection (sqlite3's and sqlite-utils').
_SQL_CALLS = {"execute", "executemany", "executescript", "query"}
#: Words that start an SQL statement in a string (a statement goes on after its first word:
#: the HTTP method ``"DELETE"`` alone is not one).
_SQL_WORDS = re.compile(r"^\s*(SELECT|INSERT|UPDATE|DELETE|PRAGMA|CREATE|DROP|ALTER|BEGIN)\b\s*\S")


def test_every_sql_statement_is_behind_the_store() -> None:
    """Only ``tournaments/store/`` speaks SQL: a change of the schema touches the migrations and
    that package only. Elsewhere no module runs a statement on a connection, nor holds one."""
    found = []
    for path in sorted([*ROOT.glob("arena/**/*.py"), *ROOT.glob("tournaments/**/*.py")]):
        if path.is_relative_to(ROOT / "tournaments" / "store"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in _SQL_CALLS
            ):
                found.append(f"{where}: .{node.func.attr}(...)")
            elif (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and _SQL_WORDS.match(node.value)
            ):
                found.append(f"{where}: {node.value[:40]!r}")
    assert not found, "SQL outside tournaments/store/:\n" + "\n".join(found)
