"""The live table: the hub that keeps each encounter's state in this process, the views each
audience sees (``state``), the websocket consumers and their routing, and the bench's bare socket.

Beside the views in the layers: it may import the table, the systems and the generic parts (it
draws their fragments), never the views or serving.
"""
