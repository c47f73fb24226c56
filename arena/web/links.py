"""Where pages live: served URLs (``/tournaments/1``) or exported file names
(``tournament-1.html``). Templates link only through one of these, so one set of templates
serves both. An exported site holds a tournament's games page by page in plan order, and the
games of each pair of entrants (the crosstable's links); other filters and sorts are the
server's only: their links are None in an export, and templates leave them out."""

from __future__ import annotations

import hashlib
from collections.abc import Set
from urllib.parse import quote, urlencode

from arena.text import safe_name
from tournaments.store.game_lists import GamesFilter

__all__ = ["DOWNLOADS", "ExportLinks", "Links"]

#: A tournament's data files: name, and what it holds.
DOWNLOADS = (
    ("games.jsonl", "games (JSON Lines)"),
    ("rankings.csv", "rankings (CSV)"),
    ("crosstable.csv", "crosstable (CSV)"),
)


class Links:
    """URLs of the running server."""

    exported = False

    def home(self) -> str:
        return "/"

    def tournaments(self, **query: str | None) -> str | None:
        """The list of tournaments, filtered or sorted by ``query``."""
        kept = {k: v for k, v in query.items() if v}
        return "/" + (f"?{urlencode(kept)}" if kept else "")

    def tournament(
        self, tid: int, *, page: int = 1, games_filter: GamesFilter | None = None
    ) -> str | None:
        query = dict(games_filter.params()) if games_filter else {}
        if page > 1:
            query["page"] = str(page)
        return f"/tournaments/{tid}" + (f"?{urlencode(query)}" if query else "")

    def download(self, tid: int, name: str) -> str:
        return f"/tournaments/{tid}/{name}"

    def bot(self, name: str) -> str:
        return f"/bots/{quote(name, safe='')}"

    def game(self, gid: int) -> str | None:
        return f"/games/{gid}"

    def replay(self, gid: int) -> str:
        return f"/games/{gid}/replay.js"

    def static(self, path: str) -> str:
        return f"/static/{path}"

    def api(self, path: str) -> str | None:
        return f"/api/{path}"


def pair_key(a: str, b: str) -> str:
    """A file-name part naming the (unordered) pair of entrants ``a`` and ``b``."""
    first, second = sorted((a, b))
    return hashlib.sha256(f"{first}\0{second}".encode()).hexdigest()[:12]


class ExportLinks(Links):
    """Relative file names of a static export (every page in one folder). Only the given
    ``tournaments`` and ``games`` (replays) are written: a link to another is None."""

    exported = True

    def __init__(
        self, *, tournaments: Set[int] | None = None, games: Set[int] | None = None
    ) -> None:
        self.tournaments_written = tournaments
        self.games_written = games

    def home(self) -> str:
        return "index.html"

    def tournaments(self, **query: str | None) -> str | None:
        return None if any(query.values()) else "index.html"

    def tournament(
        self, tid: int, *, page: int = 1, games_filter: GamesFilter | None = None
    ) -> str | None:
        if self.tournaments_written is not None and tid not in self.tournaments_written:
            return None
        suffix = "" if page <= 1 else f"-games-{page}"
        chosen = games_filter or GamesFilter()
        if not chosen.params():
            return f"tournament-{tid}{suffix}.html"
        if set(chosen.params()) == {"entrant", "opponent"}:
            assert chosen.entrant is not None and chosen.opponent is not None
            return f"tournament-{tid}-pair-{pair_key(chosen.entrant, chosen.opponent)}{suffix}.html"
        return None

    def download(self, tid: int, name: str) -> str:
        return f"tournament-{tid}-{name}"

    def bot(self, name: str) -> str:
        return f"bot-{safe_name(name)}.html"

    def game(self, gid: int) -> str | None:
        if self.games_written is not None and gid not in self.games_written:
            return None
        return f"game-{gid}.html"

    def replay(self, gid: int) -> str:
        return f"game-{gid}.js"  # written with its page

    def static(self, path: str) -> str:
        return f"static/{path}"

    def api(self, path: str) -> str | None:
        return None
