"""Helpers shared by the CLI commands: option parsing and JSON output."""

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
