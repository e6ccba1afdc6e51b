"""Django's PostgreSQL backend, but for three things: a kept connection that a request has
just used without an error is not checked again before the next request's first query; a
query log spells out the statements Fray prepares on the server (``DatabaseOperations``);
and the writes ``combat.db.prepared.save_fields`` keeps for the next statement go before a
commit and are dropped with a rollback.

With ``CONN_HEALTH_CHECKS`` Django asks every kept connection ``SELECT 1`` before the first
query of each request, so that a connection the database dropped while it sat idle (a
restart, an idle timeout) is opened again instead of failing the request. That is a round
trip to the database per request, and on a table in play every action is a request. A
connection whose last request ended without a database error less than ``FRESH_SECONDS``
ago is taken as it is, as Django takes any connection without health checks; one idle for
longer is checked as Django checks it. A failure within that second fails the request as it
would without health checks, and Django closes the connection when the request ends.
"""

from __future__ import annotations

import time
from typing import Any

from django.db.backends.postgresql import base, operations

from combat.db.prepared import drop_waiting, send_waiting, spelled_out

# How long after a request ends without an error its connection is taken as working.
FRESH_SECONDS = 1.0


class DatabaseOperations(operations.DatabaseOperations):
    def last_executed_query(self, cursor: Any, sql: str, params: Any) -> str | None:
        """Django's, with the statements Fray prepares on the server spelled out
        (``combat.db.prepared.on_server``): a query log shows what each ran, not its name."""
        sent = super().last_executed_query(cursor, sql, params)
        return spelled_out(sent) if sent else sent


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations
    # When this connection last ended (or began) a request without a database error.
    fine_at = float("-inf")

    def close_if_unusable_or_obsolete(self) -> None:
        """Django's, at the start and at the end of every request; then a connection
        found fine within the last ``FRESH_SECONDS`` counts as checked."""
        super().close_if_unusable_or_obsolete()
        if self.connection is None or self.errors_occurred:
            return
        now = time.monotonic()
        if now - self.fine_at < FRESH_SECONDS:
            self.health_check_done = True
        self.fine_at = now

    def connect(self) -> None:
        super().connect()
        self.fine_at = float("-inf")

    # Writes kept to go with the next statement (``combat.db.prepared.save_fields``) go before
    # a commit, and go with a rollback or a closed connection.
    def _commit(self) -> None:
        if self.connection is not None:
            send_waiting(self)
        super()._commit()

    def _rollback(self) -> None:
        drop_waiting(self)
        super()._rollback()

    def _close(self) -> None:
        drop_waiting(self)
        super()._close()
