"""``combat.db.postgresql``: Django's PostgreSQL backend, a kept connection checked before a
request only when it may have gone stale."""

from __future__ import annotations

import pytest
from django.db import connection, connections

from combat.models import Encounter

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _postgresql_only():
    if connection.vendor != "postgresql":
        pytest.skip("the scale-out database only")


def _is_usable_calls(monkeypatch) -> list[None]:
    """Django's check, counted (it runs on the driver's cursor, out of the captured queries)."""
    calls: list[None] = []
    original = type(connections["default"]).is_usable

    def counted(self) -> bool:
        calls.append(None)
        return original(self)

    monkeypatch.setattr(type(connections["default"]), "is_usable", counted)
    return calls


def _request() -> None:
    """What a request does to its connection: Django's look at it as the request starts
    (``close_old_connections``, which the test client leaves out), a query, and the same look
    as it ends."""
    connection.close_if_unusable_or_obsolete()
    assert Encounter.objects.count() >= 0
    connection.close_if_unusable_or_obsolete()


def test_a_connection_a_request_just_used_is_not_checked_again(monkeypatch):
    assert connection.settings_dict["CONN_HEALTH_CHECKS"]
    connection.ensure_connection()  # (a new connection is not checked: it was just made)
    checks = _is_usable_calls(monkeypatch)
    connection.fine_at -= 5  # (however the tests before left it)
    _request()  # not seen to end a request lately: checked
    assert len(checks) == 1
    _request()
    _request()
    assert len(checks) == 1  # each ended the last request fine just now
    connection.fine_at -= 5  # idle for a while: it may have been dropped meanwhile
    _request()
    assert len(checks) == 2
    _request()
    assert len(checks) == 2


def test_a_connection_that_failed_is_checked_and_a_dropped_one_opened_again(monkeypatch):
    """A request whose connection broke (the database restarted) fails as it would without
    health checks; Django closes that connection as the request ends, and the next request
    works on a new one."""
    from django.db import DatabaseError
    from psycopg import connect

    _request()
    pid = connection.connection.info.backend_pid
    with connect(**connection.get_connection_params(), autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [pid])  # as a restart would
    connection.close_if_unusable_or_obsolete()
    with pytest.raises(DatabaseError), connection.cursor() as cursor:
        cursor.execute("SELECT 1")  # within the second: taken as it is, and failing
    assert connection.errors_occurred
    connection.close_if_unusable_or_obsolete()  # as the request ends
    assert connection.connection is None
    _request()
    assert connection.connection.info.backend_pid != pid
