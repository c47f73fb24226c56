"""Key files: the arena's secrets, kept outside the results database and hidden from bots.

- Beside a results database ``arena.db`` lives ``arena.db.keys`` (``key_file_path``): the
  secret key of each tournament (it keys the tournament's deal and bot seeds, see
  ``arena.keys.seeds``) and the arena's CURVE key pair for remote bots. Keep it with the database:
  a tournament cannot be resumed without its key. Never share it; the database alone holds no
  secret and can be shared.
- Each user has ``user.keys`` in ``$XDG_CONFIG_HOME/arena/`` (else ``~/.config/arena/``;
  ``user_key_path``): the key of ``arena play`` deals.

A key file is JSON, for example::

    {"format": 1,
     "tournaments": {"<key id>": {"tournament": 3, "key": "<64 hex digits>"}},
     "curve": {"public": "<Z85>", "secret": "<Z85>"},
     "play": "<64 hex digits>"}

``tournaments`` is indexed by each key's public id (``arena.keys.seeds.key_id``), which the database
stores. The file is created with mode 0600 and always rewritten whole: into a temporary file
in the same folder, then renamed over the old one, so a reader sees the old or the new file,
never a part of one. A writer holds an ``fcntl`` lock on ``<file>.lock`` and re-reads the file
under it, so two arena commands never lose each other's keys. A corrupt file is never
overwritten. The sandbox must hide ``secret_paths(db_path)`` from every bot.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import secrets
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from arena.errors import KeyFileError, MissingKey
from arena.keys.seeds import key_id, new_key

__all__ = ["KEY_SUFFIX", "KeyFile", "key_file_path", "secret_paths", "user_key_path"]

log = logging.getLogger(__name__)

#: The key file of database ``arena.db`` is ``arena.db.keys``.
KEY_SUFFIX = ".keys"
_LOCK_SUFFIX = ".lock"
_FORMAT = 1
_USER_FILE = "user.keys"

_T = TypeVar("_T")
Data = dict[str, Any]


def key_file_path(db_path: str | os.PathLike[str]) -> Path:
    """The key file of the results database at ``db_path``."""
    db = Path(db_path).expanduser()
    return db.with_name(db.name + KEY_SUFFIX)


def user_key_path() -> Path:
    """The user's key file: ``$XDG_CONFIG_HOME/arena/user.keys``, else
    ``~/.config/arena/user.keys``."""
    config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(Path.home(), ".config")
    return Path(config) / "arena" / _USER_FILE


def _lock_path(path: Path) -> Path:
    return path.with_name(path.name + _LOCK_SUFFIX)


def secret_paths(db_path: str | os.PathLike[str]) -> list[str]:
    """What no bot may see (or lock) of an arena using ``db_path``: its key file and the key
    file's lock, and the folder of the user's key file."""
    keys = key_file_path(db_path).resolve()
    return [str(keys), str(_lock_path(keys)), str(user_key_path().parent.resolve())]


def _hex_key(text: object, where: str) -> bytes:
    try:
        key = bytes.fromhex(str(text))
    except ValueError:
        key = b""
    if len(key) < 16:
        raise KeyFileError(f"{where}: a key is not hex digits; restore the file from a backup")
    return key


class KeyFile:
    """One key file (``path``), or keys kept in memory only (``path`` None: an in-memory
    database's keys die with it)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._memory: Data = {}

    @classmethod
    def beside(cls, db_path: str | os.PathLike[str]) -> KeyFile:
        """The key file of the results database at ``db_path``."""
        return cls(None if os.fspath(db_path) == ":memory:" else key_file_path(db_path))

    @classmethod
    def of_user(cls) -> KeyFile:
        """The user's key file (its folder is made, mode 0700, on first write)."""
        return cls(user_key_path())

    def __repr__(self) -> str:
        return f"KeyFile({str(self.path) if self.path else ':memory:'!r})"

    # -- reading and writing ----------------------------------------------------------------

    def read(self) -> Data:
        """The file's content; empty if there is no file yet. Raises KeyFileError."""
        if self.path is None:
            return json.loads(json.dumps(self._memory))
        try:
            info = self.path.stat()
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except OSError as exc:
            raise KeyFileError(f"{self.path}: cannot read the key file: {exc.strerror}") from None
        if info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
            log.warning("%s can be read by other users: `chmod 600` it", self.path)
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if not isinstance(data, dict) or data.get("format") != _FORMAT:
            raise KeyFileError(
                f"{self.path}: not an arena key file (corrupt or of another "
                "format); restore it from a backup"
            )
        return data

    def update(self, change: Callable[[Data], _T]) -> _T:
        """Apply ``change`` to the content under the lock and write it if it changed; return
        what ``change`` returned."""
        with self._locked():
            data = self.read()
            before = json.dumps(data, sort_keys=True)
            result = change(data)
            if json.dumps(data, sort_keys=True) != before:
                data["format"] = _FORMAT
                self._write(data)
            return result

    @contextmanager
    def _locked(self) -> Iterator[None]:
        if self.path is None:
            yield
            return
        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd = os.open(_lock_path(self.path), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            raise KeyFileError(f"{self.path}: cannot lock the key file: {exc.strerror}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def _write(self, data: Data) -> None:
        if self.path is None:
            self._memory = json.loads(json.dumps(data))
            return
        folder = self.path.parent
        temp = folder / f".{self.path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
        try:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(data, handle, indent=2, sort_keys=True)
                handle.write("\n")
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, self.path)
            dir_fd = os.open(folder, os.O_RDONLY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)
        except OSError as exc:
            temp.unlink(missing_ok=True)
            raise KeyFileError(f"{self.path}: cannot write the key file: {exc.strerror}") from None

    # -- the keys -----------------------------------------------------------------------------

    def add_tournament_key(self, key: bytes, tournament: int) -> str:
        """Keep ``key`` as the key of ``tournament``; return its public id."""
        ident = key_id(key)

        def add(data: Data) -> None:
            data.setdefault("tournaments", {})[ident] = {"tournament": tournament, "key": key.hex()}

        self.update(add)
        return ident

    def tournament_key(self, ident: str, tournament: int) -> bytes:
        """The key of ``tournament`` whose public id is ``ident``. Raises MissingKey."""
        where = str(self.path) if self.path else "the in-memory key store"
        data = self.read()
        entry = data.get("tournaments", {}).get(ident)
        if entry is None:
            if self.path is not None and not self.path.exists():
                raise MissingKey(
                    f"{where} is missing: it held the secret key of tournament {tournament}, "
                    "needed to play its remaining games; put the key file back beside the "
                    "database, or create a new tournament"
                )
            raise MissingKey(
                f"{where} does not hold the secret key of tournament {tournament} (key "
                f"{ident}; is it another database's key file?): put back the key file made "
                "with this database, or create a new tournament"
            )
        key = _hex_key(entry.get("key") if isinstance(entry, dict) else None, where)
        if key_id(key) != ident:
            raise KeyFileError(
                f"{where}: the key of tournament {tournament} is damaged; "
                "restore the file from a backup"
            )
        return key

    def curve_pair(self, make: Callable[[], tuple[str, str]]) -> tuple[str, str]:
        """The arena's CURVE key pair ``(public, secret)``, made with ``make`` on first use."""

        def get(data: Data) -> tuple[str, str]:
            pair = data.get("curve")
            if not (isinstance(pair, dict) and pair.get("public") and pair.get("secret")):
                public, secret = make()
                pair = data["curve"] = {"public": public, "secret": secret}
            return str(pair["public"]), str(pair["secret"])

        found = self.read().get("curve")
        if isinstance(found, dict) and found.get("public") and found.get("secret"):
            return str(found["public"]), str(found["secret"])
        return self.update(get)

    def set_curve_pair(self, public: str, secret: str) -> None:
        """Keep ``(public, secret)`` as the arena's CURVE key pair (replacing any other)."""

        def put(data: Data) -> None:
            old = data.get("curve")
            if isinstance(old, dict) and old.get("public") not in (None, public):
                log.warning("%s: replacing its CURVE key pair with the database's", self.path)
            data["curve"] = {"public": public, "secret": secret}

        self.update(put)

    def play_key(self) -> bytes:
        """The key of ``arena play`` deals, made on first use."""

        def get(data: Data) -> str:
            if not data.get("play"):
                data["play"] = new_key().hex()
            return str(data["play"])

        where = str(self.path)
        found = self.read().get("play")
        return _hex_key(found if found else self.update(get), where)
