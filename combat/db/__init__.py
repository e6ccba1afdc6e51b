"""The database adapters: Django's SQLite and PostgreSQL backends with each query's placeholders
rewritten once, and the prepared statements the live path and the actions ask again and again.

Below the models in the layers: nothing here imports the table, the systems, the views or live.

Few statements per change
-------------------------

On the embedded default the database is Django's SQLite backend with each query's placeholders
rewritten once (``combat/db/sqlite/``). On PostgreSQL, where every statement is a wait for
another process, a change asks as few as it can:

- a worker's load of a table after a change sends its queries as one list of statements, one
  round trip (``read_together`` in ``combat/db/prepared.py``), and makes the rows that changed
  from that read;
- a change moves the encounter's number on, stores its log entry and claims its one-time key
  in one statement (``combat.table.record``); a one-time key is looked up only when an action did
  not go through;
- that one statement also reads the table as the change leaves it (the encounter's row, locked
  by the number, keeps other changes from committing in between), so the worker renders from
  that read and announces it with the change (see ``combat.live``);
- the statements sent again and again are prepared on the server once per connection and run
  as ``EXECUTE`` (``on_server`` in ``combat/db/prepared.py``: PostgreSQL spent most of a
  change's time planning them), and within a transaction the hit points a blow stores go with
  the next statement (``save_fields``);
- a connection a request used less than a second ago is not health-checked again
  (``combat/db/postgresql/``).

A roll on a table the process shows live reads nothing first (its combatants' lock goes with
its first statement), so a blow on PostgreSQL is three round trips: BEGIN, the lock with the
hit points, the entry and the read, then COMMIT. What changed in the log is read as one range
of the (encounter, number) index, however long the club's log has grown.
"""
