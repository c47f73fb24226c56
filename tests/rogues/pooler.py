"""Rogue: the processes of one entrant pool what they see of a Skull King deal, to name the
cards in their opponents' hands.

Every seat rotation of a table is played on the same deal, each by another process of the
entrant: between them, they hold every hand of the deal. Each process publishes, on a channel
shared with its entrant's other processes, its hand at each bidding and the cards it saw in
each round (its hand and every trick card shown to it); it recognises the processes playing
another rotation of its own deal as those whose cards of an earlier round are (nearly) the same
as its own, and at each bidding names the cards in their hands of this round as its opponents'.
No game id is needed: the cards of a deal identify it.

The channel (``ARENA_BOT_POOL_CHANNEL``; ``ARENA_BOT_POOL_TAG`` keeps runs apart):

- ``lock``: POSIX byte-range read locks on this script's own file, which every process of the
  entrant can read (sandboxed too): a process holds a lock on one byte per bit it publishes,
  and reads the others' with ``F_GETLK``;
- ``file``: a file of its own in ``/dev/shm`` (or ``/tmp``), which the others list and read
  (only unsandboxed: each sandbox has its own);
- ``socket``: an abstract unix socket that the first process serves and the others join
  (only unsandboxed: each sandbox has its own network namespace).

A channel that does not work here (the arena's system-call filter denies file locks) is said
once (``pool-error PROCESS KIND TEXT``); the rogue then names cards as one that knows only its
own hand. It logs one line per bidding: ``pool PROCESS SEED SEAT ROUND PARTNERS CARD,CARD,...``: the
``start`` message's seed and seat (from which the test finds the deal), how many partner
processes it found, and exactly ``(players - 1) * cards`` distinct unique cards it names (those
its partners hold first, then others drawn at random from the cards it has not seen). Whatever
it learned, it plays the first legal action, so it never faults. Knowing only its own hand, the
number of its named cards that are in its opponents' hands is hypergeometric: the test compares
the total with that.
"""

from __future__ import annotations

import errno
import fcntl
import os
import random
import socket
import struct
import sys
import threading
import time
import uuid
import zlib

from _wire import env, reply, say, serve

PROCESS = uuid.uuid4().hex[:12]
CHANNEL = env("POOL_CHANNEL", "lock")
TAG = env("POOL_TAG", "pool")
#: How long a bidding waits for its partners' hands of the round (s), and how often it looks.
WAIT_S = float(env("POOL_WAIT_MS", "250")) / 1000
POLL_S = 0.005
#: The cards of which the deck holds one copy: each a bit of a 64-bit mask.
UNIQUE = [f"{suit}{rank}" for suit in "GYPB" for rank in range(1, 15)] + [
    "TIG",
    "SK",
    "KRAKEN",
    "WHALE",
]
BIT = {name: i for i, name in enumerate(UNIQUE)}
HAND, SEEN = 0, 1
rng = random.Random()  # tokens; the cards named at random come from each game's own seed


def mask(names) -> int:
    bits = 0
    for name in names:
        bit = BIT.get(name.split(":")[0])
        if bit is not None:
            bits |= 1 << bit
    return bits


def cards(bits: int) -> list[str]:
    return [name for i, name in enumerate(UNIQUE) if bits >> i & 1]


# -- channels: publish (token, round, kind, mask) records; read everyone else's ------------


