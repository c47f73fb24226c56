"""Always plays the first legal action (the same choice as the referee's default policy)."""

GAMES = ("*",)


def act(view: dict, legal: list[str]) -> str:
    return legal[0]


if __name__ == "__main__":
    from protocol.sdk import run_bot

    run_bot(act, name="first")
