"""Django's SQLite backend, with its queries' placeholders rewritten once per query
(``combat.db.sqlite.base``)."""
