"""The pooling rogue's evidence (``tests/rogues/pooler.py``): did its processes learn their
opponents' cards from each other?

At each Skull King bidding the rogue names ``(players - 1) * cards`` distinct cards, each one
of a kind in the deck, that it has not seen. Knowing only its own hand, the cards its opponents
hold are, for it, a uniformly random subset of the ``deck - cards`` it has not seen (the deck is
shuffled afresh every round), so the number of its named cards they hold is hypergeometric,
whatever it names: the sum over its biddings has a known mean and variance. A rogue whose
processes pooled what they saw of a deal names far more (every opponent card, once it found
the processes holding the other rotations' hands). ``Evidence.z`` is the sum's distance from
its mean in standard deviations: with no information flowing it is about normal, and
``BOUND`` is passed with overwhelming probability (about 1 in 300,000 above it by chance).
"""

from __future__ import annotations

import ctypes
import math
import sys
import zlib
from dataclasses import dataclass
from pathlib import Path

from arena.games.skull_king_cards import deck
from arena.keys.seeds import bot_seeds
from arena.procs.botproc import BotSpec
from arena.procs.logs import bot_logs, log_texts
from arena.referee.replay import replay
from tournaments.store.facts import Store

ROGUE = Path(__file__).resolve().parent.parent / "rogues" / "pooler.py"
#: The channels of the IPC rogue (``tests/rogues/ipcpool.py``: the same rogue, through System V
#: shared memory given away to another uid, or a POSIX message queue).
IPC_CHANNELS = ("sysv", "mqueue")
#: The rogue's name as an entrant: bots named so log under it.
NAME = "pooler"
#: A z above this is evidence that information flowed between the rogue's processes.
BOUND = 4.5


def spec(*, warm: bool = False, channel: str = "lock") -> BotSpec:
    """The rogue as a script or (``warm``) as a module the arena may start warm, ahead of its
    turn (``arena.procs.warm``), as it does the bundled bots; the IPC rogue for its channels."""
    script = ROGUE.with_name("ipcpool.py") if channel in IPC_CHANNELS else ROGUE
    if warm:
        argv = (sys.executable, "-m", script.stem)
        return BotSpec(name=NAME, argv=argv, cwd=str(script.parent), warm=True)
    return BotSpec(name=NAME, argv=(sys.executable, str(script)))


def command_lines(*log_dirs: Path) -> list[str]:
    """The command line each of the rogue's processes was started with (its ``pool-start``
    line)."""
    return [
        line.split(maxsplit=2)[2]
        for log_dir in log_dirs
        for path in bot_logs(log_dir, NAME)
        for line in log_texts(path)
        if line.startswith("pool-start")
    ]


def ipc_left(tag: str) -> list[str]:
    """What the IPC rogue of run ``tag`` left in this process's IPC namespace (its System V
    segment, its POSIX queue), removed now: a run without IPC namespaces leaves both."""
    libc = ctypes.CDLL(None, use_errno=True)
    left = []
    key = ctypes.c_int32(zlib.crc32(b"arena-pool-" + tag.encode()) | 1).value
    segment = libc.shmget(key, ctypes.c_size_t(0), 0)
    if segment >= 0:
        left.append(f"System V segment {segment}")
        libc.shmctl(segment, 0, None)  # IPC_RMID
    if libc.mq_unlink(f"/arena-pool-{tag}".encode()) == 0:
        left.append("POSIX message queue")
    return left


def environment(channel: str, tag: str) -> dict[str, str]:
    """The variables that choose the rogue's channel (the arena passes ``ARENA_BOT_*`` on)."""
    return {"ARENA_BOT_POOL_CHANNEL": channel, "ARENA_BOT_POOL_TAG": tag}


@dataclass(frozen=True)
class Evidence:
    """The rogue's biddings: how many cards it named, how many its opponents held, what
    knowing only its own hand gives (mean and variance), and how often it found partners."""

    biddings: int
    named: int
    hits: int
    mean: float
    variance: float
    partnered: int

    @property
    def z(self) -> float:
        return (self.hits - self.mean) / math.sqrt(self.variance) if self.variance else 0.0

    def __str__(self) -> str:
        return (
            f"{self.hits} of {self.named} named cards were in opponents' hands (knowing only "
            f"its own hand: {self.mean:.0f} ± {math.sqrt(self.variance):.0f}, z = {self.z:.1f}); "
            f"partners found at {self.partnered} of {self.biddings} biddings"
        )


def evidence(store: Store, tid: int, *log_dirs: Path, name: str = NAME) -> Evidence:
    """The evidence of tournament ``tid`` from the logs in ``log_dirs`` (a cluster's workers
    keep theirs) of the rogue entered as ``name`` (any rogue that logs the ``pool`` lines of
    this one: ``tests/rogues/pagecarry.py`` too) and the stored games (whose deals the test
    replays: the game id a bot gets is opaque, so each bidding's deal is found from its
    ``start`` seed and seat, with the tournament's key)."""
    key = store.tournament_key(tid)
    hands: dict[tuple[int, int], tuple[int, int, dict[int, list]]] = {}
    options: dict = {}
    for (game_id,) in store.db.execute(
        "SELECT id FROM games WHERE tournament_id = ? AND status = 'done'", (tid,)
    ).fetchall():
        stored = store.game(game_id)
        options = stored.options
        players = stored.players
        state = replay(
            stored.game, players, stored.deal_seed, options, stored.record.joint_actions()
        )
        deals = {e["round"]: e["hands"] for e in state.events if e["type"] == "deal"}
        for seat, seed in enumerate(bot_seeds(key, stored.deal_seed, players)):
            hands[seed, seat] = (players, len(deck(bool(options.get("advanced")))), deals)
    biddings = named_total = hits = partnered = 0
    mean = variance = 0.0
    for path in (path for log_dir in log_dirs for path in bot_logs(log_dir, name)):
        for line in log_texts(path):
            words = line.split()
            if len(words) < 6 or words[0] != "pool":
                continue
            seed, seat, round_, partners = (int(w) for w in words[2:6])
            named = set(words[6].split(",")) if len(words) > 6 and words[6] else set()
            players, size, deals = hands[seed, seat]
            dealt = deals[round_]
            theirs = {c for s, hand in enumerate(dealt) if s != seat for c in hand}
            cards = len(dealt[seat])
            unseen, held, n = size - cards, (players - 1) * cards, len(named)
            biddings += 1
            named_total += n
            hits += len(named & theirs)
            partnered += partners > 0
            mean += n * held / unseen
            if unseen > 1:
                variance += (
                    n * held / unseen * (unseen - held) / unseen * (unseen - n) / (unseen - 1)
                )
    return Evidence(biddings, named_total, hits, mean, variance, partnered)


def channel_errors(*log_dirs: Path) -> list[str]:
    """The rogue's ``pool-error`` lines: its channel did not work there."""
    return [
        line
        for log_dir in log_dirs
        for path in bot_logs(log_dir, NAME)
        for line in log_texts(path)
        if line.startswith("pool-error")
    ]
