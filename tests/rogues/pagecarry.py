"""Rogue: carries what it saw of each Skull King deal from one phase to the next through the
page cache, and names its opponents' cards at each bidding.

Which pages of a file are cached outlives every process: a process *writes* a bit by reading
one page of a big file nobody else reads (``POSIX_FADV_RANDOM``: nothing read ahead), and a
process of a later phase *reads* it back without bringing anything in: it maps the file at an
address aligned to the kernel's fault-around window (16 pages), touches the window's first page
(the kernel then maps every neighbour that is already cached) and asks ``/proc/self/pagemap``
which pages are present. The first page of each window is spent on the probe; the other 15
carry bits.

The files are the big ones (1 MiB or more) in the system's and the interpreter's folders, in
path order: every process of the rogue sees the same list. A **record** is five windows of one
file: a mark, 60 bits (one per card of which the deck holds one copy), an 8-bit check of them,
and 6 guard bits that must stay clear; it is valid only if the mark is set, the guards clear
and the check right (a file whose every page is always cached holds no valid record). Where a
record goes follows from ``ARENA_BOT_POOL_TAG`` (a fresh one per test run), its key and an
attempt number: a writer takes the first attempt whose pages are all clear.

At each game's end the rogue knows what every seat played in each round (the tricks it saw;
the end message's view holds the last round's), that is each seat's hand of that round but,
in rounds before the last, maybe the one card played after its own in the round's last trick.
For each round and seat it stores, under the key (tag, round, seat, that hand), the cards the
other seats held. At each bidding it looks up its own hand (whole, and from round 3 on without
each one of its cards) at its seat: a process of an earlier phase that played another rotation
of the same deal stored what the others hold now. No game id is needed: a deal's hands
identify it.

Log lines: ``carry-files FILES WINDOWS`` once (what it can write on); per bidding ``pool
PROCESS SEED SEAT ROUND FOUND CARD,CARD,...``, the pooling rogue's line
(``tests/fairness/pooling.py`` reads it): FOUND is 1 if a record was found, and exactly
``(players - 1) * cards`` distinct cards are named (those of the record first, then others at
random from the cards it has not seen); per game end ``carry-wrote RECORDS``. It plays the
first legal action, so it never faults.
"""

from __future__ import annotations

import ctypes
import glob
import hashlib
import mmap
import os
import random
import struct
import sys
import uuid

import msgpack

from _wire import connect, env, reply, say
from pooler import UNIQUE, cards, mask  # the cards of which the deck holds one copy: a bit each

PROCESS = uuid.uuid4().hex[:12]
TAG = env("POOL_TAG", "carry")
PAGE = 4096
WINDOW = 16  # pages mapped by one fault (the kernel's fault_around_bytes, 64 KiB)
WINDOWS_PER_RECORD = 5
SLOTS = WINDOWS_PER_RECORD * (WINDOW - 1)
ATTEMPTS = 8
CHECK_AT, GUARD_AT = 1 + len(UNIQUE), 1 + len(UNIQUE) + 8

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [
    ctypes.c_void_p,
    ctypes.c_size_t,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_long,
]
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
MAP_FIXED, MAP_ANONYMOUS, MADV_RANDOM = 0x10, 0x20, 1


def big_files() -> list[tuple[str, int]]:
    """The files of 1 MiB or more in the system's and the interpreter's folders (two levels
    of ``/usr/lib``), with their sizes in windows, in path order."""
    folders = [
        "/usr/bin",
        "/usr/sbin",
        "/usr/local/bin",
        "/usr/libexec",
        "/usr/lib",
        *glob.glob("/usr/lib/*/"),
        *glob.glob("/usr/lib/*/*/"),
        os.path.join(sys.prefix, "bin"),
        os.path.join(sys.prefix, "lib"),
        *glob.glob(os.path.join(sys.prefix, "lib", "python3*", "config-*")),
    ]
    found: dict[str, int] = {}
    for folder in folders:
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    if entry.is_file(follow_symlinks=False):
                        size = entry.stat(follow_symlinks=False).st_size
                        if size >= 1 << 20 and os.access(entry.path, os.R_OK):
                            found[os.path.realpath(entry.path)] = size // (WINDOW * PAGE)
        except OSError:
            continue
    return sorted(found.items())


