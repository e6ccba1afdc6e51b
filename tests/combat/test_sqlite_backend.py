"""The embedded database's backend: Django's SQLite one, each query's placeholders rewritten
once (``combat.db.sqlite``); what the queries find is the same."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.db import connection
from django.db.backends.sqlite3.base import SQLiteCursorWrapper

from combat.db.sqlite.base import CursorWrapper, qmark
from combat.models import Combatant, Encounter

from .conftest import character

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "query",
    [
        "SELECT 1",
        "SELECT %s, %s",
        "SELECT * FROM t WHERE name LIKE %s ESCAPE '\\' AND note = '100%%'",
        "UPDATE t SET a = %s WHERE id IN (%s, %s, %s)",
    ],
)
def test_a_query_is_rewritten_as_djangos_cursor_rewrites_it(query):
    assert qmark(query) == SQLiteCursorWrapper.convert_query(None, query)


def test_the_embedded_database_uses_it_and_keeps_each_rewritten_query():
    if connection.vendor != "sqlite":
        pytest.skip("the embedded database only")
    assert settings.DATABASES["default"]["ENGINE"] == "combat.db.sqlite"
    with connection.cursor() as cursor:
        assert isinstance(cursor.cursor, CursorWrapper)
    encounter = Encounter.objects.create(name="Crypt")
    character(encounter, "Aldric 50% Bold")
    character(encounter, "Brenna")
    before = qmark.cache_info().hits
    for _ in range(2):
        found = Combatant.objects.filter(encounter=encounter, name__contains="50%")
        assert [c.name for c in found] == ["Aldric 50% Bold"]
    assert qmark.cache_info().hits > before
    with connection.cursor() as cursor:  # Django's other style, names: as Django does it
        cursor.execute("SELECT %(a)s + %(b)s", {"a": 2, "b": 3})
        assert cursor.fetchone() == (5,)
