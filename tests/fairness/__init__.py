"""Fair-play tests (no process sees a deal twice; an entrant's processes cannot pool a deal),
and the tournament they share: a rogue entered among bundled bots."""

from __future__ import annotations

from pathlib import Path

from arena.games import get_game
from arena.keys.seeds import new_key
from arena.procs.botproc import BotSpec
from tournaments.catalogue.lookup import bundled_spec
from tournaments.plans.schedule import TournamentSpec, plan
from tournaments.store.facts import Store


def with_rogue(
    db: Path, spec: TournamentSpec, rogue: BotSpec
) -> tuple[Store, int, dict[str, BotSpec]]:
    """Plan ``spec`` in a new database at ``db`` (bots named ``rogue.name`` are the rogue, the
    others bundled bots): the open store, the tournament's id and each entrant's spec."""
    store, key = Store.open(db), new_key()
    tid = store.create_tournament(
        spec,
        plan(spec, get_game(spec.game), key=key),
        {label: (bot, "test") for label, bot in spec.entrant_bots().items()},
        key=key,
    )
    specs = {
        label: rogue if bot == rogue.name else bundled_spec(bot)
        for label, bot in spec.entrant_bots().items()
    }
    return store, tid, specs
