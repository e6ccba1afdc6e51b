"""The live table: the hub that keeps each encounter's state in this process, the views each
audience sees (``state``), the websocket consumers and their routing, and the bench's bare socket.

Beside the views in the layers: it may import the table, the systems and the generic parts (it
draws their fragments), never the views or serving.

How the screens stay live
-------------------------

Every change is announced after it commits, with the encounter's sequence number, to one
listener per server process (``hub``), not to every socket. The process where the change was
made renders it at once and writes it to every socket of its own, and only then does the
request draw its own answer. Each process loads the encounter once per change (changes that
land while a render runs go out together with the next one) and renders it once per audience
(``state.View``: the referee; the players, per language; a seat's own rows). The table display
is the players' common view in its language, live through the same socket as their pages, so a
display costs no rendering of its own.

Each socket gets only what changed (``consumers``): a row, a log entry, the new number and the
number it applies to. Players who do not see foes' hit points see a foe's health in words, so a
blow that leaves it as wounded as it was sends them the log entry alone. A page that missed a
message (its number is not the one a change applies to), or that reconnects, gets a full
snapshot; every 30 s it checks its number, and hears the number alone when it is current. The
page (``static/fray.js``) pings its socket every 1.5 s, reconnects after 3 s without a pong,
gives up a connection that has not opened within 5 s for a new one and keeps one socket at a
time, so its live status is true within 5 s.

An action's own answer is its panel; the rest of the acting page changes like everyone else's.
A request on a table the process shows live takes the combatants, and a player's seat, from
its last render when that is at the encounter's number (``hub.rows_at``), not from the
database. A roll on such a table is decided on the table as its last render had it
(``combat.access.viewer_as_rendered``), reading nothing first: its change's number confirms
that nothing was stored since (it moves on by exactly one, ``Encounter.moved_to``), or the
transaction rolls back and the roll is decided again on what is stored.

A log entry is drawn once per language and audience on every change, so the common kinds' text
is written in Python (``combat/entry_text.py``, with the templates' message ids); the other rules
systems', hit locations' and the round's entries keep their templates.

On the embedded default (one process, the in-memory channel layer) a change made in the process
goes to its sockets without a trip through the channel layer, which nothing else could hear
(``hub.TableHub.heard_alone``). On PostgreSQL a change comes with the table as it left it, read
in the change's own last statement (``state.keep_read``, see ``combat.db``): the worker that
made it renders from that read once the announcement has left, and a worker whose state it
follows renders it with no load of its own, on its event loop as the announcement lands.
"""
