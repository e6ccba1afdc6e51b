"""The database adapters: Django's SQLite and PostgreSQL backends with each query's placeholders
rewritten once, and the prepared statements the live path and the actions ask again and again.

Below the models in the layers: nothing here imports the table, the systems, the views or live.
"""
