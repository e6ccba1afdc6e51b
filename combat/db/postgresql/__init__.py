"""Django's PostgreSQL backend, with a kept connection checked only when it may have gone
stale (``combat.db.postgresql.base``)."""
