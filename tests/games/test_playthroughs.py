"""The golden playthroughs still come out byte for byte (see ``playthrough.py``).

A mismatch names the first step that differs and shows a short diff of its first differing
lines, not the whole file.
"""

from __future__ import annotations

import difflib

import pytest

from tests.games.playthrough import CASES, FOLDER, Case, text

CONTEXT = 3
SHOWN = 12


def first_difference(expected: list[str], actual: list[str], part: str = "step") -> str:
    """Where two playthroughs part: the step (or the ``part`` whose lines start with that
    word) and a short unified diff around it."""
    index = next(
        (i for i, (a, b) in enumerate(zip(expected, actual)) if a != b),
        min(len(expected), len(actual)),
    )
    step = next(
        (line for line in reversed(expected[: index + 1]) if line.startswith(f"{part} ")),
        "the header",
    )
    start = max(0, index - CONTEXT)
    stop = index + SHOWN
    diff = difflib.unified_diff(
        expected[start:stop], actual[start:stop], "golden", "now", n=CONTEXT, lineterm=""
    )
    clipped = [line if len(line) <= 300 else line[:300] + " ..." for line in diff]
    report = f"first difference at line {index + 1}, in {step}:\n" + "\n".join(clipped)
    if index < min(len(expected), len(actual)):
        old, new = expected[index], actual[index]
        column = next(
            (i for i, (a, b) in enumerate(zip(old, new)) if a != b), min(len(old), len(new))
        )
        window = slice(max(0, column - 60), column + 60)
        report += (
            f"\nthat line from column {column + 1}:\n  golden ...{old[window]}..."
            f"\n  now    ...{new[window]}..."
        )
    return report


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.filename)
def test_playthrough_unchanged(case: Case) -> None:
    golden = (FOLDER / case.filename).read_text(encoding="utf-8").splitlines()
    now = text(case).splitlines()
    if golden != now:
        pytest.fail(first_difference(golden, now), pytrace=False)


def test_first_difference_names_the_step() -> None:
    expected = ["game: skull", "", "step 0", "  a", "", "step 1", "  b", "  c"]
    actual = ["game: skull", "", "step 0", "  a", "", "step 1", "  b", "  changed"]
    report = first_difference(expected, actual)
    assert "line 8, in step 1" in report
    assert "-  c" in report and "+  changed" in report
