"""Where pages live: served URLs (``/tournaments/1``) or exported file names
(``tournament-1.html``). Templates link only through one of these, so one set of templates
serves both."""

from __future__ import annotations

from urllib.parse import quote, urlencode

from arena.logs import safe_name

__all__ = ["ExportLinks", "Links"]


class Links:
    """URLs of the running server."""

    exported = False

    def home(self) -> str:
        return "/"

    def tournament(self, tid: int, *, page: int = 1, entrant: str | None = None) -> str:
        query = {
            k: v
            for k, v in (("page", page if page > 1 else None), ("entrant", entrant))
            if v is not None
        }
        return f"/tournaments/{tid}" + (f"?{urlencode(query)}" if query else "")

    def bot(self, name: str) -> str:
        return f"/bots/{quote(name, safe='')}"

    def game(self, gid: int) -> str:
        return f"/games/{gid}"

    def replay(self, gid: int) -> str:
        return f"/games/{gid}/replay.js"

    def static(self, path: str) -> str:
        return f"/static/{path}"

    def api(self, path: str) -> str | None:
        return f"/api/{path}"


class ExportLinks(Links):
    """Relative file names of a static export (every page in one folder)."""

    exported = True

    def home(self) -> str:
        return "index.html"

    def tournament(self, tid: int, *, page: int = 1, entrant: str | None = None) -> str:
        return f"tournament-{tid}.html" if page <= 1 else f"tournament-{tid}-games-{page}.html"

    def bot(self, name: str) -> str:
        return f"bot-{safe_name(name)}.html"

    def game(self, gid: int) -> str:
        return f"game-{gid}.html"

    def replay(self, gid: int) -> str:
        return f"game-{gid}.js"

    def static(self, path: str) -> str:
        return f"static/{path}"

    def api(self, path: str) -> str | None:
        return None
