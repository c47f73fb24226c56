"""The README is a short front door and the docs hold together: at most 200 lines, starting with
the two set-up commands (the second is CI's test command, run verbatim by ``.ci/run``); every
``arena`` command the README and the author's page show parses as written; every relative
link between the docs reaches a file, and its ``#anchor`` a heading of that file."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest

from arena.cli import main

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
#: The README's first lines, verbatim: the set-up commands a newcomer copies.
OPENING = [
    "# the arena",
    "",
    "```sh",
    "pip install -e '.[test]' && arena demo",
    "pip install -e '.[test]' && python -m pytest -q",
    "```",
]
MAX_LINES = 200
#: Pages whose shell blocks hold only commands that run as written (no placeholders).
RUNNABLE = [README, ROOT / "docs" / "authoring.md"]
PAGES = [README, *sorted((ROOT / "docs").rglob("*.md"))]


def shell_commands(page: Path) -> list[str]:
    """The ``arena ...`` lines of a page's ```sh blocks, comments dropped."""
    commands, inside = [], False
    for line in page.read_text().splitlines():
        if line.startswith("```"):
            inside = line == "```sh"
            continue
        if inside and line.startswith("arena "):
            commands.append(line.split("  #", 1)[0].strip())
    return commands


def parse(argv: list[str]) -> click.Context:
    """Parse ``arena ARGV`` as the command line would, down to its command, running nothing:
    an unknown command or option, or a bad value, raises click's usage error."""
    command: click.Command = main
    name, ctx, argv = "arena", None, list(argv)
    while isinstance(command, click.Group):  # groups take no options in the docs' commands
        ctx = click.Context(command, info_name=name, parent=ctx)
        assert argv, f"{name} needs a command"
        name, argv = argv[0], argv[1:]
        sub = command.get_command(ctx, name)
        assert sub is not None, f"no command {name!r}"
        command = sub
    return command.make_context(name, argv, parent=ctx)


def test_the_readme_is_a_front_door_of_at_most_200_lines() -> None:
    lines = README.read_text().splitlines()
    assert len(lines) <= MAX_LINES, f"README.md has {len(lines)} lines: move detail into docs/"


def test_the_readme_begins_with_the_two_set_up_commands() -> None:
    assert README.read_text().splitlines()[: len(OPENING)] == OPENING


def test_ci_runs_the_readmes_test_command_verbatim() -> None:
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert OPENING[4] in ci


@pytest.mark.parametrize(
    "command",
    [(page.relative_to(ROOT), line) for page in RUNNABLE for line in shell_commands(page)],
    ids=lambda item: f"{item[0]}: {item[1]}",
)
def test_a_command_the_docs_show_parses_as_written(command: tuple[Path, str]) -> None:
    _, line = command
    parse(shlex.split(line)[1:])


def test_the_readme_shows_commands() -> None:
    """The parse test above has something to check (a README without shell commands would
    pass it vacuously)."""
    assert len(shell_commands(README)) >= 5


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to
    hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    found, fenced = set(), False
    for line in page.read_text().splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            found.add(slug(line.lstrip("#")))
    return found


def links(page: Path) -> list[str]:
    """The relative link targets of a page's Markdown links and images (code left out)."""
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    text = re.sub(r"`[^`\n]*`", "", text)
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    return [t for t in targets if not re.match(r"[a-z]+:", t)]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_relative_links_reach_a_file_and_a_heading(page: Path) -> None:
    broken = []
    for target in links(page):
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(f"{target}: no such file")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            broken.append(f"{target}: no heading #{anchor} in {file.relative_to(ROOT)}")
    assert not broken, "\n".join(broken)


def test_the_link_check_sees_links() -> None:
    """The link test checks something: the README links to its docs."""
    assert "docs/authoring.md" in links(README)
