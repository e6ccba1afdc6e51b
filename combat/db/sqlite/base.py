"""Django's SQLite backend, but for one thing: a query's ``%s`` placeholders are rewritten as
SQLite's ``?`` once per distinct query, not on every run.

Django writes its SQL with ``%s`` and its SQLite cursor rewrites it, with a regular
expression, before every run: about 20 µs for a combatant's fifty columns, more than some of
the queries take to run. Fray asks the same few queries again and again (``combat.db.prepared``
keeps their SQL), so the rewritten text is kept, by query, in a bounded cache.
"""

from __future__ import annotations

import functools
from typing import Any

from django.db.backends.sqlite3 import base
from django.db.backends.sqlite3.base import FORMAT_QMARK_REGEX, Database

# Far more than the distinct queries a process asks (an ``IN`` list of each length is one).
QUERIES_KEPT = 4096


@functools.lru_cache(maxsize=QUERIES_KEPT)
def qmark(query: str) -> str:
    """``query`` in SQLite's placeholder style, as Django's cursor rewrites it."""
    return FORMAT_QMARK_REGEX.sub("?", query).replace("%%", "%")


class CursorWrapper(base.SQLiteCursorWrapper):
    def execute(self, query: str, params: Any = None) -> Any:
        if isinstance(params, list | tuple):  # Django's own queries: "format" style
            return Database.Cursor.execute(self, qmark(query), params)
        return super().execute(query, params)

    def convert_query(self, query: str, *, param_names: list[str] | None = None) -> str:
        if param_names is None:
            return qmark(query)
        return super().convert_query(query, param_names=param_names)


class DatabaseWrapper(base.DatabaseWrapper):
    def create_cursor(self, name: str | None = None) -> CursorWrapper:
        return self.connection.cursor(factory=CursorWrapper)
