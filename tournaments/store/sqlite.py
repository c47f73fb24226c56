"""sqlite_utils' ``Database``, imported without numpy and pandas.

sqlite_utils imports numpy and pandas when they are installed, only to map their scalar types
to column types. The arena never stores such values, and numpy alone takes longer to import
than the rest of a command's start-up. So while sqlite_utils is imported those two modules are
marked absent (a ``None`` in ``sys.modules``, which makes their import fail as if they were not
installed), then forgotten: a later ``import numpy`` anywhere in the process works as usual.
If one of them was already imported, it stays and sqlite_utils sees it.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

#: Imported by sqlite_utils only to map their types to column types.
_SKIPPED = ("numpy", "pandas")


def _import_database() -> type:
    absent = [name for name in _SKIPPED if name not in sys.modules]
    for name in absent:
        sys.modules[name] = None  # type: ignore[assignment]
    try:
        from sqlite_utils import Database
    finally:
        for name in absent:
            if sys.modules.get(name, 0) is None:
                del sys.modules[name]
    return Database


if TYPE_CHECKING:
    from sqlite_utils import Database
else:
    Database = _import_database()
