"""Jinja2 templates of the pages (autoescaped: any text a bot chose is escaped)."""

from __future__ import annotations

import functools
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape

from arena import __version__
from arena.games import options_text
from arena.web.links import Links
from tournaments.reports import when

__all__ = ["render"]


@functools.cache
def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("arena.web", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["num"] = lambda v, d=0: "-" if v is None else f"{v:.{d}f}"
    env.filters["duration"] = duration
    env.filters["when"] = when
    env.filters["options"] = options_text
    return env


def duration(seconds: float) -> str:
    """A duration in words: ``45 s``, ``12 min``, ``3 h 05 min``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 90 else f"{minutes // 60} h {minutes % 60:02d} min"


def render(template: str, links: Links, **context: Any) -> str:
    """The page ``template`` with ``context``; ``links`` says where pages live."""
    return _environment().get_template(template).render(links=links, version=__version__, **context)
