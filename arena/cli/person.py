"""A person at the terminal (``arena play --human``): the ``Person`` the referee asks at each
of the seat's decisions.

At each decision the terminal shows what changed since the person's last decision and the
seat's table (``arena.cli.table``: the replay viewer's scene of the seat's view, nothing else),
then the legal actions numbered, in their canonical text and the game's words. The person
answers with a number or an action's text; anything else is refused and the list shown again;
``?`` shows the game's rules in short. The end of the input, or Ctrl-C at the prompt, leaves
the game: the seat forfeits and the bots play it to its end. Ctrl-C while the bots think leaves
at the person's next decision; a second Ctrl-C stops at once (``interrupts``).

With a time (``--human-time``) the prompt waits that long where the input is a terminal or a
pipe; an answer after it is a timeout all the same (the referee judges it).
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
import termios
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, TextIO

import click

from arena.cli.table import changes, seat_scene, table_lines
from arena.games import Game, get_game
from arena.text import printable
from arena.web.scenes import Scene
from tournaments.play import Leave, Start, Turn

__all__ = ["Lines", "TerminalPerson", "choose", "turn_screen"]

#: What a person who ran out of time answers: no move (the referee moves for them).
TIME_UP = "(time is up)"
#: Legal lists longer than this are shown in columns, without their words.
LONG_LIST = 16


def choose(text: str, legal: Sequence[str]) -> str | None:
    """The action a person's answer names: its number in ``legal`` (from 1) or its text
    exactly (spaces around it ignored); None for anything else."""
    answer = text.strip()
    if answer.isdigit() and answer.isascii():
        number = int(answer)
        return legal[number - 1] if 1 <= number <= len(legal) else None
    return answer if answer in legal else None


def turn_screen(
    game: Game,
    names: Sequence[str],
    seat: int,
    view: Mapping[str, Any],
    step: int,
    before: Scene | None,
    last: str | None,
    late: bool = False,
) -> tuple[list[str], Scene]:
    """What a person at ``seat`` is shown at a decision, from the seat's ``view`` and the
    scene of its view at their last decision (``before``, where they chose ``last``, or the
    referee did for them when they were ``late``): what changed since, then the table; and the
    scene of ``view``, for the next one."""
    scene = seat_scene(game.name, view, names, {seat})
    lines = [f"== your turn: seat {seat}, step {step} =="]
    if before is not None:
        lines.append("Since your last move:")
        if last is not None:
            who = "the referee for you (time was up)" if late else "you"
            lines.append(f"  {who}: {game.action_words(last)}")
        lines.extend(f"  {line}" for line in changes(before, scene) or ["nothing you can see"])
    lines.extend(table_lines(scene, seat))
    return lines, scene


class TerminalPerson:
    """The person at one seat of ``game``, reading lines from ``stdin`` and writing to the
    terminal (``err``: to stderr, when stdout carries the record as JSON). ``names`` are the
    seats' entrants, as the table shows them."""

    def __init__(
        self,
        game: str,
        names: Sequence[str],
        *,
        stdin: TextIO | None = None,
        err: bool = False,
    ) -> None:
        self.game = get_game(game)
        self.names = [printable(name) for name in names]
        self.stdin = stdin
        self.err = err
        self.seat = 0
        self.scene: Scene | None = None
        self.last: tuple[str | None, bool] = (None, False)  # the last move, and if late
        self.prompting = False
        self.leaving = False
        self.lines: Lines | None = None

    # -- what the person sees -------------------------------------------------------------

    def say(self, text: str = "") -> None:
        click.echo(text, err=self.err)

    def start(self, start: Start) -> None:
        self.seat = start.seat
        self.say(f"{self.game.title}: you play seat {start.seat} of {start.players}.")
        self.say("Answer with a move's number or its text; ? for the rules; Ctrl-C leaves.")

    def decide(self, turn: Turn, time_ms: float | None) -> str | Leave:
        if self.leaving:
            self.say("You have left the game: the bots play it to its end.")
            return Leave("Ctrl-C")
        lines, self.scene = turn_screen(
            self.game, self.names, self.seat, turn.view, turn.step, self.scene, *self.last
        )
        self.say("")
        for line in lines:
            self.say(line)
        chosen = self._ask(turn.legal, time_ms)
        if chosen is TIME_UP:  # the referee's default policy moves: the first legal action
            self.last = (turn.legal[0], True)
        elif isinstance(chosen, str):
            self.last = (chosen, False)
        return chosen

    def end(self, result: Mapping[str, Any], view: dict[str, Any]) -> None:
        scene = seat_scene(self.game.name, view, self.names, ())
        self.say("")
        self.say("== the game is over ==")
        if self.scene is not None:
            for line in changes(self.scene, scene):
                self.say(f"  {line}")
        for line in table_lines(scene, self.seat):
            self.say(line)
        places, scores = result["places"], result["scores"]
        forfeit = " (forfeit)" if self.seat in result["forfeits"] else ""
        self.say(
            f"You (seat {self.seat}) place {places[self.seat]} of {len(places)}{forfeit}, "
            f"score {scores[self.seat]}."
        )

    def _moves(self, legal: Sequence[str]) -> None:
        self.say("Your moves:")
        if len(legal) > LONG_LIST:
            cells = [f"{n:>3} {action}" for n, action in enumerate(legal, 1)]
            width = max(map(len, cells)) + 2
            per_line = max(1, 96 // width)
            for at in range(0, len(cells), per_line):
                self.say("".join(cell.ljust(width) for cell in cells[at : at + per_line]))
            return
        width = max(map(len, legal))
        for n, action in enumerate(legal, 1):
            self.say(f"{n:>3}  {action.ljust(width)}  {self.game.action_words(action)}")

    # -- what the person answers ----------------------------------------------------------

    def _ask(self, legal: Sequence[str], time_ms: float | None) -> str | Leave:
        self._moves(legal)
        deadline = None if time_ms is None else time.monotonic() + time_ms / 1000.0
        while True:
            left = None if deadline is None else deadline - time.monotonic()
            hint = "" if left is None else f", {max(0.0, left):.0f} s left"
            line = self._read(f"your move (1-{len(legal)}, ? for the rules{hint}): ", left)
            if line is None:
                self.say("")
                self.say("Time is up: the referee moves for you.")
                return TIME_UP
            if isinstance(line, Leave):
                self.say("")
                self.say(f"You leave the game ({line.why}): your seat forfeits.")
                return line
            if line.strip() == "?":
                self.say(self.game.rules_summary or f"{self.game.title}: no summary.")
                self._moves(legal)
                continue
            chosen = choose(line, legal)
            if chosen is not None:
                return chosen
            typed = line.strip()
            shown = printable(typed[:60]) + ("..." if len(typed) > 60 else "")
            self.say(f"'{shown}' is not one of your moves.")
            self._moves(legal)

    def _read(self, prompt: str, left: float | None) -> str | Leave | None:
        """A line of input after ``prompt``; None when ``left`` seconds pass first (where the
        input can be waited on); ``Leave`` at its end or on Ctrl-C (pressed at the prompt, or
        before it while the bots thought)."""
        if self.lines is None:
            self.lines = Lines(self.stdin or sys.stdin)
        self.prompting = True  # from here Ctrl-C raises: it is caught below
        try:
            if self.leaving:
                return Leave("Ctrl-C")
            self.lines.forget_typed_ahead()
            click.echo(prompt, nl=False, err=self.err)
            line = self.lines.read(left)
            if line is None:
                return None
        except KeyboardInterrupt:
            return Leave("Ctrl-C")
        finally:
            self.prompting = False
        if not line:
            return Leave("end of input")
        return line

    # -- Ctrl-C ---------------------------------------------------------------------------

    @contextlib.contextmanager
    def interrupts(self) -> Iterator[None]:
        """While the game is played: Ctrl-C at the prompt leaves the game; while the bots
        think, it leaves at the person's next decision; a second one stops at once (a
        KeyboardInterrupt: the game is not finished and nothing is recorded)."""

        def interrupt(signum: int, frame: object) -> None:
            if self.prompting or self.leaving:
                raise KeyboardInterrupt
            self.leaving = True
            with contextlib.suppress(RuntimeError):  # a write it interrupted: said at the turn
                self.say("")
                self.say(
                    "Ctrl-C: you leave the game at your next turn (Ctrl-C again stops at once)."
                )

        try:
            previous = signal.signal(signal.SIGINT, interrupt)
        except ValueError:  # not the main thread: Ctrl-C keeps its usual meaning
            yield
            return
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, previous)


