"""Plays the last action it is offered: deterministic, so that two copies of it under two names
show what seat order alone does (``tests/authoring/test_match_seatings.py``)."""

from protocol.sdk import run_bot


def act(view: dict, legal: list[str]) -> str:
    return legal[-1]


run_bot(act)