class LockChannel:
    """Bits as byte-range read locks on this file: region of a token, then round and kind."""

    REGION = 2048  # bytes per token: 10 rounds x 2 kinds x 64 bits, and a marker per record

    def __init__(self) -> None:
        self.fd = os.open(os.path.abspath(__file__), os.O_RDONLY)
        self.base = (zlib.crc32(TAG.encode()) % (1 << 16)) << 40
        self.span = (1 << 24) * self.REGION

    def publish(self, token: int, round_: int, kind: int, bits: int) -> None:
        record = (round_ - 1) * 2 + kind
        start = self.base + token * self.REGION
        offsets = [start + 1280 + record] + [
            start + record * 64 + i for i in range(64) if bits >> i & 1
        ]
        for offset in offsets:
            fcntl.lockf(self.fd, fcntl.LOCK_SH | fcntl.LOCK_NB, 1, offset)

    def read(self) -> list[tuple[int, int, int, int]]:
        found: dict[tuple[int, int, int], int] = {}
        present: set[tuple[int, int, int]] = set()
        for start, end in self._locked(self.base, self.base + self.span):
            for offset in range(start, end):
                token, rest = divmod(offset - self.base, self.REGION)
                if rest >= 1280:
                    record = rest - 1280
                    present.add((token, record // 2 + 1, record % 2))
                else:
                    record, bit = divmod(rest, 64)
                    key = (token, record // 2 + 1, record % 2)
                    found[key] = found.get(key, 0) | 1 << bit
        return [(t, r, k, found.get((t, r, k), 0)) for t, r, k in present]

    def _locked(self, start: int, end: int) -> list[tuple[int, int]]:
        """Every range another process holds a lock on within [start, end)."""
        todo, ranges = [(start, end)], []
        while todo:
            low, high = todo.pop()
            if low >= high:
                continue
            probe = struct.pack("hhqqi4x", fcntl.F_WRLCK, os.SEEK_SET, low, high - low, 0)
            got = fcntl.fcntl(self.fd, fcntl.F_GETLK, probe)
            kind, _, at, length, _ = struct.unpack("hhqqi4x", got)
            if kind == fcntl.F_UNLCK:
                continue
            stop = high if length == 0 else min(high, at + length)
            at = max(at, low)
            ranges.append((at, stop))
            todo += [(low, at), (stop, high)]
        return ranges


class FileChannel:
    """A line per record in a file of this process's own, in a folder every process can see."""

    def __init__(self) -> None:
        self.folder = "/dev/shm" if os.path.isdir("/dev/shm") else "/tmp"
        self.prefix = f"arena-pool-{TAG}-"
        path = os.path.join(self.folder, self.prefix + PROCESS)
        self.out = open(path, "a")  # noqa: SIM115 - kept for the process's life
        os.chmod(path, 0o644)

    def publish(self, token: int, round_: int, kind: int, bits: int) -> None:
        self.out.write(f"{token} {round_} {kind} {bits}\n")
        self.out.flush()

    def read(self) -> list[tuple[int, int, int, int]]:
        records = []
        for name in os.listdir(self.folder):
            if name.startswith(self.prefix) and not name.endswith(PROCESS):
                try:
                    with open(os.path.join(self.folder, name)) as handle:
                        lines = handle.read().splitlines()
                except OSError:
                    continue
                for line in lines:
                    parts = line.split()
                    if len(parts) == 4:
                        records.append(tuple(int(part) for part in parts))
        return records


class SocketChannel:
    """An abstract unix socket: the first process to bind it keeps every record."""

    def __init__(self) -> None:
        self.address = b"\0arena-pool-" + TAG.encode()
        self.records: list[tuple[int, int, int, int]] = []
        self.lock = threading.Lock()
        self.conn: socket.socket | None = None
        self.server = False
        self._join()

    def _join(self) -> None:
        for _ in range(50):
            conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                conn.connect(self.address)
                self.conn, self.stream = conn, conn.makefile("rw")
                return
            except OSError:
                conn.close()
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                listener.bind(self.address)
            except OSError as exc:
                listener.close()
                if exc.errno != errno.EADDRINUSE:
                    raise
                time.sleep(0.01)
                continue
            listener.listen(64)
            self.server = True
            threading.Thread(target=self._serve, args=(listener,), daemon=True).start()
            return

    def _serve(self, listener: socket.socket) -> None:
        while True:
            conn, _ = listener.accept()
            threading.Thread(target=self._client, args=(conn,), daemon=True).start()

    def _client(self, conn: socket.socket) -> None:
        stream = conn.makefile("rw")
        for line in stream:
            if line.startswith("P "):
                with self.lock:
                    self.records.append(tuple(int(part) for part in line.split()[1:]))
            elif line.startswith("G"):
                with self.lock:
                    text = "".join(" ".join(map(str, r)) + "\n" for r in self.records)
                stream.write(text + ".\n")
                stream.flush()

    def publish(self, token: int, round_: int, kind: int, bits: int) -> None:
        self._retry(self._publish, token, round_, kind, bits)

    def read(self) -> list[tuple[int, int, int, int]]:
        return self._retry(self._read)

    def _retry(self, call, *args):
        """The server may be gone (its process ended): join again, once."""
        try:
            return call(*args)
        except OSError:
            self.conn = None
            self._join()
            return call(*args)

    def _publish(self, token: int, round_: int, kind: int, bits: int) -> None:
        if self.server:
            with self.lock:
                self.records.append((token, round_, kind, bits))
        elif self.conn is not None:
            self.stream.write(f"P {token} {round_} {kind} {bits}\n")
            self.stream.flush()

    def _read(self) -> list[tuple[int, int, int, int]]:
        if self.server:
            with self.lock:
                return list(self.records)
        if self.conn is None:
            return []
        self.stream.write("G\n")
        self.stream.flush()
        records = []
        for line in self.stream:
            if line.startswith("."):
                return records
            records.append(tuple(int(part) for part in line.split()))
        raise ConnectionResetError("the server went away")


# -- the games ------------------------------------------------------------------------------


class Game:
    """What this process knows of one game: its cards of each round, and its partners."""

    def __init__(self, start: dict) -> None:
        self.token = rng.getrandbits(24)
        self.seed, self.seat, self.players = start["seed"], start["seat"], start["players"]
        self.rng = random.Random(self.seed)
        self.seen: dict[int, int] = {}  # round -> unique cards seen in it
        self.partners: set[int] = set()
        self.published: set[tuple[int, int]] = set()


games: dict[int, Game] = {}
channel = None


failed: list[str] = []  # why the channel does not work here (said once): no pooling


def publish(game: Game, round_: int, kind: int, bits: int) -> None:
    if (round_, kind) not in game.published and not failed:
        game.published.add((round_, kind))
        try:
            channel.publish(game.token, round_, kind, bits)
        except OSError as exc:  # a channel that does not work here (the system-call filter)
            broken(exc)


def read() -> list:
    if failed:
        return []
    try:
        return channel.read()
    except OSError as exc:
        broken(exc)
        return []


def broken(exc: OSError) -> None:
    failed.append(str(exc))
    say("pool-error", PROCESS, type(exc).__name__, exc)


def partners_of(game: Game, records: list) -> set[int]:
    """The tokens whose cards of an earlier round are nearly this game's own (same deal)."""
    mine = {token for token, *_ in records if token == game.token}
    found = set(game.partners)
    for token, round_, kind, bits in records:
        if kind != SEEN or token in mine or token in found or round_ not in game.seen:
            continue
        own = game.seen[round_]
        common = bin(own & bits).count("1")
        if common >= 3 and common * 2 >= min(bin(own).count("1"), bin(bits).count("1")):
            found.add(token)
    return found


def bid(game: Game, view: dict) -> None:
    """Publish this round's hand and the last round's cards, find the partners, name cards."""
    round_, hand = view["round"], mask(view["hand"])
    if round_ - 1 in game.seen:
        publish(game, round_ - 1, SEEN, game.seen[round_ - 1])
    publish(game, round_, HAND, hand)
    game.seen[round_] = game.seen.get(round_, 0) | hand
    known = 0
    deadline = time.monotonic() + WAIT_S
    while True:
        records = read()
        game.partners = partners_of(game, records)
        hands = {t: b for t, r, k, b in records if k == HAND and r == round_ and t in game.partners}
        known = 0
        for bits in hands.values():
            known |= bits & ~hand
        if not game.partners or len(hands) >= min(len(game.partners), game.players - 1):
            break
        if time.monotonic() > deadline:
            break
        time.sleep(POLL_S)
    wanted = (game.players - 1) * view["cards"]
    named = cards(known)[:wanted]
    unseen = [name for name in cards(~(hand | known) & ((1 << len(UNIQUE)) - 1)) if name in BIT]
    unseen = [n for n in unseen if n not in ("KRAKEN", "WHALE") or view.get("advanced")]
    game.rng.shuffle(unseen)
    named += unseen[: max(0, wanted - len(named))]
    say("pool", PROCESS, game.seed, game.seat, round_, len(game.partners), ",".join(named))


def on_start(sock, start: dict) -> None:
    games[start["game_id"]] = Game(start)


def on_turn(sock, turn: dict, n: int) -> None:
    view = turn["view"]
    game = games.get(turn["game_id"])
    if game is not None and isinstance(view, dict) and "hand" in view:
        round_ = view["round"]
        trick_cards = [c for trick in view.get("tricks") or () for c in trick["cards"]]
        seen = mask([*view["hand"], *(view.get("trick") or ()), *trick_cards])
        game.seen[round_] = game.seen.get(round_, 0) | seen
        if view["phase"] == "bidding":
            bid(game, view)
    reply(sock, turn, turn["legal"][0])


if __name__ == "__main__":
    with open("/proc/self/cmdline", "rb") as own:
        say("pool-start", PROCESS, own.read().rstrip(b"\0").replace(b"\0", b" ").decode())
    try:
        channel = {"lock": LockChannel, "file": FileChannel, "socket": SocketChannel}[CHANNEL]()
    except OSError as exc:
        say("pool-error", PROCESS, type(exc).__name__, exc)
        sys.exit(3)
    serve(on_turn, on_start)