class Lines:
    """Lines read from ``stream``: through its file descriptor where it has one (so a wait
    for a line can end at a deadline, and nothing read waits unseen in a buffer), else
    through ``readline`` (a test's in-memory input)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        try:
            self.fd: int | None = stream.fileno()
        except (AttributeError, OSError, ValueError):
            self.fd = None
        self.pending = b""

    def forget_typed_ahead(self) -> None:
        """Drop what a person typed at a terminal before being asked (keys pressed while the
        bots thought are no answer to a screen not yet seen); a pipe's lines are kept."""
        if self.fd is not None and os.isatty(self.fd):
            termios.tcflush(self.fd, termios.TCIFLUSH)
            self.pending = b""

    def read(self, left: float | None) -> str | None:
        """The next line (with its newline; "" at the end of the input), or None when
        ``left`` seconds pass first."""
        if self.fd is None:
            return self.stream.readline()
        deadline = None if left is None else time.monotonic() + left
        while b"\n" not in self.pending:
            if deadline is not None:
                wait = max(0.0, deadline - time.monotonic())
                if not select.select([self.fd], [], [], wait)[0]:
                    return None
            chunk = os.read(self.fd, 4096)
            if not chunk:
                rest, self.pending = self.pending, b""
                return rest.decode("utf-8", "replace")
            self.pending += chunk
        line, _, self.pending = self.pending.partition(b"\n")
        return line.decode("utf-8", "replace") + "\n"
