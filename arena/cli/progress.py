"""A progress bar for tournament runs: done/total, games per second, ETA, the cluster's
workers in use (on a cluster), current leader."""

from __future__ import annotations

import sys
import time

import click

from arena.text import printable
from tournaments.service import Progress


def _clock(seconds: float | None) -> str:
    if seconds is None:
        return "--:--"
    seconds = int(seconds)
    return (
        f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
        if seconds >= 3600
        else f"{seconds // 60}:{seconds % 60:02d}"
    )


class ProgressBar:
    """Redraws one line on a terminal; on a pipe, prints a line every tenth of the run."""

    def __init__(self, *, width: int = 28, quiet: bool = False) -> None:
        self.width = width
        self.quiet = quiet
        self.tty = sys.stderr.isatty()
        self.last_draw = 0.0
        self.last_decile = -1

    def __call__(self, p: Progress) -> None:
        if self.quiet:
            return
        line = self.render(p)
        if self.tty:
            now = time.monotonic()
            if now - self.last_draw > 0.1 or p.done == p.total:
                click.echo("\r" + line + "\x1b[K", err=True, nl=p.done == p.total)
                self.last_draw = now
        else:
            decile = p.done * 10 // max(1, p.total)
            if decile != self.last_decile:
                click.echo(line, err=True)
                self.last_decile = decile

    def say(self, line: str) -> None:
        """A line of its own on stderr (a round played), in place of the bar being drawn on a
        terminal (the bar goes on below it)."""
        if self.quiet:
            return
        click.echo("\r" + line + "\x1b[K" if self.tty else line, err=True)

    def render(self, p: Progress) -> str:
        filled = self.width * p.done // max(1, p.total)
        bar = "#" * filled + "-" * (self.width - filled)
        leader = f"  leader: {printable(p.leader)}" if p.leader else ""
        workers = f"  workers: {p.workers}" if p.workers is not None else ""
        return (
            f"[{bar}] {p.done}/{p.total} games  {p.rate:5.1f} g/s  ETA {_clock(p.eta_s)}"
            f"{workers}{leader}"
        )
