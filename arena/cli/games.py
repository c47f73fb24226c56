"""``arena games``: the registered games with player counts and options."""

from __future__ import annotations

import click

from arena.cli.common import echo_json, json_option
from arena.games import all_games
from tournaments.reports import format_table


@click.command()
@json_option()
def games(as_json: bool) -> None:
    """List the games with their player counts and options."""
    listing = []
    for game in all_games():
        listing.append(
            {
                "name": game.name,
                "title": game.title,
                "min_players": game.min_players,
                "max_players": game.max_players,
                "options": {
                    name: {
                        "default": spec.default,
                        "help": spec.help,
                        "choices": list(spec.choices) or None,
                        "type": spec.kind.__name__,
                    }
                    for name, spec in game.options.items()
                },
            }
        )
    if as_json:
        echo_json(listing)
        return
    rows = []
    for item in listing:
        opts = ", ".join(f"{k}={v['default']}" for k, v in item["options"].items()) or "-"
        rows.append(
            [item["name"], item["title"], f"{item['min_players']}-{item['max_players']}", opts]
        )
    click.echo(format_table(["game", "title", "players", "options (defaults)"], rows, align="llll"))
    for item in listing:
        for name, spec in item["options"].items():
            choices = f" [{'|'.join(spec['choices'])}]" if spec["choices"] else ""
            click.echo(f"  {item['name']} {name}{choices}: {spec['help']}")