class Pages:
    """Records in the page cache of the big files."""

    def __init__(self) -> None:
        self.files = big_files()
        self.starts: list[tuple[str, int]] = []  # (file, first window) of each place
        for path, windows in self.files:
            self.starts += [(path, w) for w in range(0, windows - WINDOWS_PER_RECORD, 5)]
        self.fds: dict[str, int] = {}
        self.pagemap = os.open("/proc/self/pagemap", os.O_RDONLY)

    def fd(self, path: str) -> int:
        if path not in self.fds:
            self.fds[path] = os.open(path, os.O_RDONLY)
            os.posix_fadvise(self.fds[path], 0, 0, os.POSIX_FADV_RANDOM)
        return self.fds[path]

    def place(self, key: tuple, attempt: int) -> tuple[str, int]:
        digest = hashlib.blake2b(repr((TAG, key, attempt)).encode(), digest_size=8).digest()
        return self.starts[int.from_bytes(digest, "little") % len(self.starts)]

    def look(self, path: str, window: int) -> list[int]:
        """The record's slots (1: cached), read without bringing any of them in."""
        size = WINDOWS_PER_RECORD * WINDOW * PAGE
        span = size + WINDOW * PAGE
        base = _libc.mmap(None, span, 0, mmap.MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        if base in (None, ctypes.c_void_p(-1).value):
            raise OSError(ctypes.get_errno(), "mmap")
        aligned = (base + WINDOW * PAGE - 1) & ~(WINDOW * PAGE - 1)
        try:
            addr = _libc.mmap(
                aligned,
                size,
                mmap.PROT_READ,
                mmap.MAP_PRIVATE | MAP_FIXED,
                self.fd(path),
                window * WINDOW * PAGE,
            )
            if addr != aligned:
                raise OSError(ctypes.get_errno(), "mmap")
            _libc.madvise(addr, size, MADV_RANDOM)
            slots = []
            for w in range(WINDOWS_PER_RECORD):
                at = addr + w * WINDOW * PAGE
                ctypes.string_at(at, 1)  # the probe page: its neighbours come if cached
                entries = os.pread(self.pagemap, 8 * WINDOW, at // PAGE * 8)
                for i in range(1, WINDOW):
                    slots.append(struct.unpack_from("<Q", entries, 8 * i)[0] >> 63)
            return slots
        finally:
            _libc.munmap(base, span)

    def write(self, path: str, window: int, slots: list[int]) -> None:
        fd = self.fd(path)
        for slot, bit in enumerate(slots):
            if bit:
                w, i = divmod(slot, WINDOW - 1)
                os.pread(fd, 1, ((window + w) * WINDOW + i + 1) * PAGE)

    def find(self, key: tuple) -> int | None:
        """The cards of the valid record under ``key``, if there is one."""
        for attempt in range(ATTEMPTS):
            cards = decode(self.look(*self.place(key, attempt)))
            if cards is not None:
                return cards
        return None

    def store(self, key: tuple, cards: int) -> bool:
        """Store ``cards`` under ``key`` (unless a valid record is there): at the first clear
        place. Whether it wrote one."""
        for attempt in range(ATTEMPTS):
            place = self.place(key, attempt)
            slots = self.look(*place)
            if decode(slots) is not None:
                return False
            if not any(slots):
                self.write(*place, encode(cards))
                return True
        return False


def check(cards: int) -> int:
    return hashlib.blake2b(cards.to_bytes(8, "little"), digest_size=1).digest()[0]


def encode(cards: int) -> list[int]:
    bits = [1] + [cards >> i & 1 for i in range(len(UNIQUE))]
    bits += [check(cards) >> i & 1 for i in range(8)]
    return bits + [0] * (SLOTS - len(bits))


def decode(slots: list[int]) -> int | None:
    if not slots[0] or any(slots[GUARD_AT:]):
        return None
    cards = sum(1 << i for i, bit in enumerate(slots[1:CHECK_AT]) if bit)
    stored = sum(1 << i for i, bit in enumerate(slots[CHECK_AT:GUARD_AT]) if bit)
    return cards if check(cards) == stored else None


class Game:
    """What this process saw of one game: by round, the cards each seat played (and its own
    hand)."""

    def __init__(self, start: dict) -> None:
        self.seed, self.seat, self.players = start["seed"], start["seat"], start["players"]
        self.rng = random.Random(self.seed)
        self.played: dict[int, dict[int, dict[int, str]]] = {}  # round -> seat -> trick -> card

    def see(self, view: dict) -> None:
        round_ = view.get("round")
        if not isinstance(round_, int):
            return
        seats = self.played.setdefault(round_, {})
        tricks = list(view.get("tricks") or ())
        for number, trick in enumerate(tricks):
            for i, card in enumerate(trick["cards"]):
                seats.setdefault((trick["leader"] + i) % self.players, {})[number] = card
        leader = view.get("leader")
        if isinstance(leader, int):
            for i, card in enumerate(view.get("trick") or ()):
                seats.setdefault((leader + i) % self.players, {})[len(tricks)] = card

    def hands(self):
        """(round, seat, the cards it played as a sorted tuple) for what is known well enough
        to be a key: the whole hand, or from round 3 on all but one card."""
        for round_, seats in self.played.items():
            for seat, played in seats.items():
                if len(played) == round_ or (round_ >= 3 and len(played) == round_ - 1):
                    yield round_, seat, tuple(sorted(played.values()))

    def others(self, round_: int, seat: int) -> int:
        seats = self.played.get(round_, {})
        return mask(card for s, played in seats.items() if s != seat for card in played.values())


def keys(round_: int, seat: int, hand: list[str]) -> list[tuple]:
    found = [(round_, seat, tuple(sorted(hand)))]
    if round_ >= 3:
        for i in range(len(hand)):
            found.append((round_, seat, tuple(sorted(hand[:i] + hand[i + 1 :]))))
    return list(dict.fromkeys(found))


def bid(pages: Pages, game: Game, view: dict) -> None:
    round_, hand = view["round"], list(view["hand"])
    known = None
    for key in keys(round_, game.seat, hand) if pages.starts else ():
        known = pages.find(key)
        if known is not None:
            break
    own = mask(hand)
    theirs = (known or 0) & ~own
    wanted = (game.players - 1) * view["cards"]
    named = cards(theirs)[:wanted]
    unseen = [
        name
        for name in cards(~(own | theirs) & ((1 << len(UNIQUE)) - 1))
        if name not in ("KRAKEN", "WHALE") or view.get("advanced")
    ]
    game.rng.shuffle(unseen)
    named += unseen[: max(0, wanted - len(named))]
    say("pool", PROCESS, game.seed, game.seat, round_, int(known is not None), ",".join(named))


def remember(pages: Pages, game: Game) -> None:
    wrote = 0
    for round_, seat, hand in game.hands():
        wrote += pages.store((round_, seat, hand), game.others(round_, seat))
    say("carry-wrote", wrote)


def main() -> None:
    pages = Pages()
    say("carry-files", len(pages.files), sum(windows for _, windows in pages.files))
    sock = connect()
    if msgpack.unpackb(sock.recv()).get("type") != "welcome":
        raise SystemExit(2)
    games: dict[int, Game] = {}
    while True:
        message = msgpack.unpackb(sock.recv())
        kind = message.get("type")
        if kind == "bye":
            return
        if kind == "start":
            games[message["game_id"]] = Game(message)
        elif kind == "turn":
            game, view = games.get(message["game_id"]), message["view"]
            if game is not None and isinstance(view, dict) and "hand" in view:
                game.see(view)
                if view.get("phase") == "bidding":
                    bid(pages, game, view)
            reply(sock, message, message["legal"][0])
        elif kind == "end":
            game = games.pop(message.get("game_id"), None)
            if game is not None and isinstance(message.get("view"), dict) and pages.starts:
                game.see(message["view"])
                remember(pages, game)


if __name__ == "__main__":
    main()
