"""Helpers shared by the CLI commands: option parsing, tables and JSON output."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import click


def parse_options(pairs: Sequence[str]) -> dict[str, str]:
    """``k=v`` strings into a dict; a bad pair is a usage error."""
    options: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"{pair!r} is not KEY=VALUE", param_hint="--option")
        options[key.strip()] = value.strip()
    return options


def echo_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, sort_keys=False, default=str))


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]],
          align: str | None = None) -> str:
    """An aligned text table; ``align`` has one letter per column (``l`` or ``r``)."""
    cells = [[str(h) for h in headers]] + [[_cell(v) for v in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    align = align or "l" * len(headers)
    lines = []
    for index, row in enumerate(cells):
        parts = [
            row[i].rjust(widths[i]) if align[i] == "r" else row[i].ljust(widths[i])
            for i in range(len(headers))
        ]
        lines.append("  ".join(parts).rstrip())
        if index == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)
